import { createHash } from 'node:crypto';
import type { Currencies, ModifierType, Sale } from '../validation/price';
import type { transactAsCaller, WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { QueryCommand } from './dynamodb';
import {
  batchGetItems,
  batchWriteItems,
  countItems,
  getRecord,
  type PagedQuery,
  queryPage,
  withoutKeys,
} from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { pricebookKeys } from './pricebook-repository';
import { tableName } from './schema';
import { firstRoundRead, movedClaim, rereadingWrites, transactRetrying } from './transact-retrying';

/**
 * The prices and price modifiers of a price book (docs/price-books.md), in the products table, in the
 * book's own partition `PRICES#<store>#<book>` (so the store's partition, which lists its books, holds none of
 * them, and a book's deletion empties one partition):
 *
 * - `PRICE#<id>`: a price (ids are UUIDv7: the list's creation order). Its attributes are bounded to
 *   PRICE_RESPONSE_BYTES_MAX as Lambda counts a response, so the item is far under DynamoDB's 400 KB.
 * - `PRICE_SKU#<sha-256 of the sku in lower case>`: the claim of a sku (`price_id`), written and deleted in
 *   the transaction of the price that takes or frees it, on condition that nobody / the price holds it: one
 *   price per sku per book (compared without regard to case), whatever runs concurrently.
 * - `MODIFIER#<id>`: a price modifier.
 * - `MODIFIER_NAME#<sha-256 of the name>`: the claim of a modifier name (`modifier_id`), compared exactly.
 *
 * Every create is conditioned on the book's item (`STORE#<store>` / `PRICEBOOK#<id>`) existing, in the same
 * transaction: once a book's deletion committed, nothing more is written to its partition, and the deletion
 * then empties the partition (`deleteContents`).
 */
export interface PriceRecord {
  id: string;
  sku: string;
  currencies: Currencies;
  sales?: Record<string, Sale>;
  external_ref?: string;
  admin_attributes?: Record<string, string>;
  shopper_attributes?: Record<string, string>;
  created_at: string;
  updated_at: string;
}

export interface PriceModifierRecord {
  id: string;
  name: string;
  modifier_type: ModifierType;
  currencies: Currencies;
  external_ref?: string;
  created_at: string;
  updated_at: string;
}

export type Versioned<T> = T & { version: number };

/** Whether a book is there, and an entry of it as stored (undefined: none). */
export type InBook<T> = { book: boolean; entry: Versioned<T> | undefined };

export class PriceBookGoneError extends Error {
  override name = 'PriceBookGoneError';
}
export class PriceNotFoundError extends Error {
  override name = 'PriceNotFoundError';
}
export class PriceSkuTakenError extends Error {
  override name = 'PriceSkuTakenError';
}
export class ModifierNameTakenError extends Error {
  override name = 'ModifierNameTakenError';
}
/** Concurrent writes kept conflicting: nothing was written. */
export class PriceWriteConflictError extends Error {
  override name = 'PriceWriteConflictError';
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');
const PK = (storeId: string, pricebookId: string) => `PRICES#${storeId}#${pricebookId}`;

/** The two kinds of entry a book holds: prices (claimed by sku) and modifiers (claimed by name). */
export type EntryKind = 'price' | 'modifier';
const ENTRY_PREFIX: Record<EntryKind, string> = { price: 'PRICE#', modifier: 'MODIFIER#' };
const CLAIM_ATTRIBUTE: Record<EntryKind, string> = { price: 'price_id', modifier: 'modifier_id' };

export const priceKeys = {
  price: (storeId: string, pricebookId: string, id: string) => ({
    pk: PK(storeId, pricebookId),
    sk: `PRICE#${id}`,
  }),
  sku: (storeId: string, pricebookId: string, sku: string) => ({
    pk: PK(storeId, pricebookId),
    sk: `PRICE_SKU#${hash(sku.toLowerCase())}`,
  }),
  modifier: (storeId: string, pricebookId: string, id: string) => ({
    pk: PK(storeId, pricebookId),
    sk: `MODIFIER#${id}`,
  }),
  modifierName: (storeId: string, pricebookId: string, name: string) => ({
    pk: PK(storeId, pricebookId),
    sk: `MODIFIER_NAME#${hash(name)}`,
  }),
};

const entryKey = (kind: EntryKind, storeId: string, pricebookId: string, id: string) =>
  kind === 'price' ? priceKeys.price(storeId, pricebookId, id) : priceKeys.modifier(storeId, pricebookId, id);

/** The claim an entry holds: a price's sku (any case) or a modifier's name (exact). */
function claimKey(
  kind: EntryKind,
  storeId: string,
  pricebookId: string,
  entry: { sku?: string; name?: string },
) {
  return kind === 'price'
    ? priceKeys.sku(storeId, pricebookId, entry.sku as string)
    : priceKeys.modifierName(storeId, pricebookId, entry.name as string);
}

const TABLE = () => tableName('products');
const conflicts = (codes: string[]) => new PriceWriteConflictError(`conflicts: ${codes.join(', ')}`);
const keptChanging = () => new PriceWriteConflictError('the entry kept changing');
const failed = (code: string | undefined) => code === 'ConditionalCheckFailed';

type Items = Parameters<typeof transactAsCaller>[0];
type Entry = { id: string; sku?: string; name?: string; created_at: string; updated_at: string };

/** The items a new entry takes: itself (version 1) and its claim. */
const newEntryItems = (kind: EntryKind, storeId: string, pricebookId: string, entry: Entry) => [
  { ...entryKey(kind, storeId, pricebookId, entry.id), ...entry, version: 1 },
  { ...claimKey(kind, storeId, pricebookId, entry), [CLAIM_ATTRIBUTE[kind]]: entry.id },
];

/**
 * The items `createPrice` puts, without the conditions (the book's existence, the sku free): for loading a
 * book known to hold none of these skus in batches (the `delta` bench's million prices).
 */
export const newPriceItems = (storeId: string, pricebookId: string, price: PriceRecord) =>
  newEntryItems('price', storeId, pricebookId, price);

const entriesQuery = (kind: EntryKind, storeId: string, pricebookId: string): PagedQuery => ({
  TableName: TABLE(),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ExpressionAttributeValues: { ':pk': PK(storeId, pricebookId), ...skPrefix(ENTRY_PREFIX[kind]) },
  ConsistentRead: true,
});

const record = <T>(item: Record<string, unknown>): T => {
  const { version: _version, ...rest } = withoutKeys(item);
  return rest as T;
};

/** An entry as the API shows it: without the version its writes condition on. */
export function withoutVersion<T>(found: Versioned<T> | undefined): T | undefined {
  if (!found) return undefined;
  const { version: _version, ...rest } = found;
  return rest as T;
}

/** Every item of a Query, one DynamoDB page at a time (at most 1 MB held). */
async function* queryEach(query: PagedQuery): AsyncGenerator<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await getDocumentClient().send(
      new QueryCommand({ ...query, ExclusiveStartKey: startKey }),
    );
    for (const item of result.Items ?? []) yield item;
    startKey = result.LastEvaluatedKey;
  } while (startKey);
}

