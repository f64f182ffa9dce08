import { transactAsCaller as transact, type WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { GetCommand, type TransactWriteCommand } from './dynamodb';
import { backoff, batchGetItems, getRecord, queryAll, queryPage, withoutKeys } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';

/**
 * The files of the platform's files API (`/v2/files`, docs/files.md), in the products table beside the
 * catalogs:
 *
 * - `STORE#<store>` / `FILE#<file>`: a file: where it is hosted (`file_location`), the name and media type
 *   read from that URL, and when it was recorded. Ids are UUIDv7, so the sort key orders a store's files
 *   by creation, the list's order.
 * - `STORE#<store>` / `FILE_COUNT`: how many files the store has (`file_count`): the list's total, moved in
 *   the same transaction as each creation and deletion, and the cap's check (MAX_FILES_PER_STORE).
 *
 * A file's `link_count` is how many times products name it (a product's `main_image`, and each product
 * whose `files` list it): product-repository.ts moves it in the same transaction as the product that
 * starts or stops naming the file (`linkUpdates`, each conditioned on the file existing), and a delete
 * applies only while it is 0 or absent. So no product can ever name a deleted file, whatever runs
 * concurrently: a link and a delete of one file are serialized on the file's item.
 *
 * No other item of the table has a sort key starting `FILE` (lib/store/catalog-repository.ts and
 * lib/store/pcm-repository.ts list theirs), so the list's `sk` under the prefix `FILE#` (key-prefix.ts) reads files only.
 */
export interface FileRecord {
  id: string;
  file_location: string;
  file_name: string;
  mime_type: string;
  created_at: string;
  /** How many times products name the file (absent: never named). */
  link_count?: number;
}

/**
 * Files a store may hold (409 past it): bounds what a filtered list reads (it reads every file of the
 * store, about 300 bytes each).
 */
export const MAX_FILES_PER_STORE = 10_000;

export class FileLimitError extends Error {
  override name = 'FileLimitError';
  constructor() {
    super(
      `the store already has ${MAX_FILES_PER_STORE} files, the most it may hold: delete one before creating another`,
    );
  }
}

export class FileNotFoundError extends Error {
  override name = 'FileNotFoundError';
  constructor(readonly fileId: string) {
    super(`file ${fileId} not found`);
  }
}

/** Products still name the file (`links` times): it cannot be deleted. */
export class FileLinkedError extends Error {
  override name = 'FileLinkedError';
  constructor(readonly links: number) {
    super(`the file is named by products ${links} times`);
  }
}

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;

/** Concurrent transactions kept holding the store's file counter (or the caller's items): nothing written. */
export class FileWriteConflictError extends Error {
  override name = 'FileWriteConflictError';
}

const WRITE_ATTEMPTS = 8;

/**
 * Runs a transaction as the caller, again (with backoff) while it is cancelled for a conflict only: every
 * creation and deletion of a store's files moves its one counter item, so concurrent ones conflict.
 * Undefined when it applied; the codes of another refusal; FileWriteConflictError once the attempts are spent.
 */
async function transactRetrying(
  items: Parameters<typeof transact>[0],
  caller: WriteCaller | undefined,
): Promise<string[] | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    const codes = await transact(items, caller);
    if (codes === undefined) return undefined;
    const conflictOnly = codes.every((code) => code === 'None' || code === 'TransactionConflict');
    if (!conflictOnly) return codes;
    if (attempt >= WRITE_ATTEMPTS) throw new FileWriteConflictError(`conflicts: ${codes.join(', ')}`);
    await backoff(attempt);
  }
}

const FILE_PREFIX = 'FILE#';
export const fileKeys = {
  file: (storeId: string, fileId: string) => ({ pk: `STORE#${storeId}`, sk: `${FILE_PREFIX}${fileId}` }),
  counter: (storeId: string) => ({ pk: `STORE#${storeId}`, sk: 'FILE_COUNT' }),
};

const filesQuery = (storeId: string) => ({
  TableName: tableName('products'),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ...skPrefix(FILE_PREFIX) },
  ConsistentRead: true,
});

