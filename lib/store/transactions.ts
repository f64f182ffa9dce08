import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/**
 * The per-item cancellation codes of a cancelled transaction (`ConditionalCheckFailed`,
 * `TransactionConflict`, `None`, ...), or undefined when the error is not a cancellation.
 */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (
    !(error instanceof TransactionCanceledException) &&
    (error as Error | undefined)?.name !== 'TransactionCanceledException'
  ) {
    return undefined;
  }
  const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
}
