import type { Partition } from './history';
import { type Anomaly, explain } from './report';
import { checkRevocation, type KeyDeletion, type RevocationViolation, type TokenWrite } from './revocation';
import { type CheckOptions, checkPartition } from './wgl';

export interface HistoryCheck {
  partitions: number;
  operations: number;
  /** Partitions without a linearization, each reduced and explained. */
  anomalies: Anomaly[];
  revocations: RevocationViolation[];
  /** Partitions the search gave up on (too many configurations). */
  unknown: string[];
  /** The largest partition searched: its object, operations and configurations explored. */
  largest: { object: string; operations: number; explored: number };
  ms: number;
}

/** Checks every partition and the token rule; explains what fails. */
export function checkHistory(
  partitions: Partition[],
  tokens: { writes: TokenWrite[]; deletions: KeyDeletion[] },
  options: CheckOptions = {},
): HistoryCheck {
  const started = performance.now();
  const anomalies: Anomaly[] = [];
  const unknown: string[] = [];
  let largest = { object: '', operations: 0, explored: 0 };
  let operations = 0;
  for (const partition of partitions) {
    const result = checkPartition(partition, options);
    operations += result.operations;
    if (result.operations > largest.operations)
      largest = { object: result.object, operations: result.operations, explored: result.explored };
    if (result.verdict === 'violation') anomalies.push(explain(partition, result));
    if (result.verdict === 'unknown') unknown.push(partition.object);
  }
  return {
    partitions: partitions.length,
    operations,
    anomalies,
    revocations: checkRevocation(tokens.writes, tokens.deletions),
    unknown,
    largest,
    ms: performance.now() - started,
  };
}