export const fileRepository = {
  /**
   * Records a new file and counts it, in one transaction: FileLimitError when the store holds
   * MAX_FILES_PER_STORE already. The counter item is created by the store's first file. Conflicts are
   * retried (FileWriteConflictError once they never stop).
   */
  async create(storeId: string, file: FileRecord, caller?: WriteCaller): Promise<void> {
    const codes = await transactRetrying(
      [
        {
          Put: {
            TableName: tableName('products'),
            Item: { ...fileKeys.file(storeId, file.id), ...file },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: tableName('products'),
            Key: fileKeys.counter(storeId),
            UpdateExpression: 'ADD file_count :one',
            ConditionExpression: 'attribute_not_exists(file_count) OR file_count < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': MAX_FILES_PER_STORE },
          },
        },
      ],
      caller,
    );
    if (codes === undefined) return;
    if (codes[1] === 'ConditionalCheckFailed') throw new FileLimitError();
    throw new Error(`the file could not be recorded (${codes.join(', ')})`);
  },

  /**
   * Deletes a file and uncounts it, in one transaction that applies only while no product names the file:
   * FileNotFoundError when the store has no such file, FileLinkedError while products name it.
   */
  async delete(storeId: string, fileId: string, caller?: WriteCaller): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const codes = await transactRetrying(
        [
          {
            Delete: {
              TableName: tableName('products'),
              Key: fileKeys.file(storeId, fileId),
              ConditionExpression:
                'attribute_exists(pk) AND (attribute_not_exists(link_count) OR link_count <= :zero)',
              ExpressionAttributeValues: { ':zero': 0 },
            },
          },
          {
            Update: {
              TableName: tableName('products'),
              Key: fileKeys.counter(storeId),
              UpdateExpression: 'ADD file_count :minus',
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        ],
        caller,
      );
      if (codes === undefined) return;
      if (codes[0] !== 'ConditionalCheckFailed') {
        throw new Error(`the file could not be deleted (${codes.join(', ')})`);
      }
      const found = await getRecord<FileRecord>('products', fileKeys.file(storeId, fileId), true);
      if (!found) throw new FileNotFoundError(fileId);
      if ((found.link_count ?? 0) > 0) throw new FileLinkedError(found.link_count ?? 0);
      // Unlinked since the transaction read it: try again.
      if (attempt >= WRITE_ATTEMPTS) throw new FileWriteConflictError('the file kept changing');
      await backoff(attempt);
    }
  },

  /**
   * The transaction items that move the link counts of files by `deltas` (file id to how many more, or
   * fewer, times products name it), each conditioned on the file existing: a product write puts them beside
   * its own item, and a failed condition at an item's index means that file does not exist (any more).
   */
  linkUpdates(storeId: string, deltas: ReadonlyMap<string, number>): TransactItems {
    return [...deltas].map(([fileId, delta]) => ({
      Update: {
        TableName: tableName('products'),
        Key: fileKeys.file(storeId, fileId),
        UpdateExpression: 'ADD link_count :delta',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':delta': delta },
      },
    }));
  },

  get(storeId: string, fileId: string): Promise<FileRecord | undefined> {
    return getRecord<FileRecord>('products', fileKeys.file(storeId, fileId), true);
  },

  /** How many files the store has. */
  async count(storeId: string): Promise<number> {
    const found = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('products'),
        Key: fileKeys.counter(storeId),
        ConsistentRead: true,
      }),
    );
    return (found.Item?.file_count as number | undefined) ?? 0;
  },

  /** A page of the store's files in creation order, and how many there are. */
  async page(
    storeId: string,
    page: { limit: number; offset: number },
  ): Promise<{ files: FileRecord[]; total: number }> {
    const [items, total] = await Promise.all([queryPage(filesQuery(storeId), page), this.count(storeId)]);
    return { files: items.map((item) => withoutKeys(item) as unknown as FileRecord), total };
  },

  /** Every file of the store, in creation order (at most MAX_FILES_PER_STORE). */
  async all(storeId: string): Promise<FileRecord[]> {
    const items = await queryAll(filesQuery(storeId));
    return items.map((item) => withoutKeys(item) as unknown as FileRecord);
  },

  /** The files of these ids the store has, in creation order. */
  async byIds(storeId: string, fileIds: string[]): Promise<FileRecord[]> {
    const keys = [...new Set(fileIds)].map((fileId) => fileKeys.file(storeId, fileId));
    const items = await batchGetItems('products', keys, true);
    return items
      .sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0))
      .map((item) => withoutKeys(item) as unknown as FileRecord);
  },
};
