import { BadRequestError } from '../http/errors';
import { type PageLinks, type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import { assertValid, compileSchema, type Schema } from '../schema/index';
import type { CurrencySettings } from '../store/store-repository';
import { childrenPath } from './derive';
import { INCLUDES, type Include } from './list-children';

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
 * The shopper's context from the request headers (already lower-cased): `SVC-Channel` (alias `EP-Channel`)
 * and `SVC-Context-Tag` (alias `EP-Context-Tag`). The channel is required unless the store's
 * `channel_required` setting is false (then a request without one has channel undefined, and only rules
 * naming no channel match it). 400 naming the header when a required channel is missing or either is too
 * long.
 */
export function shopperHeaders(
  headers: Record<string, string | undefined>,
  store: { channel_required?: boolean } = {},
): {
  channel: string | undefined;
  tag: string | undefined;
} {
  const channel = (headers['svc-channel'] ?? headers['ep-channel'] ?? '').trim();
  if (channel === '' && store.channel_required !== false) {
    throw new BadRequestError('the SVC-Channel header is required (e.g. SVC-Channel: web)', 'SVC-Channel');
  }
  if (channel !== '') assertValid(validateChannel, channel);
  const tag = assertValid<string>(
    validateTag,
    (headers['svc-context-tag'] ?? headers['ep-context-tag'] ?? '').trim(),
  );
  return { channel: channel === '' ? undefined : channel, tag: tag === '' ? undefined : tag };
}

/** `include`: a description for the OpenAPI document (the values are checked by `parseInclude`). */
export const INCLUDE_SCHEMA: Schema = {
  type: 'string',
  description: `Comma-separated related resources to return in \`included\`: any of ${INCLUDES.join(', ')}.`,
  examples: ['main_image,files,component_products'],
};

/**
 * `include` (repeated parameters arrive joined by commas): a set of `main_image`, `files`,
 * `component_products`; anything else, an empty list or an empty item is a 400 naming `include`.
 */
export function parseInclude(text: string | undefined): Set<Include> | undefined {
  if (text === undefined) return undefined;
  const include = new Set<Include>();
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (!(INCLUDES as readonly string[]).includes(item)) {
      const shown = item === '' ? 'an empty item' : JSON.stringify(item.slice(0, 32));
      throw new BadRequestError(`include may list ${INCLUDES.join(', ')}; got ${shown}`, 'include');
    }
    include.add(item as Include);
  }
  return include;
}

/** `EP-Currency` / `X-Moltin-Currency`: a currency code of the store. */
export const CURRENCY_HEADER_SCHEMA: Schema = {
  type: 'string',
  description:
    "Currency of the display prices: one of the store's currencies (alias `X-Moltin-Currency`; `EP-Currency` wins when both are sent). Default: the store's default currency.",
  examples: ['EUR'],
};

/**
 * The display currency a request asks for: `EP-Currency`, else `X-Moltin-Currency` (headers already
 * lower-cased), upper-cased; undefined when neither is sent. 400 naming the header when the code is not one
 * of the store's currencies.
 */
export function displayCurrency(
  headers: Record<string, string | undefined>,
  currencies: Record<string, CurrencySettings>,
): string | undefined {
  const [name, value] =
    headers['ep-currency'] !== undefined
      ? ['EP-Currency', headers['ep-currency']]
      : ['X-Moltin-Currency', headers['x-moltin-currency']];
  if (value === undefined) return undefined;
  const code = value.trim().toUpperCase();
  if (!Object.hasOwn(currencies, code)) {
    const known = Object.keys(currencies).sort().join(', ');
    const shown = value.trim() === '' ? 'an empty value' : JSON.stringify(value.trim().slice(0, 16));
    throw new BadRequestError(`${name} must be one of the store's currencies (${known}); got ${shown}`, name);
  }
  return code;
}

/** The shopper's languages: `Accept-Language`, else the SDK's `X-Moltin-Language`. */
export function acceptLanguage(headers: Record<string, string | undefined>): string | undefined {
  return headers['accept-language'] ?? headers['x-moltin-language'];
}

/** The query parameters a child list's links keep, as the request sent them. */
export interface ChildListQuery {
  filter?: string;
  include?: string;
}

/**
 * Links of a child list page: relative, keeping the request's `filter` and `include`
 * (URL-encoded),
 * `last`/`prev`/`next` null on a single page, `prev`/`next` null at the edges.
 */
export function childListLinks(
  productId: string,
  query: ChildListQuery,
  page: PageRequest,
  total: number,
): PageLinks {
  const extra: Record<string, string> = {};
  if (query.filter !== undefined) extra.filter = query.filter;
  if (query.include !== undefined) extra.include = query.include;
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
  query: ChildListQuery,
  page: PageRequest,
  result: { data: string[]; total: number; included?: string },
): string {
  const meta = { results: { total: result.total }, page: pageMeta(page, result.total) };
  const links = childListLinks(productId, query, page, result.total);
  const included = result.included === undefined ? '' : `,"included":${result.included}`;
  return `{"data":[${result.data.join(',')}]${included},"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
}
