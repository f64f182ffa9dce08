import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { quantile, round } from './support';

/**
 * Where a fresh process's time goes, medians in ms, each phase measured inside the process (from
 * `process.uptime()`, which counts from the process's start; not `performance.now()`, whose first access
 * loads node's `perf_hooks`, a cost of the harness that `node -e 0` does not pay and the functions do not
 * either):
 * - `boot`: node itself, up to the first line of the script (what `node -e 0` mostly is);
 * - `init`: importing the bundle: loading, compiling and running its module code (the function's init);
 * - `before_handler`: the first request's way in: header normalisation, body parsing, the
 *   authorizer (token check) and the rate limiter, up to the operation's handler;
 * - `handler`: the operation itself;
 * - `response`: the way out (error mapping, metrics line, log line, security headers);
 * - `exit`: from the answer until the process is gone (wall time less everything else).
 */
export interface ColdStartPhases {
  boot: number;
  init: number;
  before_handler: number;
  handler: number;
  response: number;
  exit: number;
}

export interface ColdStart {
  median_ms: number;
  node_baseline_ms: number;
  /** The medians of each phase of the same runs. */
  phases?: ColdStartPhases;
}

/**
 * What a fresh process runs: import the bundle, answer one event, report the outcome (last) and, before it,
 * one line with the phases' timestamps. The outcome is an API function's status code, or `RESULT ` and the
 * JSON of what a workflow step or queue consumer returned. A middleware added after the stack is built runs
 * its `before` last on the way in (just before the handler) and its `after` first on the way out (just after
 * it), so it marks where the handler starts and ends without touching the function; a function that is not a
 * middy stack (the steps, the queue consumers) is all handler. The local harness's queues and workflow runner
 * are stand-ins that take what is sent and do nothing (in AWS, one SQS or Step Functions request): a function
 * that starts a job, emits an event or starts a release answers as it does locally. A handler that throws
 * ends where the error comes out of it (the marker's `onError`, first of the error handlers, returns
 * nothing, so the function's own map the error as before). The report goes to descriptor 1 with
 * `fs.writeSync`, as the functions' own log and metric lines do (lib/runtime/stdio.ts), so that the harness
 * makes no `process.stdout` a function in AWS does not make (through the stream on a node before 20.16,
 * which has no `process.getBuiltinModule`, as the functions' lines then go).
 */
const INVOKE_ONCE = `
globalThis[Symbol.for('commerce-api.local-workflow')] = () => Promise.resolve();
globalThis[Symbol.for('commerce-api.local-job-queue')] = () => undefined;
globalThis[Symbol.for('commerce-api.local-delivery-queue')] = { send: () => undefined, delay: () => undefined };
const now = () => process.uptime() * 1000;
const t0 = now();
const { handler } = await import(process.env.BENCH_BUNDLE);
const t1 = now();
let tBefore = Number.NaN;
let tAfter = Number.NaN;
const middy = typeof handler.use === 'function';
if (middy) handler.use({ before: () => { tBefore = now(); }, after: () => { tAfter = now(); }, onError: () => { tAfter = now(); } });
const event = JSON.parse(process.env.BENCH_EVENT);
const context = { awsRequestId: 'cold-start', functionName: 'bench', getRemainingTimeInMillis: () => 10000 };
const result = await handler(event, context);
const t2 = now();
if (!middy) { tBefore = t1; tAfter = t2; }
const outcome = middy ? String(result.statusCode) : 'RESULT ' + JSON.stringify(result ?? null);
const report = '\\nPHASES ' + JSON.stringify([t0, t1, tBefore, tAfter, t2]) + '\\n' + outcome;
if (process.getBuiltinModule) process.getBuiltinModule('node:fs').writeSync(1, report);
else process.stdout.write(report);
process.exit(0);
`;

/**
 * `source` as a module file of its own in the temporary folder (named by its content, written once), for a
 * fresh process to load.
 */
function moduleFile(label: string, source: string): string {
  const file = join(
    tmpdir(),
    `${label}-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.mjs`,
  );
  if (!existsSync(file)) {
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, source);
    renameSync(partial, file);
  }
  return file;
}

/**
 * The file a measured process runs: INVOKE_ONCE loaded from a module file, as a Lambda's Node.js runtime
 * loads its own code (an ES module) before it imports the function. Node's module loader (resolving and
 * reading a module file, the modules that takes) is then loaded for the harness, in `boot`, and `init` is
 * the function's own import; the wall time is the same either way (docs/performance.md).
 */
export function harnessFile(): string {
  return moduleFile('commerce-bench-invoke-once', INVOKE_ONCE);
}

/**
 * A function that does nothing: its handler answers 200 at once. Its cold start over `node -e 0` is what
 * every function pays in this harness before any code of its own: loading a module file through node's
 * module loader, the harness's own lines, the bundle's read.
 */
export function emptyFunctionFile(): string {
  return moduleFile(
    'commerce-bench-empty-function',
    'export const handler = async () => ({ statusCode: 200, body: "" });\n',
  );
}

/** The empty function's cold start (emptyFunctionFile), `runs` fresh processes beside `node -e 0`. */
export function measureEmptyFunction(env: NodeJS.ProcessEnv, runs: number): Promise<ColdStart> {
  const answered = (result: unknown) => (result as { statusCode?: unknown } | null)?.statusCode === 200;
  return measureColdStart(emptyFunctionFile(), () => ({}), answered, env, runs);
}

/**
 * A function's cold-start invocation: a new event per run (the bench may prepare state for it first), what
 * the function must answer (an API function's status code, or a check of a step's or consumer's result)
 * and environment variables of its own.
 */
