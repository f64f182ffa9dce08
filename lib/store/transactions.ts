/**
 * The per-item cancellation codes of a cancelled transaction (`ConditionalCheckFailed`,
 * `TransactionConflict`, `None`, ...), or undefined when the error is not a cancellation.
 */
export function cancellationCodes(error: unknown): string[] | undefined {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] } | undefined;
  if (e?.name !== 'TransactionCanceledException') return undefined;
  return (e.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}

/** Cancellation codes of items refused for capacity: the transaction applied nothing, retry later (503). */
export const THROTTLED_CANCELLATION_CODES: ReadonlySet<string> = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

/** True when a transaction was cancelled because DynamoDB throttled one of its items. */
export function throttledCancellation(codes: readonly string[]): boolean {
  return codes.some((code) => THROTTLED_CANCELLATION_CODES.has(code));
}
