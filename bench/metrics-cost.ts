import './silent-logs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUNCTIONS, ROUTES } from '../functions/routes';
import { createHttpEvent } from '../local/http-event';
import { bundleFunctions } from './bundle';
import { timeProcess } from './cold-start';
import { round } from './support';

interface Sample {
  /** CPU time (user + system) of the whole process: less sensitive to a busy machine than wall time. */
  cpu_ms: number;
  /** Wall time from process start to the answer, as the process measures it. */
  wall_ms: number;
}

/** Imports the bundle, answers one event and reports its CPU and wall time so far (status checked). */
const INVOKE_ONCE = `
const { handler } = await import(process.env.BENCH_BUNDLE);
const result = await handler(JSON.parse(process.env.BENCH_EVENT), { awsRequestId: 'cold', functionName: 'bench', getRemainingTimeInMillis: () => 10000 });
const cpu = process.cpuUsage();
process.stderr.write(JSON.stringify({ status: result.statusCode, cpu_ms: (cpu.user + cpu.system) / 1000, wall_ms: performance.now() }));
process.exit(0);
`;

async function coldStart(
  bundle: string,
  event: unknown,
  status: number,
  env: NodeJS.ProcessEnv,
): Promise<Sample> {
  const { stderr } = await timeProcess(['--input-type=module', '-e', INVOKE_ONCE], {
    ...env,
    BENCH_BUNDLE: bundle,
    BENCH_EVENT: JSON.stringify(event),
  });
  const report = JSON.parse(stderr.slice(stderr.lastIndexOf('{"status"'))) as Sample & { status: number };
  if (report.status !== status) throw new Error(`${bundle} answered ${report.status}, expected ${status}`);
  return { cpu_ms: report.cpu_ms, wall_ms: report.wall_ms };
}

function median(values: number[]): number {
  return round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0, 1);
}

/**
 * What the metrics library (Powertools Metrics, lib/metrics) costs each function's cold start: every
 * function is bundled twice, as deployed and with the library swapped for an empty stand-in
 * (bench/stand-ins/metrics.ts), and each bundle answers one unauthenticated request in fresh processes
 * (import, init, one invocation that emits an AuthenticationFailures metric; no DynamoDB call), the two
 * variants in alternation; each process reports its own CPU time and wall time at the answer. `npx tsx bench/metrics-cost.ts [--runs N] [--json]`.
 */
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag === -1 ? 21 : Number(process.argv[runsFlag + 1]);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'metrics-cost-'));
  const withLibrary = await bundleFunctions(join(dir, 'with'));
  const without = await bundleFunctions(join(dir, 'without'), {
    '@aws-lambda-powertools/metrics': './bench/stand-ins/metrics.ts',
  });
  // Metrics on (the stand-in has none), DynamoDB never reached: the request fails before any call.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    POWERTOOLS_METRICS_DISABLED: 'false',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const results: Record<string, Record<string, number>> = {};
  for (const name of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
    const route = ROUTES.find((r) => r.function === name);
    if (!route) throw new Error(`no route for ${name}`);
    const token = name === 'create-access-token';
    const event = createHttpEvent({
      method: route.method,
      path: route.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000001'),
      routeKey: `${route.method} ${route.path}`,
      headers: token ? { 'content-type': 'application/json' } : { authorization: 'Bearer nope' },
      ...(token ? { body: '{"grant_type":"implicit"}' } : {}),
    });
    const status = token ? 400 : 401;
    const samples = { with: [] as Sample[], without: [] as Sample[] };
    for (let run = 0; run < RUNS; run += 1) {
      samples.with.push(await coldStart(withLibrary[name]?.file ?? '', event, status, env));
      samples.without.push(await coldStart(without[name]?.file ?? '', event, status, env));
    }
    const cpuWith = median(samples.with.map((s) => s.cpu_ms));
    const cpuWithout = median(samples.without.map((s) => s.cpu_ms));
    const wallWith = median(samples.with.map((s) => s.wall_ms));
    const wallWithout = median(samples.without.map((s) => s.wall_ms));
    results[name] = {
      cpu_with_ms: cpuWith,
      cpu_without_ms: cpuWithout,
      cpu_cost_ms: round(cpuWith - cpuWithout, 1),
      wall_with_ms: wallWith,
      wall_without_ms: wallWithout,
      wall_cost_ms: round(wallWith - wallWithout, 1),
      bundle_kib_added: round((withLibrary[name]?.kib ?? 0) - (without[name]?.kib ?? 0), 1),
    };
    process.stderr.write(`${name}: ${JSON.stringify(results[name])}\n`);
  }
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`metrics-cost failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
