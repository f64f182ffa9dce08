import { BadRequestError } from '../http/errors';

/** A requested page: `limit` records starting at record `offset` (zero-based). */
export interface PageRequest {
  limit: number;
  offset: number;
}

export interface PageBounds {
  /** Used when `page[limit]` is absent (25 for keys, the store's page length for the catalog). */
  defaultLimit: number;
  maxLimit?: number;
  maxOffset?: number;
}

export interface PageMeta {
  limit: number;
  offset: number;
  /** 1-based number of the page that holds `offset`. */
  current: number;
  /** Number of pages, at least 1. */
  total: number;
}

export interface PageLinks {
  self: string;
  first: string;
  last: string | null;
  prev: string | null;
  next: string | null;
}

const DIGITS = /^\d{1,9}$/;

function parseBounded(
  raw: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = DIGITS.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BadRequestError(`${name} must be an integer from ${min} to ${max}`, name);
  }
  return value;
}

/**
 * Reads `page[limit]` (1..maxLimit) and `page[offset]` (0..maxOffset) from decoded query parameters.
 * Anything else — empty, negative, fractional, non-numeric — is a 400 whose source names the parameter.
 */
export function parsePageRequest(
  query: Record<string, string | undefined> | undefined,
  bounds: PageBounds,
): PageRequest {
  const maxLimit = bounds.maxLimit ?? 100;
  const maxOffset = bounds.maxOffset ?? 10000;
  return {
    limit: parseBounded(query?.['page[limit]'], 'page[limit]', bounds.defaultLimit, 1, maxLimit),
    offset: parseBounded(query?.['page[offset]'], 'page[offset]', 0, 0, maxOffset),
  };
}

/** Page numbers for a result set of `totalResults` records. */
export function pageMeta(page: PageRequest, totalResults: number): PageMeta {
  return {
    limit: page.limit,
    offset: page.offset,
    current: Math.floor(page.offset / page.limit) + 1,
    total: Math.max(1, Math.ceil(totalResults / page.limit)),
  };
}

/**
 * Links to the current, first, last, previous and next pages; `url(offset, limit)` renders one.
 * `prev`/`next` are null at the edges; with `nullLastWhenSinglePage`, `last` is null on a single page.
 */
export function pageLinks(
  page: PageRequest,
  totalResults: number,
  url: (offset: number, limit: number) => string,
  options: { nullLastWhenSinglePage?: boolean } = {},
): PageLinks {
  const pages = Math.max(1, Math.ceil(totalResults / page.limit));
  const lastOffset = (pages - 1) * page.limit;
  const single = pages === 1;
  return {
    self: url(page.offset, page.limit),
    first: url(0, page.limit),
    last: single && options.nullLastWhenSinglePage ? null : url(lastOffset, page.limit),
    prev: page.offset > 0 ? url(Math.max(0, page.offset - page.limit), page.limit) : null,
    next: page.offset + page.limit < totalResults ? url(page.offset + page.limit, page.limit) : null,
  };
}

/**
 * A page URL: `base` (absolute or relative path) with `extra` query parameters (URL-encoded, in order)
 * followed by `page[offset]` and `page[limit]`.
 */
export function pageUrl(
  base: string,
  offset: number,
  limit: number,
  extra: Record<string, string> = {},
): string {
  const parts = Object.entries(extra).map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
  );
  parts.push(`page[offset]=${offset}`, `page[limit]=${limit}`);
  return `${base}?${parts.join('&')}`;
}
