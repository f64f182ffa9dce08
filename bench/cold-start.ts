import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { quantile, round } from './support';

export interface ColdStart {
  median_ms: number;
  node_baseline_ms: number;
}

/** What a fresh process runs: import the bundle, answer one event, report the status code. */
const INVOKE_ONCE = `
const { handler } = await import(process.env.BENCH_BUNDLE);
const event = JSON.parse(process.env.BENCH_EVENT);
const context = { awsRequestId: 'cold-start', functionName: 'bench', getRemainingTimeInMillis: () => 10000 };
const result = await handler(event, context);
process.stdout.write(String(result.statusCode));
process.exit(0);
`;

/** Wall time of one fresh `node` process from spawn to exit, and its stdout; rejects on a non-zero exit. */
export function timeProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - start;
      if (code !== 0) reject(new Error(`process exited ${code}: ${stderr.trim().slice(0, 500)}`));
      else resolve({ ms, stdout, stderr });
    });
  });
}

function median(values: number[]): number {
  return round(
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    ),
    1,
  );
}

/** Median wall time of `node -e 0`, the floor every cold start stands on. */
export async function nodeBaseline(runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) samples.push((await timeProcess(['-e', '0'], process.env)).ms);
  return median(samples);
}

/**
 * Median wall time of a fresh `node` process importing a bundled function and answering one event
 * (a new event per run from `nextEvent`), beside the `node -e 0` baseline measured in alternation.
 * Fails when the function answers anything but `expectStatus`.
 */
export async function measureColdStart(
  bundle: string,
  nextEvent: (run: number) => Promise<APIGatewayProxyEventV2> | APIGatewayProxyEventV2,
  expectStatus: number,
  env: NodeJS.ProcessEnv,
  runs = 15,
): Promise<ColdStart> {
  const samples: number[] = [];
  const baseline: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const event = await nextEvent(run);
    const { ms, stdout } = await timeProcess(['--input-type=module', '-e', INVOKE_ONCE], {
      ...env,
      BENCH_BUNDLE: bundle,
      BENCH_EVENT: JSON.stringify(event),
    });
    // The status is the last thing written (a metrics line may come before it).
    const status = stdout.split('\n').at(-1);
    if (status !== String(expectStatus))
      throw new Error(`${bundle} answered ${status}, expected ${expectStatus}`);
    samples.push(ms);
    baseline.push((await timeProcess(['-e', '0'], env)).ms);
  }
  return { median_ms: median(samples), node_baseline_ms: median(baseline) };
}
