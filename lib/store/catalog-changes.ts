import { createHash, randomUUID } from 'node:crypto';
import type { Command } from './dynamodb';
import { TTL_ATTRIBUTE } from './schema';

/**
 * The store's catalog change log: every write to an authored catalog's sources (products, their built
 * children, prices) leaves an item naming what it touched, written with it (in its transaction, or just
 * before it), so that a release's Export re-reads only what changed since the release before it
 * (docs/publishing.md, "Exporting only what changed"). Writes to anything else a release exports (nodes,
 * attachments, hierarchies, variations, price modifiers, price books, files, currencies), and any key of
 * the products table this module does not know, are logged as `structure`: the next export is a whole one.
 * A hierarchy's own writes (the hierarchy, its nodes, attachments to them) are logged by hierarchy: they
 * make a whole export only for catalogs that publish that hierarchy. The log is written by the DynamoDB
 * client itself (`writeHook`), so no write path can forget it.
 */

/**
 * What a write touched: a product (its family), a sku (by the hash its claims use), a hierarchy (itself, a
 * node of it, or an attachment to one), or anything else.
 */
export type CatalogChange =
  | { kind: 'product'; id: string }
  | { kind: 'sku'; id: string }
  | { kind: 'hierarchy'; id: string }
  | { kind: 'structure'; id: '' };

/** Each log item lives this long (an export reads a day and a margin back at most). */
const CHANGE_TTL_SECONDS = 2 * 24 * 3600;
/** Log partitions per store and hour: writes spread over them (DynamoDB takes 1,000 writes/s a partition). */
export const CHANGE_SHARDS = 4;
/** An export whose release before began exporting longer ago than this exports the whole catalog. */
export const CHANGE_WINDOW_MS = 24 * 3600 * 1000;

const LOG_PREFIX = 'PCHANGE#';
export const HOUR_MS = 3600 * 1000;
const hour = (ms: number) => new Date(ms).toISOString().slice(0, 13);

/** The sku hash of the product and price claims (sha-256 of the lower-cased sku). */
export const skuHash = (sku: string) => createHash('sha256').update(sku.toLowerCase(), 'utf8').digest('hex');

const shardOf = (id: string) => {
  let h = 0;
  for (let i = 0; i < id.length; i += 1) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h % CHANGE_SHARDS;
};

export const changeKeys = {
  log: (storeId: string, at: number, shard: number) => `${LOG_PREFIX}${storeId}#${hour(at)}#${shard}`,
};

/** Sort-key prefixes of the store partition that no release exports (records of catalogs, jobs, webhooks). */
const UNEXPORTED_STORE_KEYS = ['PCM#', 'JOB#', 'INTEGRATION#', 'RELEASE#'];
const UNEXPORTED_STORE_ITEMS = new Set(['PCM_COUNT', 'INTEGRATION_STATE', 'CATALOGS']);
/** Partitions of the products table that no release exports: release items, claims (their owner's write is logged), job errors, webhook logs, this log. */
const UNEXPORTED_PARTITIONS = [
  'REL#',
  'PSKU#',
  'PEXTREF#',
  'PNSLUG#',
  'PNNAME#',
  'PHSLUG#',
  'JOB#',
  'INTEGRATION_LOGS#',
  LOG_PREFIX,
];

interface Written {
  key: { pk?: unknown; sk?: unknown };
  item?: Record<string, unknown>;
}

