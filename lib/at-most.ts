/**
 * Bounded concurrency: how many requests (or other works) run at once, for work that must not open a
 * connection an item nor wait on each item in turn.
 */

/**
 * Runs the works given to it at most `limit` at a time, in the order given: a work that fails fails its own
 * caller only.
 */
export function atMost(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    // A work that waits is handed its slot by the one that ends (no newcomer can take it meanwhile).
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/**
 * `work` on every item, at most `limit` at once, the results in the items' order. The first failure stops
 * new work and is thrown once the works already running have ended (none is left running behind the caller).
 */
export async function mapAtMost<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await work(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(
    Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker),
  );
  const rejected = settled.find((result) => result.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}

/** `work` on every item, at most `limit` at once; the first failure stops new work and is thrown (mapAtMost). */
export async function eachAtMost<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  await mapAtMost(items, limit, work);
}
