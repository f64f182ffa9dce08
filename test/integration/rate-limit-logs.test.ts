import { bearer, createTestStore, invoke, tokenFor } from '../support/fixtures';

/*
 * A flood of refusals must not become a flood of log lines: refused requests (429 of the store's rate
 * limit) write no access line each and no metric line each; the refusal log sums them per key and second
 * and the RateLimitedRequests metric per second (docs/logs.md, docs/rate-limits.md). Logs are on (info)
 * and metrics on while this file runs; the modules are loaded fresh so the switches apply.
 */

let output: string[] = [];
const writes = { out: process.stdout.write, err: process.stderr.write };
beforeAll(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.LOG_LEVEL = 'info';
  const capture = ((chunk: string | Uint8Array) => {
    output.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => line.startsWith('{')),
    );
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
});
afterAll(() => {
  process.stdout.write = writes.out;
  process.stderr.write = writes.err;
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.LOG_LEVEL = 'silent';
});

function load() {
  let modules:
    | {
        listKeys: typeof import('../../functions/list-application-keys/handler');
        refusals: typeof import('../../lib/rate-limit/refusal-log');
        metrics: typeof import('../../lib/metrics/index');
      }
    | undefined;
  jest.isolateModules(() => {
    modules = {
      listKeys: require('../../functions/list-application-keys/handler'),
      refusals: require('../../lib/rate-limit/refusal-log'),
      metrics: require('../../lib/metrics/index'),
    };
  });
  if (!modules) throw new Error('not loaded');
  return modules;
}

it('writes a bounded number of lines for 300 refusals: per second, not per refused request', async () => {
  const { listKeys, refusals, metrics } = load();
  const store = await createTestStore({ rate_limit: 2 });
  const token = await tokenFor(store);
  output = [];
  const started = Date.now();
  const statuses: number[] = [];
  for (let i = 0; i < 300; i += 1) {
    const response = await invoke(listKeys.handler, {
      method: 'GET',
      path: '/v2/application-keys',
      routeKey: 'GET /v2/application-keys',
      headers: bearer(token, { host: 'api.example.test', 'x-forwarded-proto': 'https' }),
    });
    statuses.push(response.status);
  }
  // What the container still holds: the last second's refusal line and metric counts.
  refusals.flushRefusals(Date.now(), true);
  await metrics.flushMetrics(Date.now() + 60_000);
  const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
  const refused = statuses.filter((status) => status === 429).length;
  const admitted = statuses.filter((status) => status === 200).length;
  expect(refused + admitted).toBe(300);
  expect(admitted).toBeLessThanOrEqual(2 * seconds + 1);
  const lines = output.map((line) => JSON.parse(line) as Record<string, unknown>);
  const access = lines.filter((line) => line.message === 'request completed');
  const refusalLines = lines.filter((line) => line.message === 'rate limited');
  const emf = lines.filter((line) => '_aws' in line);
  const sum = (values: unknown[]) => values.flat().reduce((a: number, v) => a + Number(v), 0);
  // An access line per admitted request, none per refused one.
  expect(access.map((line) => line.status)).toEqual(Array(admitted).fill(200));
  // Every refusal counted once, in at most one line per second (and key).
  expect(sum(refusalLines.map((line) => line.count))).toBe(refused);
  expect(refusalLines.length).toBeLessThanOrEqual(seconds);
  // The metric: every refusal counted, in at most one line per second.
  expect(sum(emf.map((line) => line.RateLimitedRequests ?? []))).toBe(refused);
  expect(emf.length).toBeLessThanOrEqual(seconds + 1);
  // Nothing else: about 714 bytes a refusal before (an access line and a metric line each), now the
  // refusals' lines are a few per second whatever their number.
  expect(lines.length).toBe(access.length + refusalLines.length + emf.length);
  const refusalBytes = [...refusalLines, ...emf].reduce(
    (total, line) => total + JSON.stringify(line).length,
    0,
  );
  expect(refusalBytes).toBeLessThanOrEqual(2 * seconds * 1000);
});