/** Creates, updates and deletes of one kind of entry, with its claim, conditioned on the book. */
const entries = {
  async get<T>(kind: EntryKind, storeId: string, pricebookId: string, id: string) {
    return getRecord<Versioned<T>>('products', entryKey(kind, storeId, pricebookId, id), true);
  },

  /** The book's existence and the entry (as `get` reads it), in one consistent BatchGetItem. */
  async getInBook<T>(kind: EntryKind, storeId: string, pricebookId: string, id: string): Promise<InBook<T>> {
    const bookKey = pricebookKeys.book(storeId, pricebookId);
    const key = entryKey(kind, storeId, pricebookId, id);
    const items = await batchGetItems('products', [bookKey, key], true);
    const found = (wanted: { pk: string; sk: string }) =>
      items.find((item) => item.pk === wanted.pk && item.sk === wanted.sk);
    const entry = found(key);
    return {
      book: found(bookKey) !== undefined,
      entry: entry === undefined ? undefined : (withoutKeys(entry) as unknown as Versioned<T>),
    };
  },

  async create(kind: EntryKind, storeId: string, pricebookId: string, entry: Entry, caller?: WriteCaller) {
    const codes = await transactRetrying(
      [
        {
          ConditionCheck: {
            TableName: TABLE(),
            Key: pricebookKeys.book(storeId, pricebookId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        ...newEntryItems(kind, storeId, pricebookId, entry).map((Item) => ({
          Put: { TableName: TABLE(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
        })),
      ],
      caller,
      conflicts,
    );
    if (codes === undefined) return;
    if (failed(codes[0])) throw new PriceBookGoneError();
    if (failed(codes[2])) throw kind === 'price' ? new PriceSkuTakenError() : new ModifierNameTakenError();
    throw new Error(`the ${kind} could not be created (${codes.join(', ')})`);
  },

  /** Applies `changes`, conditioned on the version read; moves the claim when the sku (any case) or name changes. */
  update<T extends Entry>(
    kind: EntryKind,
    storeId: string,
    pricebookId: string,
    id: string,
    changes: Partial<T>,
    updatedAt: string,
    caller?: WriteCaller,
    check?: (next: T) => void,
    firstRead?: Promise<Versioned<T> | undefined>,
  ): Promise<T> {
    const read = firstRoundRead(firstRead, () => entries.get<T>(kind, storeId, pricebookId, id));
    return rereadingWrites(async () => {
      const current = await read();
      if (!current) throw new PriceNotFoundError();
      const next = { ...current, ...changes, updated_at: updatedAt, version: current.version + 1 };
      check?.(record<T>(next));
      const items: Items = [
        {
          Put: {
            TableName: TABLE(),
            Item: { ...entryKey(kind, storeId, pricebookId, id), ...next },
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
      ];
      const from = claimKey(kind, storeId, pricebookId, current);
      const to = claimKey(kind, storeId, pricebookId, next);
      const moved = from.sk !== to.sk;
      if (moved) items.push(...movedClaim(to, from, CLAIM_ATTRIBUTE[kind], id));
      const codes = await transactRetrying(items, caller, conflicts);
      if (codes === undefined) return record<T>(next);
      // The entry changed since it was read: read it again before judging the claim, which a concurrent
      // update of this same entry may have taken already (then the sku is its own, not another's).
      if (failed(codes[0])) return false;
      if (moved && failed(codes[1])) {
        throw kind === 'price' ? new PriceSkuTakenError() : new ModifierNameTakenError();
      }
      return false;
    }, keptChanging);
  },

  delete(
    kind: EntryKind,
    storeId: string,
    pricebookId: string,
    id: string,
    caller?: WriteCaller,
    firstRead?: Promise<Versioned<Entry> | undefined>,
  ): Promise<void> {
    const read = firstRoundRead(firstRead, () => entries.get<Entry>(kind, storeId, pricebookId, id));
    return rereadingWrites(async () => {
      const current = await read();
      if (!current) throw new PriceNotFoundError();
      const codes = await transactRetrying(
        [
          {
            Delete: {
              TableName: TABLE(),
              Key: entryKey(kind, storeId, pricebookId, id),
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': current.version },
            },
          },
          {
            Delete: {
              TableName: TABLE(),
              Key: claimKey(kind, storeId, pricebookId, current),
              ConditionExpression: `${CLAIM_ATTRIBUTE[kind]} = :id`,
              ExpressionAttributeValues: { ':id': id },
            },
          },
        ],
        caller,
        conflicts,
      );
      return codes === undefined ? undefined : false;
    }, keptChanging);
  },

  async page<T>(
    kind: EntryKind,
    storeId: string,
    pricebookId: string,
    page: { limit: number; offset: number },
  ) {
    const query = entriesQuery(kind, storeId, pricebookId);
    const [items, total] = await Promise.all([queryPage(query, page), countItems(query)]);
    return { items: items.map((item) => record<T>(item)), total };
  },
};

/** Items a book's deletion removes per BatchWriteItem round (each call takes 25; four calls side by side). */
const DELETE_ROUND = 100;

export const priceRepository = {
  getPrice(storeId: string, pricebookId: string, id: string): Promise<PriceRecord | undefined> {
    return entries.get<PriceRecord>('price', storeId, pricebookId, id).then(withoutVersion);
  },

  /**
   * Whether the book is there, and a price of it as stored (its version with it: what updatePrice and
   * deletePrice take as their first read), in one consistent BatchGetItem.
   */
  readPriceInBook(storeId: string, pricebookId: string, id: string) {
    return entries.getInBook<PriceRecord>('price', storeId, pricebookId, id);
  },

  /** Creates a price and claims its sku in one transaction: PriceSkuTakenError, PriceBookGoneError. */
  createPrice(storeId: string, pricebookId: string, price: PriceRecord, caller?: WriteCaller): Promise<void> {
    return entries.create('price', storeId, pricebookId, price, caller);
  },

  updatePrice(
    storeId: string,
    pricebookId: string,
    id: string,
    changes: Partial<PriceRecord>,
    updatedAt: string,
    caller?: WriteCaller,
    check?: (next: PriceRecord) => void,
    firstRead?: Promise<Versioned<PriceRecord> | undefined>,
  ): Promise<PriceRecord> {
    return entries.update('price', storeId, pricebookId, id, changes, updatedAt, caller, check, firstRead);
  },

  deletePrice(
    storeId: string,
    pricebookId: string,
    id: string,
    caller?: WriteCaller,
    firstRead?: Promise<Versioned<PriceRecord> | undefined>,
  ): Promise<void> {
    return entries.delete('price', storeId, pricebookId, id, caller, firstRead);
  },

  /** A page of a book's prices in creation order, and how many it has (COUNT queries). */
  async pricePage(storeId: string, pricebookId: string, page: { limit: number; offset: number }) {
    const { items, total } = await entries.page<PriceRecord>('price', storeId, pricebookId, page);
    return { prices: items, total };
  },

  /** How many prices a book holds (COUNT queries: no price transferred). */
  countPrices(storeId: string, pricebookId: string): Promise<number> {
    return countItems(entriesQuery('price', storeId, pricebookId));
  },

  /** The prices of a book from position `offset` on, at most `limit`, in creation order (no total counted). */
  async pricesAt(
    storeId: string,
    pricebookId: string,
    page: { limit: number; offset: number },
  ): Promise<PriceRecord[]> {
    const items = await queryPage(entriesQuery('price', storeId, pricebookId), page);
    return items.map((item) => record<PriceRecord>(item));
  },

  /** Every price of a book, in creation order, one DynamoDB page (1 MB) at a time. */
  async *pricesOf(storeId: string, pricebookId: string): AsyncIterable<PriceRecord> {
    for await (const item of queryEach(entriesQuery('price', storeId, pricebookId)))
      yield record<PriceRecord>(item);
  },

  /**
   * The prices of these skus in a book, keyed by the sku as given (compared without regard to case; skus
   * with no price left out): the claims, then the prices they name, each read 100 keys a call.
   */
  async pricesBySku(storeId: string, pricebookId: string, skus: string[]): Promise<Map<string, PriceRecord>> {
    const claims = await batchGetItems(
      'products',
      [...new Map(skus.map((sku) => [priceKeys.sku(storeId, pricebookId, sku).sk, sku])).keys()].map(
        (sk) => ({
          pk: PK(storeId, pricebookId),
          sk,
        }),
      ),
      true,
    );
    const priceOfClaim = new Map(claims.map((claim) => [claim.sk, claim.price_id as string]));
    const prices = await batchGetItems(
      'products',
      [...new Set(priceOfClaim.values())].map((id) => priceKeys.price(storeId, pricebookId, id)),
      true,
    );
    const byId = new Map(prices.map((item) => [item.id as string, record<PriceRecord>(item)]));
    const found = new Map<string, PriceRecord>();
    for (const sku of skus) {
      const id = priceOfClaim.get(priceKeys.sku(storeId, pricebookId, sku).sk);
      const price = id === undefined ? undefined : byId.get(id);
      // A price whose sku changed between the two reads no longer answers for this sku.
      if (price && price.sku.toLowerCase() === sku.toLowerCase()) found.set(sku, price);
    }
    return found;
  },

  getModifier(storeId: string, pricebookId: string, id: string): Promise<PriceModifierRecord | undefined> {
    return entries.get<PriceModifierRecord>('modifier', storeId, pricebookId, id).then(withoutVersion);
  },

  /** Whether the book is there, and a modifier of it as stored (readPriceInBook's, for modifiers). */
  readModifierInBook(storeId: string, pricebookId: string, id: string) {
    return entries.getInBook<PriceModifierRecord>('modifier', storeId, pricebookId, id);
  },

  /** Creates a modifier and claims its name in one transaction: ModifierNameTakenError, PriceBookGoneError. */
  createModifier(
    storeId: string,
    pricebookId: string,
    modifier: PriceModifierRecord,
    caller?: WriteCaller,
  ): Promise<void> {
    return entries.create('modifier', storeId, pricebookId, modifier, caller);
  },

  updateModifier(
    storeId: string,
    pricebookId: string,
    id: string,
    changes: Partial<PriceModifierRecord>,
    updatedAt: string,
    caller?: WriteCaller,
    check?: (next: PriceModifierRecord) => void,
    firstRead?: Promise<Versioned<PriceModifierRecord> | undefined>,
  ): Promise<PriceModifierRecord> {
    return entries.update('modifier', storeId, pricebookId, id, changes, updatedAt, caller, check, firstRead);
  },

  deleteModifier(
    storeId: string,
    pricebookId: string,
    id: string,
    caller?: WriteCaller,
    firstRead?: Promise<Versioned<PriceModifierRecord> | undefined>,
  ): Promise<void> {
    return entries.delete('modifier', storeId, pricebookId, id, caller, firstRead);
  },

  async modifierPage(storeId: string, pricebookId: string, page: { limit: number; offset: number }) {
    const { items, total } = await entries.page<PriceModifierRecord>('modifier', storeId, pricebookId, page);
    return { modifiers: items, total };
  },

  /** Every modifier of a book, in creation order, one DynamoDB page (1 MB) at a time. */
  async *modifiersOf(storeId: string, pricebookId: string): AsyncIterable<PriceModifierRecord> {
    for await (const item of queryEach(entriesQuery('modifier', storeId, pricebookId))) {
      yield record<PriceModifierRecord>(item);
    }
  },

  /**
   * Deletes everything a deleted book's partition holds (prices, modifiers, their claims), after the book's
   * own deletion committed (so nothing more is written to it): keys read 100 at a time (key attributes
   * only), each round deleted with BatchWriteItem (25 a call) before the next is read. Safe to run again.
   */
  async deleteContents(storeId: string, pricebookId: string): Promise<number> {
    let deleted = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await getDocumentClient().send(
        new QueryCommand({
          TableName: TABLE(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': PK(storeId, pricebookId) },
          ProjectionExpression: 'pk, sk',
          ConsistentRead: true,
          Limit: DELETE_ROUND,
          ExclusiveStartKey: startKey,
        }),
      );
      const keys = (result.Items ?? []) as { pk: string; sk: string }[];
      const batches: { pk: string; sk: string }[][] = [];
      for (let start = 0; start < keys.length; start += 25) batches.push(keys.slice(start, start + 25));
      await Promise.all(
        batches.map((batch) =>
          batchWriteItems(
            'products',
            batch.map((Key) => ({ DeleteRequest: { Key } })),
          ),
        ),
      );
      deleted += keys.length;
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    return deleted;
  },
};