/** The store and change a written key makes, or undefined for a key no release exports. */
export function changeOfKey(
  written: Written,
  sameWrite: readonly Written[],
): { store: string; change: CatalogChange } | undefined {
  const { pk, sk } = written.key;
  if (typeof pk !== 'string' || typeof sk !== 'string') return undefined;
  if (UNEXPORTED_PARTITIONS.some((prefix) => pk.startsWith(prefix))) return undefined;
  const structure = (store: string) => ({ store, change: { kind: 'structure' as const, id: '' as const } });
  if (pk.startsWith('STORE#')) {
    const store = pk.slice('STORE#'.length);
    if (UNEXPORTED_STORE_ITEMS.has(sk) || sk.endsWith('_COUNT')) return undefined;
    if (UNEXPORTED_STORE_KEYS.some((prefix) => sk.startsWith(prefix))) return undefined;
    if (sk.startsWith('PRODUCT#'))
      return { store, change: { kind: 'product', id: sk.slice('PRODUCT#'.length) } };
    // A built child's entry (PCHILD#<parent>#<options>) and a bundle's use of a component (PUSEDBY#<component>#<bundle>).
    if (sk.startsWith('PCHILD#')) return { store, change: { kind: 'product', id: sk.split('#')[1] ?? '' } };
    if (sk.startsWith('PUSEDBY#')) return { store, change: { kind: 'product', id: sk.split('#')[2] ?? '' } };
    // A hierarchy (HIERARCHY#<h>), a node (NODE#<h>#<node>), an attachment (NODEPROD#<h>#…, PRODNODE#<product>#<h>#…).
    const hierarchy =
      sk.startsWith('HIERARCHY#') || sk.startsWith('NODE#') || sk.startsWith('NODEPROD#')
        ? sk.split('#')[1]
        : sk.startsWith('PRODNODE#')
          ? sk.split('#')[2]
          : undefined;
    if (hierarchy) return { store, change: { kind: 'hierarchy', id: hierarchy } };
    return structure(store);
  }
  if (pk.startsWith('PRICES#')) {
    const store = pk.split('#')[1] ?? '';
    if (sk.startsWith('PRICE_SKU#'))
      return { store, change: { kind: 'sku', id: sk.slice('PRICE_SKU#'.length) } };
    if (sk.startsWith('PRICE#')) {
      const sku = written.item?.sku;
      if (typeof sku === 'string') return { store, change: { kind: 'sku', id: skuHash(sku) } };
      // A price written by key alone: its sku is known only from the claim written with it.
      if (sameWrite.some((other) => String(other.key.sk ?? '').startsWith('PRICE_SKU#'))) return undefined;
    }
    return structure(store);
  }
  // A partition this module does not know: the store is its second part when it has one.
  const store = pk.split('#')[1];
  return store === undefined || store === '' ? undefined : structure(store);
}

type WriteRequest = {
  Put?: { TableName?: string; Item?: Record<string, unknown> };
  Update?: { TableName?: string; Key?: Record<string, unknown> };
  Delete?: { TableName?: string; Key?: Record<string, unknown> };
  ConditionCheck?: unknown;
};

/** The items `command` writes to `table`, with their keys. */
function writtenBy(command: Command<unknown, unknown>, table: string): Written[] {
  const input = command.input as {
    TableName?: string;
    Item?: Record<string, unknown>;
    Key?: Record<string, unknown>;
    TransactItems?: WriteRequest[];
    RequestItems?: Record<
      string,
      { PutRequest?: { Item: Record<string, unknown> }; DeleteRequest?: { Key: Record<string, unknown> } }[]
    >;
  };
  switch (command.operation) {
    case 'PutItem':
      return input.TableName === table && input.Item ? [{ key: input.Item, item: input.Item }] : [];
    case 'UpdateItem':
    case 'DeleteItem':
      return input.TableName === table && input.Key ? [{ key: input.Key }] : [];
    case 'TransactWriteItems':
      return (input.TransactItems ?? []).flatMap((request): Written[] => {
        if (request.Put?.TableName === table && request.Put.Item)
          return [{ key: request.Put.Item, item: request.Put.Item }];
        const keyed = request.Update ?? request.Delete;
        return keyed?.TableName === table && keyed.Key ? [{ key: keyed.Key }] : [];
      });
    case 'BatchWriteItem':
      return (input.RequestItems?.[table] ?? []).flatMap((request): Written[] => {
        if (request.PutRequest) return [{ key: request.PutRequest.Item, item: request.PutRequest.Item }];
        return request.DeleteRequest ? [{ key: request.DeleteRequest.Key }] : [];
      });
    default:
      return [];
  }
}

/**
 * The log items a write to `table` (the products table) needs, stamped `now`: one per store and thing
 * touched. Empty for reads and for writes no release exports.
 */
export function changeItems(
  command: Command<unknown, unknown>,
  table: string,
  now = Date.now(),
): Record<string, unknown>[] {
  const written = writtenBy(command, table);
  if (written.length === 0) return [];
  const seen = new Map<string, Record<string, unknown>>();
  const stamp = new Date(now).toISOString();
  for (const one of written) {
    const found = changeOfKey(one, written);
    if (found === undefined) continue;
    const { store, change } = found;
    const name = `${store}\n${change.kind}\n${change.id}`;
    if (seen.has(name)) continue;
    seen.set(name, {
      pk: changeKeys.log(store, now, shardOf(change.id)),
      // Unique per write: two writes of one product in the same millisecond are two log items.
      sk: `${stamp}#${randomUUID()}`,
      kind: change.kind,
      id: change.id,
      [TTL_ATTRIBUTE]: Math.floor(now / 1000) + CHANGE_TTL_SECONDS,
    });
  }
  return [...seen.values()];
}
