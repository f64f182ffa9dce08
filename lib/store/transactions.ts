/**
 * The per-item cancellation codes of a cancelled transaction (`ConditionalCheckFailed`,
 * `TransactionConflict`, `None`, ...), or undefined when the error is not a cancellation.
 */
export function cancellationCodes(error: unknown): string[] | undefined {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] } | undefined;
  if (e?.name !== 'TransactionCanceledException') return undefined;
  return (e.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}
