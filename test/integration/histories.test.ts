import { HIERARCHY_WORKLOAD } from '../../histories/driver';
import { runHistories } from '../../histories/session';

/*
 * The default run of `npm run histories`, kept short for `npm test`: 1,000 random operations by 8
 * concurrent clients through the handlers, with DynamoDB's transaction conflicts emulated, and a shorter
 * run with faults (throttling, timeouts, lost responses). Every partition must be linearizable.
 * `npm run histories:long` runs 10,000 operations with faults.
 */
const KINDS = [
  'children',
  'create',
  'delete',
  'get',
  'grant',
  'list',
  'mapping-get',
  'mapping-put',
  'node-attach',
  'node-create',
  'node-detach',
  'node-get',
  'node-move',
  'node-products',
  'price-create',
  'price-delete',
  'price-get',
  'price-update',
  'product-create',
  'product-delete',
  'product-get',
  'product-update',
  'publish',
  'rename',
  'reserve',
  'rollback',
];

describe('histories of concurrent operations are linearizable', () => {
  it('1,000 operations by 8 clients under transaction conflicts: no anomaly, every kind of operation run', async () => {
    const report = await runHistories({ ops: 1000, clients: 8, seed: 1, faults: false });
    if (report.failed) process.stderr.write(`${report.text.join('\n')}\n`);
    expect(report.text).toEqual([]);
    expect({
      operations: report.operations,
      anomalies: report.anomalies,
      revocations: report.revocations,
      undecided: report.undecided,
      indeterminate: report.indeterminate,
      kinds: Object.keys(report.by_kind).sort(),
    }).toEqual({
      operations: 1000,
      anomalies: 0,
      revocations: 0,
      undecided: 0,
      indeterminate: 0,
      kinds: KINDS,
    });
    // Partitions per key, per store (its keys, its products, its book's prices), the prefix map and the release: far more
    // than the fixed ones.
    expect(report.partitions).toBeGreaterThan(20);
  }, 180_000);

  it('a run asked for publishes goes on past its operations until they have ended, and throws when none can begin', async () => {
    const releasesOnly = { clients: 4, seed: 3, faults: false, productShare: 0, nodeShare: 0, priceShare: 0 };
    const report = await runHistories({ ...releasesOnly, ops: 10, publishChance: 0.5, minPublishes: 4 });
    expect(report.text).toEqual([]);
    expect(report.by_kind.publish).toBeGreaterThanOrEqual(4);
    expect(report.operations).toBeGreaterThan(10);
    await expect(
      runHistories({ ...releasesOnly, ops: 10, publishChance: 0, minPublishes: 1 }),
    ).rejects.toThrow(
      'the run held 0 publishes, fewer than the 1 asked for, and began none in 100 operations',
    );
  }, 180_000);

  // The workload of histories-broken-move.test.ts on the real build: nine operations in ten on hierarchies.
  it('1,500 operations aimed at hierarchies (creates, moves, attaches racing): no anomaly', async () => {
    const report = await runHistories(HIERARCHY_WORKLOAD);
    if (report.failed) process.stderr.write(`${report.text.join('\n')}\n`);
    expect(report.text).toEqual([]);
    expect([report.operations, report.anomalies]).toEqual([1500, 0]);
  }, 180_000);

  // With DynamoDB write responses lost after the write, as `npm run histories -- --faults` runs them.
  it('400 operations with faults: indeterminate answers are modelled, not dropped, and nothing is flagged', async () => {
    const report = await runHistories({ ops: 400, clients: 8, seed: 2, faults: true });
    if (report.failed) process.stderr.write(`${report.text.join('\n')}\n`);
    expect(report.text).toEqual([]);
    expect(report.operations).toBe(400);
    expect(report.faults_injected).toBeGreaterThan(0);
    expect(report.indeterminate).toBeGreaterThan(0);
    expect(report.anomalies + report.revocations + report.undecided).toBe(0);
  }, 180_000);
});
