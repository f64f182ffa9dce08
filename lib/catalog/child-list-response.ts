import { BadRequestError } from '../http/errors';
import { type PageLinks, type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import { assertValid, compileSchema, type Schema } from '../schema/index';
import { childrenPath } from './derive';

const MAX_HEADER_LENGTH = 255;

/** `SVC-Channel` (alias `EP-Channel`): which channel the shopper is in; it picks the catalog rule. */
export const SVC_CHANNEL_SCHEMA: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_HEADER_LENGTH,
  'x-message': `must be 1 to ${MAX_HEADER_LENGTH} characters (e.g. SVC-Channel: web)`,
  description: 'The channel, e.g. `web` (alias `EP-Channel`; `SVC-*` wins when both are sent).',
  examples: ['web'],
};

/** `SVC-Context-Tag` (alias `EP-Context-Tag`): an optional tag that catalog rules may match. */
export const SVC_CONTEXT_TAG_SCHEMA: Schema = {
  type: 'string',
  maxLength: MAX_HEADER_LENGTH,
  'x-message': `must be at most ${MAX_HEADER_LENGTH} characters`,
  description: 'A context tag such as a campaign (alias `EP-Context-Tag`); empty means none.',
  examples: ['summer'],
};

const validateChannel = compileSchema(SVC_CHANNEL_SCHEMA, { root: 'SVC-Channel' });
const validateTag = compileSchema(SVC_CONTEXT_TAG_SCHEMA, { root: 'SVC-Context-Tag' });

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
  assertValid(validateChannel, channel);
  const tag = assertValid<string>(
    validateTag,
    (headers['svc-context-tag'] ?? headers['ep-context-tag'] ?? '').trim(),
  );
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
