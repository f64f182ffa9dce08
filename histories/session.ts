import { checkHistory } from './checker/index';
import { describeRevocation, reportHtml } from './checker/report';
import { revokedTokenWrites } from './checker/revocation';
import { type DriveOptions, driveHistory } from './driver';

/** One run: drive the operations, check the history, and the figures and report. */
export interface HistoriesReport {
  seed: number;
  faults: boolean;
  clients: number;
  operations: number;
  indeterminate: number;
  partitions: number;
  anomalies: number;
  revocations: number;
  /** Writes sent with a token of a key already deleted (each must be refused). */
  revoked_token_writes: number;
  /** Partitions the search gave up on. */
  undecided: number;
  /** Operations invoked by the time the run had failed (the earliest anomaly's caughtAt); null when none. */
  caught_after: number | null;
  largest_partition: { object: string; operations: number; explored: number };
  checker_ms: number;
  run_ms: number;
  conflicts: { transactions: number; single_writes: number };
  faults_injected: number;
  by_kind: Record<string, number>;
  failed: boolean;
  /** The report: one line per fact, each anomaly with its minimal failing sub-history. */
  text: string[];
  html: string;
}

export async function runHistories(options: DriveOptions): Promise<HistoriesReport> {
  const history = await driveHistory(options);
  const check = checkHistory(history.partitions, history.tokens);
  const text = [
    ...check.anomalies.flatMap((anomaly) => anomaly.lines),
    ...check.revocations.map(describeRevocation),
    ...check.unknown.map((object) => `${object}: the search gave up (too many configurations)`),
  ];
  return {
    seed: options.seed,
    faults: options.faults,
    clients: options.clients,
    operations: history.operations,
    indeterminate: history.indeterminate,
    partitions: check.partitions,
    anomalies: check.anomalies.length,
    revocations: check.revocations.length,
    revoked_token_writes: revokedTokenWrites(history.tokens.writes, history.tokens.deletions).length,
    undecided: check.unknown.length,
    caught_after:
      check.anomalies.length > 0 ? Math.min(...check.anomalies.map((anomaly) => anomaly.caughtAt)) : null,
    largest_partition: check.largest,
    checker_ms: Math.round(check.ms),
    run_ms: Math.round(history.ms),
    conflicts: {
      transactions: history.conflicts.transactions,
      single_writes: history.conflicts.singleWrites,
    },
    faults_injected: history.faults?.total ?? 0,
    by_kind: history.byKind,
    failed: check.anomalies.length + check.revocations.length + check.unknown.length > 0,
    text,
    html: reportHtml(
      `Histories: seed ${options.seed}${options.faults ? ', faults' : ''}`,
      check.anomalies,
      check.revocations,
    ),
  };
}

export function describeHistories(report: HistoriesReport): string {
  return [
    `Histories, seed ${report.seed}${report.faults ? ' with faults' : ''} (replay: npm run histories -- --seed ${report.seed}${report.faults ? ' --faults' : ''})`,
    `${report.operations} operations by ${report.clients} clients, ${report.indeterminate} indeterminate; ${Object.entries(
      report.by_kind,
    )
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `conflicts emulated: ${report.conflicts.transactions} transactions cancelled, ${report.conflicts.single_writes} single writes refused; faults injected: ${report.faults_injected}`,
    `${report.partitions} partitions checked in ${(report.checker_ms / 1000).toFixed(1)} s; largest ${report.largest_partition.object} (${report.largest_partition.operations} operations, ${report.largest_partition.explored} configurations)`,
    `anomalies ${report.anomalies}, writes by tokens of deleted keys ${report.revocations} accepted of ${report.revoked_token_writes} sent, undecided partitions ${report.undecided}; run ${(report.run_ms / 1000).toFixed(1)} s`,
    ...(report.caught_after === null
      ? []
      : [`first anomaly complete after ${report.caught_after} operations`]),
    report.failed ? 'FAILED: the report is on stderr' : 'OK: every partition is linearizable',
    '',
  ].join('\n');
}
