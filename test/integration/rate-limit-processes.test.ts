import { runContainers } from '../../bench/rate-limit-containers';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { createTestStore } from '../support/fixtures';

/*
 * One limit across containers: three node processes, each with its own limiter (as three Lambda
 * containers would be), flood one store through the same DynamoDB Local. Every whole second, the store
 * admits no more than its limit in total, and its reserved key gets at least its reservation.
 */

it('holds one store limit across three processes, and the reserved key keeps its share', async () => {
  const test = await createTestStore({ rate_limit: 30 });
  const { key: reserved } = await applicationKeyRepository.create(test.store.id, {
    name: 'reserved',
    reserved_rate_limit: 10,
  });
  const run = await runContainers({
    storeId: test.store.id,
    keys: [reserved.id, test.keyId],
    processes: 3,
    ratePerKey: 60,
    durationMs: 4000,
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  expect(run.failedOpen).toBe(0);
  expect(run.fullWindows.length).toBe(2);
  for (const window of run.fullWindows) {
    const admitted = run.perWindow.get(window) ?? {};
    const reservedCount = admitted[reserved.id] ?? 0;
    const unreservedCount = admitted[test.keyId] ?? 0;
    // 3 processes x 60/s x 2 keys = 360 requests a second against a limit of 30.
    expect(reservedCount + unreservedCount).toBeLessThanOrEqual(30);
    expect(reservedCount).toBeGreaterThanOrEqual(10);
    expect(unreservedCount).toBeGreaterThan(0);
  }
  // Refusals once a window is known used up cost nothing: far fewer writes than requests.
  expect(run.writes).toBeLessThan(run.attempts / 10);
}, 60_000);