export interface ColdStartSpec {
  event: (run: number) => unknown;
  expect: number | ((result: unknown) => boolean);
  env?: NodeJS.ProcessEnv;
}

/**
 * Extra `node` flags for the measured processes (not `node -e 0`), from BENCH_COLD_NODE_ARGS, to profile
 * a cold start: `BENCH_COLD_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/cold' npx tsx bench/cold-start-phases.ts`
 * (node refuses `--cpu-prof` in NODE_OPTIONS). Profiling slows the process: its timings are not figures.
 */
const PROFILE_ARGS = (process.env.BENCH_COLD_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

/** The phases of one run from its timestamps and its wall time (see ColdStartPhases). */
export function phasesOf(stamps: number[], wallMs: number): ColdStartPhases {
  const [t0 = 0, t1 = 0, before = 0, after = 0, end = 0] = stamps;
  return {
    boot: t0,
    init: t1 - t0,
    before_handler: before - t1,
    handler: after - before,
    response: end - after,
    exit: wallMs - end,
  };
}

/** The per-phase medians of several runs' phases. */
export function medianPhases(runs: ColdStartPhases[]): ColdStartPhases {
  const phase = (key: keyof ColdStartPhases) => median(runs.map((run) => run[key]));
  return {
    boot: phase('boot'),
    init: phase('init'),
    before_handler: phase('before_handler'),
    handler: phase('handler'),
    response: phase('response'),
    exit: phase('exit'),
  };
}

/**
 * The environment a measured process starts with: `env` as a Lambda function's process would have it.
 * Lambda's Node.js runtimes (20 and later) set no `NODE_EXTRA_CA_CERTS`, and the stack sets none: a
 * function parses no certificate as it starts (its roots come from a layer, read as its TLS connections
 * need them: infra/root-certificates.ts). A machine that sets
 * it for every process (this one names its system bundle, 144 certificates) charges their parsing to every
 * fresh process: 60-90 ms of `node -e 0` here, against 25-35 ms without, and most of the spread between two
 * starts (docs/performance.md). Cold starts and their `node -e 0` baseline are measured without it.
 */
export function lambdaEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _machineCertificates, ...rest } = env;
  return rest;
}

/**
 * `lambdaEnv(env)` as the stack deploys a function: at `LOG_LEVEL=info` with its metrics on, so that a cold
 * start writes its request's log line and metric line as in AWS (the bench's own process stays silent).
 */
export function deployedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { POWERTOOLS_METRICS_DISABLED: _metricsOff, ...rest } = lambdaEnv(env);
  return { ...rest, LOG_LEVEL: 'info' };
}

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
      // The end of stderr: the error, after the minified line it points at.
      if (code !== 0) reject(new Error(`process exited ${code}: ${stderr.trim().slice(-800)}`));
      else resolve({ ms, stdout, stderr });
    });
  });
}

/** The median of `values`, to a tenth of a millisecond. */
export function median(values: number[]): number {
  return round(
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    ),
    1,
  );
}

/** True when a non-HTTP function's outcome line (`RESULT <json>`) passes its check. */
function expectedResult(outcome: string, check: (result: unknown) => boolean): boolean {
  return outcome.startsWith('RESULT ') && check(JSON.parse(outcome.slice(7)));
}

/** Median wall time of `node -e 0`, the floor every cold start stands on. */
export async function nodeBaseline(runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) samples.push((await timeProcess(['-e', '0'], lambdaEnv())).ms);
  return median(samples);
}

/**
 * Median wall time of a fresh `node` process importing a bundled function and answering one event
 * (a new event per run from `nextEvent`), beside the `node -e 0` baseline measured in alternation (in
 * `baselineEnv`: the function's `env` unless told otherwise).
 * Fails when the function answers anything but `expect` (a status code, or a check of a non-HTTP result).
 */
export async function measureColdStart(
  bundle: string,
  nextEvent: ColdStartSpec['event'],
  expect: ColdStartSpec['expect'],
  env: NodeJS.ProcessEnv,
  runs = 15,
  baselineEnv: NodeJS.ProcessEnv = env,
): Promise<ColdStart> {
  const samples: number[] = [];
  const baseline: number[] = [];
  const phases: ColdStartPhases[] = [];
  for (let run = 0; run < runs; run += 1) {
    const event = await nextEvent(run);
    const { ms, stdout } = await timeProcess([...PROFILE_ARGS, harnessFile()], {
      ...env,
      BENCH_BUNDLE: bundle,
      BENCH_EVENT: JSON.stringify(event),
    });
    // The status is the last thing written (a metrics line may come before it), the phases just before.
    const lines = stdout.split('\n');
    const outcome = lines.at(-1) ?? '';
    if (typeof expect === 'number' ? outcome !== String(expect) : !expectedResult(outcome, expect))
      throw new Error(
        `${bundle} answered ${outcome.slice(0, 300)}, expected ${typeof expect === 'number' ? expect : 'a result its check accepts'}`,
      );
    const stamps = lines.at(-2)?.startsWith('PHASES ')
      ? (JSON.parse(lines.at(-2)?.slice(7) ?? '[]') as number[])
      : [];
    // A run without its phases answered without reaching its handler (a middleware answered first): the
    // bench would time something other than the function's work.
    if (stamps.length !== 5 || !stamps.every(Number.isFinite))
      throw new Error(`${bundle} answered without running its handler (phases ${JSON.stringify(stamps)})`);
    phases.push(phasesOf(stamps, ms));
    samples.push(ms);
    baseline.push((await timeProcess(['-e', '0'], baselineEnv)).ms);
  }
  return { median_ms: median(samples), node_baseline_ms: median(baseline), phases: medianPhases(phases) };
}
