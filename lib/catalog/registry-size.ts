import type { CatalogRegistry, RegisteredCatalog } from '../store/catalog-repository';
import type { ReleaseLayout } from './types';

/**
 * The store's catalog registry is one DynamoDB item (lib/store/catalog-repository.ts): every published
 * catalog of the store with its rules and current release. It must stay far below DynamoDB's 400 KB item
 * limit whatever the store's catalogs hold, or one catalog's rules could make every other catalog's publish
 * fail. So each catalog's entry is bounded (REGISTRY_ENTRY_MAX_BYTES, checked when a document is
 * validated), a store holds at most MAX_CATALOGS_PER_STORE catalogs, and the switch refuses, with a clear
 * error, a registry past REGISTRY_MAX_BYTES (only a registry written before these bounds can get there).
 */

/** At most this many bytes (as DynamoDB sizes them) of one catalog's entry in the registry. */
export const REGISTRY_ENTRY_MAX_BYTES = 3072;
/** DynamoDB's item limit is 400 KB; the switch refuses a registry past this (keys and names need room). */
export const REGISTRY_MAX_BYTES = 390 * 1024;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * The size of a value as DynamoDB counts it against the 400 KB item limit (its documentation's "item
 * sizes"): strings in UTF-8 bytes, numbers one byte a two significant digits plus one, null and booleans
 * one, binary its bytes, lists and maps 3 bytes plus, for each element, one byte, its name (maps) and its
 * value. It rounds up where DynamoDB's own count is approximate (numbers).
 */
export function attributeBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') {
    const digits = String(Math.abs(value))
      .replace(/[.e+-]/g, '')
      .replace(/^0+/, '').length;
    return Math.ceil(Math.max(1, digits) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) {
    return 3 + value.reduce((sum: number, element) => sum + 1 + attributeBytes(element), 0);
  }
  if (typeof value === 'object') {
    let bytes = 3;
    for (const [name, element] of Object.entries(value)) {
      if (element === undefined) continue;
      bytes += 1 + utf8(name) + attributeBytes(element);
    }
    return bytes;
  }
  throw new Error(`no DynamoDB size for a ${typeof value}`);
}

/** The size of an item: each attribute's name and value (`attributeBytes`). */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) bytes += utf8(name) + attributeBytes(value);
  }
  return bytes;
}

/**
 * The bytes a catalog's entry takes in the registry: its key (the catalog id) and its value. `rules` without
 * an id get one at publish, and every `created_at` is 24 characters, so a document's entry can be sized
 * before its publish (`largestLayout` stands for the release it will point at).
 */
export function registryEntryBytes(catalog: RegisteredCatalog): number {
  return 1 + utf8(catalog.id) + attributeBytes(catalog);
}

/** A rule as a document gives it (validated), before the publish registers it. */
interface DocumentRule {
  id?: string;
  name: string;
  channels: string[];
  tags: string[];
  schedules: { valid_from: string | null; valid_to: string | null }[];
}

const PLACEHOLDER_ID = 'ffffffff-ffff-7fff-bfff-ffffffffffff';
const PLACEHOLDER_AT = '2999-12-31T23:59:59.999Z';

/**
 * The bytes a document's catalog will take in the registry once published: its name and rules as the
 * switch registers them (ids generated where missing, every time 24 characters) and the largest layout.
 */
export function documentEntryBytes(document: {
  catalog: { id?: string; name: string };
  rules: DocumentRule[];
}): number {
  const catalogId = document.catalog.id ?? PLACEHOLDER_ID;
  return registryEntryBytes({
    id: catalogId,
    name: document.catalog.name,
    created_at: PLACEHOLDER_AT,
    release: LARGEST_LAYOUT,
    rules: document.rules.map((rule) => ({
      id: rule.id ?? PLACEHOLDER_ID,
      name: rule.name,
      catalog_id: catalogId,
      channels: rule.channels,
      tags: rule.tags,
      schedules: rule.schedules,
      created_at: PLACEHOLDER_AT,
    })),
  });
}

/** The largest release layout an entry points at (for sizing an entry before the release exists). */
export const LARGEST_LAYOUT: ReleaseLayout = {
  id: 'ffffffff-ffff-7fff-bfff-ffffffffffff',
  shards: 4096,
  chunk_size: 1000,
  published_at: '2999-12-31T23:59:59.999Z',
  filter_index: 99,
};

/** The registry item's size: its key, version and every entry. */
export function registryBytes(storeId: string, registry: CatalogRegistry): number {
  return itemBytes({ pk: `STORE#${storeId}`, sk: 'CATALOGS', ...registry });
}

/** A registry too large for its item: the switch's clear refusal, instead of DynamoDB's ValidationException. */
export class RegistryTooLargeError extends Error {
  override name = 'RegistryTooLargeError';
  constructor(
    readonly bytes: number,
    readonly largest: { id: string; bytes: number },
  ) {
    super(
      `the store's catalog registry would take ${bytes} bytes, over the ${REGISTRY_MAX_BYTES} one item holds; its largest entry is catalog ${largest.id} (${largest.bytes} bytes): publish that catalog again with fewer rules (each catalog's entry holds at most ${REGISTRY_ENTRY_MAX_BYTES} bytes now)`,
    );
  }
}

/** Throws RegistryTooLargeError when the registry cannot be written as one item. */
export function assertRegistryFits(storeId: string, registry: CatalogRegistry): void {
  const bytes = registryBytes(storeId, registry);
  if (bytes <= REGISTRY_MAX_BYTES) return;
  let largest = { id: '', bytes: 0 };
  for (const catalog of Object.values(registry.catalogs)) {
    const entry = registryEntryBytes(catalog);
    if (entry > largest.bytes) largest = { id: catalog.id, bytes: entry };
  }
  throw new RegistryTooLargeError(bytes, largest);
}

/** At most this many rules of the catalog rules API a store (`/pcm/catalogs/rules`). */
export const MAX_RULES_PER_STORE = 50;
/**
 * At most this many bytes the catalog rules API's rules take in the registry together: with every catalog
 * entry at its most (MAX_CATALOGS_PER_STORE × REGISTRY_ENTRY_MAX_BYTES) the item stays near half of
 * DynamoDB's 400 KB. Fifty ordinary rules take about 15 KB; only rules full of long text reach it.
 */
export const RULES_MAX_BYTES = 64 * 1024;

/** The bytes the API's rules take in the registry item (the attribute's name and value). */
export function rulesBytes(rules: readonly unknown[]): number {
  return utf8('rules') + attributeBytes(rules);
}
