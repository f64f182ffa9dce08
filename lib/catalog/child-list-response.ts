import { BadRequestError } from '../http/errors';
import { type PageLinks, type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import { childrenPath } from './derive';

const MAX_HEADER_LENGTH = 255;

/**
 * The shopper's context from the request headers (already lower-cased): `SVC-Channel` (required, alias
 * `EP-Channel`) and `SVC-Context-Tag` (alias `EP-Context-Tag`). 400 naming the header when the channel is
 * missing or either is too long.
 */
export function shopperHeaders(headers: Record<string, string | undefined>): {
  channel: string;
  tag: string | undefined;
} {
  const channel = (headers['svc-channel'] ?? headers['ep-channel'] ?? '').trim();
  if (channel === '') {
    throw new BadRequestError('the SVC-Channel header is required (e.g. SVC-Channel: web)', 'SVC-Channel');
  }
  if (channel.length > MAX_HEADER_LENGTH) {
    throw new BadRequestError(`SVC-Channel must be at most ${MAX_HEADER_LENGTH} characters`, 'SVC-Channel');
  }
  const tag = (headers['svc-context-tag'] ?? headers['ep-context-tag'] ?? '').trim();
  if (tag.length > MAX_HEADER_LENGTH) {
    throw new BadRequestError(
      `SVC-Context-Tag must be at most ${MAX_HEADER_LENGTH} characters`,
      'SVC-Context-Tag',
    );
  }
  return { channel, tag: tag === '' ? undefined : tag };
}

/**
 * Links of a child list page (DESIGN.md section 6): relative, keeping the request's `filter` (URL-encoded),
 * `last`/`prev`/`next` null on a single page, `prev`/`next` null at the edges.
 */
export function childListLinks(
  productId: string,
  filter: string | undefined,
  page: PageRequest,
  total: number,
): PageLinks {
  const extra: Record<string, string> = filter === undefined ? {} : { filter };
  return pageLinks(page, total, (offset, limit) => pageUrl(childrenPath(productId), offset, limit, extra), {
    nullLastWhenSinglePage: true,
  });
}

/**
 * The 200 body as JSON text: `data` (products already serialized), `meta.results.total`, `meta.page`,
 * `links`.
 */
export function childListJson(
  productId: string,
  filter: string | undefined,
  page: PageRequest,
  result: { data: string[]; total: number },
): string {
  const meta = { results: { total: result.total }, page: pageMeta(page, result.total) };
  const links = childListLinks(productId, filter, page, result.total);
  return `{"data":[${result.data.join(',')}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
}
