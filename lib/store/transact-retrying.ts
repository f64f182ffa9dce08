import { transactAsCaller, type WriteCaller } from './caller-check';
import { backoff } from './items';
import { tableName } from './schema';

const WRITE_ATTEMPTS = 8;

/**
 * Runs a transaction as the caller, again (with backoff) while it is cancelled for conflicts only (writes
 * that move one shared item, a store's counter, conflict when concurrent). Undefined when it applied; the
 * cancellation codes of another refusal; `exhausted()` thrown once WRITE_ATTEMPTS are spent.
 */
export async function transactRetrying(
  items: Parameters<typeof transactAsCaller>[0],
  caller: WriteCaller | undefined,
  exhausted: (codes: string[]) => Error,
): Promise<string[] | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    const codes = await transactAsCaller(items, caller);
    if (codes === undefined) return undefined;
    if (!codes.every((code) => code === 'None' || code === 'TransactionConflict')) return codes;
    if (attempt >= WRITE_ATTEMPTS) throw exhausted(codes);
    await backoff(attempt);
  }
}

/**
 * The read each round of a write read again (rereadingWrites, or a service's own rounds) starts from: the
 * first round's is `first`, a read the caller has made already (beside another, to save a round trip), when
 * it made one; every later round reads afresh, since what the last round read has changed.
 */
export function firstRoundRead<T>(
  first: Promise<T> | Exclude<T, undefined> | undefined,
  fresh: () => Promise<T>,
): () => Promise<T> {
  let handed = first;
  return () => {
    const read = handed === undefined ? fresh() : Promise.resolve(handed);
    handed = undefined;
    return read;
  };
}

/** Runs `write` (which reads what it changes, then writes conditioned on it) again while it returns false. */
export async function rereadingWrites<T>(
  write: () => Promise<T | false>,
  exhausted: () => Error,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const done = await write();
    if (done !== false) return done;
    if (attempt >= WRITE_ATTEMPTS) throw exhausted();
    await backoff(attempt);
  }
}

/**
 * The two transaction items that move a claim (an item whose existence reserves a unique value) from
 * `from` to `to` for `id`: the new one only if nobody holds it, the old one only if `id` still does.
 */
export function movedClaim(
  to: { pk: string; sk: string },
  from: { pk: string; sk: string },
  attribute: string,
  id: string,
): Parameters<typeof transactAsCaller>[0] {
  return [
    {
      Put: {
        TableName: tableName('products'),
        Item: { ...to, [attribute]: id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Delete: {
        TableName: tableName('products'),
        Key: from,
        ConditionExpression: `${attribute} = :id`,
        ExpressionAttributeValues: { ':id': id },
      },
    },
  ];
}
