import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { ServiceUnavailableError } from '../http/errors';
import { getDocumentClient } from './client';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
} from './dynamodb';
import { type TableRole, tableName } from './schema';

type Key = { pk: string; sk: string };

const BATCH_GET_MAX = 100;
const MAX_BATCH_ATTEMPTS = 10;

/** Exponential backoff with full jitter: up to 25 ms, 50 ms, ... capped at 2 s. */
export function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(2000, 25 * 2 ** attempt);
  return new Promise((done) => setTimeout(done, Math.random() * ceiling));
}

/**
 * Runs `count` copies of `worker` (each taking work until none is left) and waits for all of them; the
 * first to fail sets `stop.failed`, so the others take no more work. Rejects only once every worker has
 * settled, so nothing runs after it returns (a caller cleaning up after a failure would miss late writes).
 */
export async function settleWorkers(
  count: number,
  worker: (stop: { failed: boolean }) => Promise<void>,
): Promise<void> {
  const stop = { failed: false };
  await settleAll(
    Array.from({ length: Math.max(1, count) }, () =>
      worker(stop).catch((error: unknown) => {
        stop.failed = true;
        throw error;
      }),
    ),
  );
}

/**
 * `work`, started now and awaited later: its rejection is marked handled until then (awaiting it still
 * throws), so a failure before the await is not an unhandled rejection that stops the process.
 */
export function startedEarly<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

/** An iterable already asked for its first item (`askedFirst`), and how to let go of it unread. */
export type AskedFirst<T> = AsyncIterable<T> & { close: () => Promise<void> };

/**
 * `items` with its first item asked for now (a paged Query's first page, an object's first bytes: the
 * request is sent), for a reader that will iterate it soon, once. A failure of that first ask is thrown
 * where the reader gets to it, never unhandled; the memory held meanwhile is that first item (an object's
 * further bytes wait in its connection). `close` lets go of it, read or not: every path that does not
 * read it to its end must (a reader that stops early closes it itself).
 */
export function askedFirst<T>(items: AsyncIterable<T>): AskedFirst<T> {
  const iterator = items[Symbol.asyncIterator]();
  const first = startedEarly(iterator.next());
  let finished = false;
  const close = async () => {
    if (finished) return;
    finished = true;
    await iterator.return?.(undefined).catch(() => undefined);
  };
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for (let step = await first; !step.done; step = await iterator.next()) yield step.value;
        finished = true;
      } finally {
        await close();
      }
    },
    close,
  };
}

/**
 * Runs `use` with `items` asked ahead (see askedFirst), or with nothing when there are no items, and closes
 * the read whatever `use` did with it: read to the end, left part-way, or not opened at all.
 */
export async function withAskedFirst<T, R>(
  items: AsyncIterable<T> | undefined,
  use: (read: AskedFirst<T> | undefined) => Promise<R>,
): Promise<R> {
  const read = items && askedFirst(items);
  try {
    return await use(read);
  } finally {
    await read?.close();
  }
}

/**
 * Waits for every piece of work and rejects with the first failure only once all have settled: a Lambda
 * freezes what is still in flight when its handler answers, and a retry must not race the work it repeats.
 */
export async function settleAll(work: readonly Promise<unknown>[]): Promise<void> {
  const rejected = (await Promise.allSettled(work)).find((result) => result.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/**
 * What `read` (something under a parent: a page of its prices, errors or logs) answers, once `parent` (the
 * parent's read, which throws its 404) has settled as well: the two go out at once, and the parent's failure
 * comes first (a missing parent's page is read for nothing, and is empty).
 */
export async function besideParent<T>(parent: Promise<unknown>, read: Promise<T>): Promise<T> {
  await settleAll([parent, read]);
  return read;
}

/**
 * BatchGetItem for any number of keys of one table: 100 per call in parallel, unprocessed keys retried
 * with backoff (503 when they never go through). Items come back with their keys, in no particular order.
 */
export async function batchGetItems(
  role: TableRole,
  keys: Key[],
  consistent: boolean,
  onCapacity?: (consumed: ConsumedCapacity[] | undefined) => void,
): Promise<(Record<string, unknown> & Key)[]> {
  const table = tableName(role);
  const found: (Record<string, unknown> & Key)[] = [];
  const batches: Key[][] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_MAX) {
    batches.push(keys.slice(start, start + BATCH_GET_MAX));
  }
  await Promise.all(
    batches.map(async (batch) => {
      let pending: Key[] = batch;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt >= MAX_BATCH_ATTEMPTS) throw new ServiceUnavailableError();
        if (attempt > 0) await backoff(attempt);
        const result: BatchGetCommandOutput = await getDocumentClient().send(
          new BatchGetCommand({
            RequestItems: { [table]: { Keys: pending, ConsistentRead: consistent } },
            ...(onCapacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
          }),
        );
        onCapacity?.(result.ConsumedCapacity);
        for (const item of result.Responses?.[table] ?? []) found.push(item as Record<string, unknown> & Key);
        pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Key[];
      }
    }),
  );
  return found;
}

