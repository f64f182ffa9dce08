/** What a limiter call resolves to when its deadline passed first. */
export const DEADLINE_PASSED = Symbol('deadline-passed');

/**
 * `work`, or DEADLINE_PASSED once `ms` have passed without it settling (the work goes on; its result is
 * simply not waited for). The limiter's DynamoDB calls run under it, so a stalled limits table costs a
 * request at most `ms`, never the client's retries.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | typeof DEADLINE_PASSED> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof DEADLINE_PASSED>((resolve) => {
    timer = setTimeout(() => resolve(DEADLINE_PASSED), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
