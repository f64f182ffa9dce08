import { type PageMeta, type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import type { ApplicationKeyPage, ApplicationKeyRecord } from '../store/application-key-repository';

/** The collection's path; links are this path on the request's origin. */
export const APPLICATION_KEYS_PATH = '/v2/application-keys';
/** Default `page[limit]` of the list. */
export const APPLICATION_KEYS_DEFAULT_LIMIT = 25;

/** An application key on the wire. It never carries the client secret. */
export interface ApplicationKeyResource {
  id: string;
  name: string;
  type: 'application_key';
  client_id: string;
  reserved_rate_limit: number;
  meta: {
    timestamps: { created_at: string; updated_at: string; last_used_at: string | null };
  };
}

/** The list response of `GET /v2/application-keys`. */
export interface ApplicationKeyListResponse {
  data: ApplicationKeyResource[];
  links: { current: string; first: string; last: string; next: string | null; prev: string | null };
  meta: { page: PageMeta; results: { total: number }; total_reserved_rate_limit: number };
}

/** Absolute URL of one key. */
export function applicationKeyUrl(origin: string, keyId: string): string {
  return `${origin}${APPLICATION_KEYS_PATH}/${keyId}`;
}

/** The wire shape of a key, built field by field so nothing stored beyond them can leak. */
export function renderApplicationKey(key: ApplicationKeyRecord): ApplicationKeyResource {
  return {
    id: key.id,
    name: key.name,
    type: 'application_key',
    client_id: key.client_id,
    reserved_rate_limit: key.reserved_rate_limit,
    meta: {
      timestamps: {
        created_at: key.created_at,
        updated_at: key.updated_at,
        last_used_at: key.last_used_at ?? null,
      },
    },
  };
}

/** `{data, links.self}` for a single key (get and update). */
export function renderApplicationKeyDocument(key: ApplicationKeyRecord, origin: string) {
  return { data: renderApplicationKey(key), links: { self: applicationKeyUrl(origin, key.id) } };
}

/** The create response: the only response that ever shows `client_secret`. */
export function renderCreatedApplicationKey(key: ApplicationKeyRecord, clientSecret: string, origin: string) {
  const { meta, ...fields } = renderApplicationKey(key);
  return {
    data: { ...fields, client_secret: clientSecret, meta },
    links: { self: applicationKeyUrl(origin, key.id) },
  };
}

/**
 * The list response: the page of keys, absolute page links (keeping the `filter`, URL-encoded) and totals:
 * `results.total` counts the (filtered) list, `total_reserved_rate_limit` is always the store's.
 */
export function renderApplicationKeyList(
  page: ApplicationKeyPage,
  request: PageRequest,
  origin: string,
  filter?: string,
): ApplicationKeyListResponse {
  const base = `${origin}${APPLICATION_KEYS_PATH}`;
  const extra: Record<string, string> = filter === undefined ? {} : { filter };
  const links = pageLinks(request, page.total, (offset, limit) => pageUrl(base, offset, limit, extra));
  return {
    data: page.keys.map(renderApplicationKey),
    links: {
      current: links.self,
      first: links.first,
      // The key list always names its last page (possibly the first), unlike the catalog list.
      last: links.last ?? links.first,
      next: links.next,
      prev: links.prev,
    },
    meta: {
      page: pageMeta(request, page.total),
      results: { total: page.total },
      total_reserved_rate_limit: page.reservedRateLimitTotal,
    },
  };
}