/** Writes or deletes any number of items of one table, 25 a call, retrying what DynamoDB left unprocessed. */
export async function batchWriteItems(
  role: TableRole,
  requests: NonNullable<BatchWriteCommand['input']['RequestItems']>[string],
): Promise<void> {
  const table = tableName(role);
  for (let start = 0; start < requests.length; start += 25) {
    let pending = requests.slice(start, start + 25);
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 0) await backoff(attempt);
      const result = await getDocumentClient().send(
        new BatchWriteCommand({ RequestItems: { [table]: pending } }),
      );
      pending = result.UnprocessedItems?.[table] ?? [];
    }
  }
}

/** Strips the table's key attributes from an item. */
export function withoutKeys<T extends Record<string, unknown>>(item: T): Omit<T, 'pk' | 'sk'> {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest;
}

/** One item by key, without its key attributes, or undefined when it does not exist. */
export async function getRecord<T>(
  role: TableRole,
  key: { pk: string; sk: string },
  consistent: boolean,
): Promise<T | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(role), Key: key, ConsistentRead: consistent }),
  );
  return result.Item ? (withoutKeys(result.Item) as T) : undefined;
}

/** A Query's input without its paging (`ExclusiveStartKey`, `Limit`, `Select`). */
export type PagedQuery = Omit<
  ConstructorParameters<typeof QueryCommand>[0],
  'ExclusiveStartKey' | 'Limit' | 'Select'
>;

/** Every item a Query matches, one request per 1 MB. */
export async function queryAll(query: PagedQuery): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await getDocumentClient().send(
      new QueryCommand({ ...query, ExclusiveStartKey: startKey }),
    );
    for (const item of result.Items ?? []) items.push(item);
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** How many items a Query matches, counted with COUNT queries (no items transferred). */
export async function countItems(query: PagedQuery): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await getDocumentClient().send(
      new QueryCommand({ ...query, Select: 'COUNT', ExclusiveStartKey: startKey }),
    );
    count += result.Count ?? 0;
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** Largest page DynamoDB is asked for while skipping: bounds each response (1 MiB applies too). */
const SKIP_BATCH = 1000;

/**
 * The items of a Query from position `offset` on, at most `limit`, in sort-key order. The offset is skipped
 * with COUNT queries: no items transferred, a cost that grows with the offset, not with what follows.
 */
export async function queryPage(
  query: PagedQuery,
  page: { limit: number; offset: number },
): Promise<Record<string, unknown>[]> {
  const client = getDocumentClient();
  let startKey: Record<string, unknown> | undefined;
  let skipped = 0;
  while (skipped < page.offset) {
    // COUNT returns no items, only how many it passed and where it stopped: the cheapest way to skip.
    const result = await client.send(
      new QueryCommand({
        ...query,
        Select: 'COUNT',
        Limit: Math.min(SKIP_BATCH, page.offset - skipped),
        ExclusiveStartKey: startKey,
      }),
    );
    skipped += result.Count ?? 0;
    // No LastEvaluatedKey: the query reached the end, so nothing is left to show.
    if (!result.LastEvaluatedKey) return [];
    startKey = result.LastEvaluatedKey;
  }
  const items: Record<string, unknown>[] = [];
  do {
    const result = await client.send(
      new QueryCommand({ ...query, Limit: page.limit - items.length, ExclusiveStartKey: startKey }),
    );
    for (const item of result.Items ?? []) items.push(item);
    startKey = result.LastEvaluatedKey;
  } while (startKey && items.length < page.limit);
  return items;
}
