import { createHash } from 'node:crypto';
import type { transactAsCaller, WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { GetCommand } from './dynamodb';
import { getRecord, queryPage, withoutKeys } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';
import { movedClaim, rereadingWrites, transactRetrying } from './transact-retrying';

/**
 * A store's price books (`/pcm/pricebooks`, docs/price-books.md), in the products table, in the store's
 * partition:
 *
 * - `STORE#<store>` / `PRICEBOOK#<id>`: a price book (at most about 17 KB: name, description and
 *   external_ref are bounded). Ids are UUIDv7, so the sort key orders them by creation, the list's order;
 *   `version` grows with every write, the condition of the next.
 * - `STORE#<store>` / `PRICEBOOK_NAME#<sha-256 of the name>`: the claim of a name (`pricebook_id`), written
 *   and deleted in the transaction of the book that takes or frees it, so two books of one name never both
 *   commit. The name is hashed: a 255-character name could pass DynamoDB's 1,024-byte sort key.
 * - `STORE#<store>` / `PRICEBOOK_COUNT`: how many books the store has (`pricebook_count`, the list's total),
 *   moved in the transaction of each creation and deletion and conditioned on MAX_PRICEBOOKS_PER_STORE.
 *
 * A page of the list is one query of `sk` under the prefix `PRICEBOOK#` (key-prefix.ts) (offsets skipped with COUNT queries)
 * beside one read of the counter. No other item of the table has a sort key starting `PRICEBOOK`.
 */
export interface PricebookRecord {
  id: string;
  name: string;
  description?: string;
  external_ref?: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/** Price books a store may have (409 past it). */
export const MAX_PRICEBOOKS_PER_STORE = 1000;

export class PricebookNotFoundError extends Error {
  override name = 'PricebookNotFoundError';
}
export class PricebookNameTakenError extends Error {
  override name = 'PricebookNameTakenError';
}
export class PricebookLimitError extends Error {
  override name = 'PricebookLimitError';
}
/** Concurrent writes kept conflicting: nothing was written. */
export class PricebookWriteConflictError extends Error {
  override name = 'PricebookWriteConflictError';
}

const PK = (storeId: string) => `STORE#${storeId}`;
const BOOK_PREFIX = 'PRICEBOOK#';
export const pricebookKeys = {
  book: (storeId: string, id: string) => ({ pk: PK(storeId), sk: `${BOOK_PREFIX}${id}` }),
  name: (storeId: string, name: string) => ({
    pk: PK(storeId),
    sk: `PRICEBOOK_NAME#${createHash('sha256').update(name).digest('hex')}`,
  }),
  counter: (storeId: string) => ({ pk: PK(storeId), sk: 'PRICEBOOK_COUNT' }),
};

const TABLE = () => tableName('products');
const conflicts = (codes: string[]) => new PricebookWriteConflictError(`conflicts: ${codes.join(', ')}`);
const keptChanging = () => new PricebookWriteConflictError('the price book kept changing');

type Items = Parameters<typeof transactAsCaller>[0];

export const pricebookRepository = {
  get(storeId: string, id: string): Promise<PricebookRecord | undefined> {
    return getRecord<PricebookRecord>('products', pricebookKeys.book(storeId, id), true);
  },

  /** How many price books the store has. */
  async count(storeId: string): Promise<number> {
    const found = await getDocumentClient().send(
      new GetCommand({ TableName: TABLE(), Key: pricebookKeys.counter(storeId), ConsistentRead: true }),
    );
    return (found.Item?.pricebook_count as number | undefined) ?? 0;
  },

  /** A page of the store's price books in creation order, and how many there are. */
  async page(
    storeId: string,
    page: { limit: number; offset: number },
  ): Promise<{ pricebooks: PricebookRecord[]; total: number }> {
    const query = {
      TableName: TABLE(),
      KeyConditionExpression: SK_PREFIX_CONDITION,
      ExpressionAttributeValues: { ':pk': PK(storeId), ...skPrefix(BOOK_PREFIX) },
      ConsistentRead: true,
    };
    const [items, total] = await Promise.all([queryPage(query, page), this.count(storeId)]);
    return { pricebooks: items.map((item) => withoutKeys(item) as unknown as PricebookRecord), total };
  },

  /** Creates a book, claims its name and counts it, in one transaction. */
  async create(storeId: string, book: Omit<PricebookRecord, 'version'>, caller?: WriteCaller): Promise<void> {
    const codes = await transactRetrying(
      [
        {
          Put: {
            TableName: TABLE(),
            Item: { ...pricebookKeys.book(storeId, book.id), ...book, version: 1 },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: TABLE(),
            Item: { ...pricebookKeys.name(storeId, book.name), pricebook_id: book.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: TABLE(),
            Key: pricebookKeys.counter(storeId),
            UpdateExpression: 'ADD pricebook_count :one',
            ConditionExpression: 'attribute_not_exists(pricebook_count) OR pricebook_count < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': MAX_PRICEBOOKS_PER_STORE },
          },
        },
      ],
      caller,
      conflicts,
    );
    if (codes === undefined) return;
    if (codes[1] === 'ConditionalCheckFailed') throw new PricebookNameTakenError();
    if (codes[2] === 'ConditionalCheckFailed') throw new PricebookLimitError();
    throw new Error(`the price book could not be created (${codes.join(', ')})`);
  },

  /**
   * Applies `changes` (the attributes sent) to a book, conditioned on the version read, moving the name's
   * claim when the name changes; re-read and re-applied while another write moved the version.
   */
  update(
    storeId: string,
    id: string,
    changes: Partial<Pick<PricebookRecord, 'name' | 'description' | 'external_ref'>>,
    updatedAt: string,
    caller?: WriteCaller,
  ): Promise<PricebookRecord> {
    return rereadingWrites(async () => {
      const current = await this.get(storeId, id);
      if (!current) throw new PricebookNotFoundError();
      const next: PricebookRecord = {
        ...current,
        ...changes,
        updated_at: updatedAt,
        version: current.version + 1,
      };
      const items: Items = [
        {
          Put: {
            TableName: TABLE(),
            Item: { ...pricebookKeys.book(storeId, id), ...next },
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
      ];
      const renamed = next.name !== current.name;
      if (renamed) {
        items.push(
          ...movedClaim(
            pricebookKeys.name(storeId, next.name),
            pricebookKeys.name(storeId, current.name),
            'pricebook_id',
            id,
          ),
        );
      }
      const codes = await transactRetrying(items, caller, conflicts);
      if (codes === undefined) return next;
      // The book changed or went since it was read: read it again before judging the name's claim (a 404
      // once it is gone, whoever holds the name; a concurrent rename of this same book may hold it).
      if (codes[0] === 'ConditionalCheckFailed') return false;
      if (renamed && codes[1] === 'ConditionalCheckFailed') throw new PricebookNameTakenError();
      return false;
    }, keptChanging);
  },

  /** Deletes a book, frees its name and uncounts it, in one transaction. */
  delete(storeId: string, id: string, caller?: WriteCaller): Promise<void> {
    return rereadingWrites(async () => {
      const current = await this.get(storeId, id);
      if (!current) throw new PricebookNotFoundError();
      const codes = await transactRetrying(
        [
          {
            Delete: {
              TableName: TABLE(),
              Key: pricebookKeys.book(storeId, id),
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': current.version },
            },
          },
          {
            Delete: {
              TableName: TABLE(),
              Key: pricebookKeys.name(storeId, current.name),
              ConditionExpression: 'pricebook_id = :id',
              ExpressionAttributeValues: { ':id': id },
            },
          },
          {
            Update: {
              TableName: TABLE(),
              Key: pricebookKeys.counter(storeId),
              UpdateExpression: 'ADD pricebook_count :minus',
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        ],
        caller,
        conflicts,
      );
      return codes === undefined ? undefined : false;
    }, keptChanging);
  },
};
