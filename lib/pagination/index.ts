import { BadRequestError } from '../http/errors';
import { compileSchema, type Schema, type Validator } from '../schema/index';

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
export const DEFAULT_MAX_LIMIT = 100;
export const DEFAULT_MAX_OFFSET = 10000;

/** The schemas of `page[limit]` and `page[offset]` for some bounds: what is checked and what is published. */
export interface PageParameterSchemas {
  limit: Schema;
  offset: Schema;
}

const bounded = (min: number, max: number, description: string): Schema => ({
  type: 'integer',
  minimum: min,
  maximum: max,
  'x-message': `must be an integer from ${min} to ${max}`,
  description,
});

/** The page parameters' schemas for these bounds (the OpenAPI document publishes the same objects). */
export function pageParameterSchemas(bounds: PageBounds): PageParameterSchemas {
  return {
    limit: bounded(
      1,
      bounds.maxLimit ?? DEFAULT_MAX_LIMIT,
      'How many records a page holds; the default depends on the list.',
    ),
    offset: {
      ...bounded(0, bounds.maxOffset ?? DEFAULT_MAX_OFFSET, 'Zero-based index of the first record.'),
      default: 0,
    },
  };
}

interface CompiledPageParameters {
  limit: Validator;
  offset: Validator;
}
const compiledBounds = new Map<string, CompiledPageParameters>();

/** Validators for a pair of bounds, compiled once per container (every route uses one pair). */
function validatorsFor(bounds: PageBounds): CompiledPageParameters {
  const key = `${bounds.maxLimit ?? DEFAULT_MAX_LIMIT}/${bounds.maxOffset ?? DEFAULT_MAX_OFFSET}`;
  let compiled = compiledBounds.get(key);
  if (!compiled) {
    const schemas = pageParameterSchemas(bounds);
    compiled = {
      limit: compileSchema(schemas.limit, { root: 'page[limit]' }),
      offset: compileSchema(schemas.offset, { root: 'page[offset]' }),
    };
    compiledBounds.set(key, compiled);
  }
  return compiled;
}

function parseBounded(raw: string | undefined, name: string, fallback: number, validator: Validator): number {
  if (raw === undefined) return fallback;
  // A query value is text: only plain digits become a number; anything else fails the integer rule.
  const value = DIGITS.test(raw) ? Number(raw) : raw;
  const issue = validator(value);
  if (issue) throw new BadRequestError(issue.message, name);
  return value as number;
}

/**
 * Reads `page[limit]` (1..maxLimit) and `page[offset]` (0..maxOffset) from decoded query parameters.
 * Anything else — empty, negative, fractional, non-numeric — is a 400 whose source names the parameter.
 */
export function parsePageRequest(
  query: Record<string, string | undefined> | undefined,
  bounds: PageBounds,
): PageRequest {
  const validators = validatorsFor(bounds);
  return {
    limit: parseBounded(query?.['page[limit]'], 'page[limit]', bounds.defaultLimit, validators.limit),
    offset: parseBounded(query?.['page[offset]'], 'page[offset]', 0, validators.offset),
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

/** A page of resources in the platform's list shape: `data`, `links`, `meta.page` and `meta.results`. */
export function renderPage<T>(
  all: T[],
  page: PageRequest,
  base: string,
  render: (item: T) => Record<string, unknown>,
): Record<string, unknown> {
  return renderPageOf(all.slice(page.offset, page.offset + page.limit), all.length, page, base, render);
}

/** A page of a filtered list: its links keep the `filter` (when one was sent). */
export function renderFilteredPage<T>(
  slice: T[],
  total: number,
  page: PageRequest,
  base: string,
  filter: string | undefined,
  render: (item: T) => Record<string, unknown>,
): Record<string, unknown> {
  const extra: Record<string, string> = filter === undefined ? {} : { filter };
  return {
    data: slice.map(render),
    links: pageLinks(page, total, (offset, limit) => pageUrl(base, offset, limit, extra)),
    meta: { page: pageMeta(page, total), results: { total } },
  };
}

/** The same, of a page already read (`slice`) out of `total` resources. */
export function renderPageOf<T>(
  slice: T[],
  total: number,
  page: PageRequest,
  base: string,
  render: (item: T) => Record<string, unknown>,
): Record<string, unknown> {
  return renderFilteredPage(slice, total, page, base, undefined, render);
}
