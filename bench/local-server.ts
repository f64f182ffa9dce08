import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { freePort } from '../local/dynamodb-local';
import { publishRelease } from '../test/support/one-process-publisher';
import { type LoadFigures, loadAt } from './http-load';
import { setUpChildList } from './list-child-products';
import { progress, round, runAsScript } from './support';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number; p50: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const ROOT = resolve(import.meta.dirname, '..');

/** The local API at one number of concurrent connections (keep-alive, one request in flight per connection). */
export type ConcurrencyRow = LoadFigures;

export interface LocalServerFigures {
  rps: number;
  /**
   * The local gateway alone in front of a function answering the same bytes at once (no middy, auth,
   * limiter or catalog): the most any function behind it could reach, and its ratio to bare node:http.
   */
  gateway_floor_rps: number;
  gateway_floor_ratio: number;
  p99_ms: number;
  bare_node_rps: number;
  ratio: number;
  /** Tail latency under concurrency: 1, 16 and 64 connections, in that order. */
  concurrency: ConcurrencyRow[];
  /**
   * The bare node:http server under the same sweep: the floor. With every connection sending its next
   * request as soon as the last one ends, a single process's latency at n connections is about
   * n / throughput (Little's law), whatever the code does, so this row says what the sweep can show.
   */
  bare_concurrency: ConcurrencyRow[];
  /**
   * p99 at 64 connections over p50 at 1: information, no target. By Little's law it is set by the
   * throughput (bare node:http itself is at 68 on this machine), and the local API's throughput is no
   * longer a target either: 5,000 requests a second is plenty for development.
   */
  tail_ratio: number;
}

/** The connection counts of the concurrency sweep. */
export const CONCURRENCY_LEVELS = [1, 16, 64] as const;

/** p99 at the highest concurrency over p50 at one connection. */
export function tailRatio(rows: ConcurrencyRow[]): number {
  const one = rows.find((row) => row.connections === 1);
  const most = rows.at(-1);
  if (!one || !most) return Number.NaN;
  return round(most.p99_ms / one.p50_ms, 2);
}

/** Starts a child process and resolves once it printed `ready` on stdout. */
export function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<ChildProcess> {
  return new Promise((done, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let started = false;
    const timer = setTimeout(() => reject(new Error(`not ready in time: ${output.slice(-500)}`)), 60000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        started = true;
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        done(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code, signal) => {
      const why = `exited ${code ?? signal}: ${output.slice(-2000)}`;
      reject(new Error(why));
      // Once ready, an exit nobody asked for is said (with the end of its output) where the bench prints:
      // the requests failing after it say only "fetch failed".
      if (started && !stopping.has(child))
        process.stderr.write(`[bench] ${command} ${args.join(' ')} ${why}\n`);
    });
  });
}

/** Processes `stopProcess` is ending: their exit is expected. */
const stopping = new WeakSet<ChildProcess>();

export async function stopProcess(child: ChildProcess): Promise<void> {
  // A child ended by a signal has a null exitCode and its signalCode set: it has exited all the same.
  if (child.exitCode !== null || child.signalCode !== null) return;
  stopping.add(child);
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** A bare node:http server that answers every request with the given status, headers and body. */
const BARE_SERVER = `
const http = require('node:http');
const body = Buffer.from(process.env.BARE_BODY, 'base64');
const headers = JSON.parse(process.env.BARE_HEADERS);
http.createServer((req, res) => { res.writeHead(200, headers); res.end(body); })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
`;

/**
 * Load on the local API (`npm start`'s server, a separate process on the bench database) for one
 * warm route, beside a bare node:http server answering the same bytes; both under the same load.
 */
export async function benchLocalServer(
  path: string,
  headers: Record<string, string>,
  env: NodeJS.ProcessEnv,
  durationSeconds = 8,
  connections = 10,
): Promise<LocalServerFigures> {
  const apiPort = await freePort();
  const api = await startProcess(
    process.execPath,
    ['--import', 'tsx', 'local/start.ts'],
    { ...env, PORT: String(apiPort), LOG_LEVEL: 'silent' },
    /Local API listening/,
  );
  let bare: ChildProcess | undefined;
  let floor: ChildProcess | undefined;
  try {
    const url = `http://127.0.0.1:${apiPort}${path}`;
    const sample = await fetch(url, { headers });
    if (sample.status !== 200)
      throw new Error(`local API answered ${sample.status} for ${path}: ${await sample.text()}`);
    const body = Buffer.from(await sample.arrayBuffer());
    const responseHeaders = { 'content-type': sample.headers.get('content-type') ?? 'application/json' };
    await autocannon({ url, connections, duration: 2, headers }); // warm-up: caches, JIT, keep-alive sockets
    const local = await autocannon({ url, connections, duration: durationSeconds, headers });
    if (local.non2xx > 0 || local.errors > 0)
      throw new Error(`local API: ${local.non2xx} non-2xx, ${local.errors} errors`);
    const concurrency: ConcurrencyRow[] = [];
    for (const level of CONCURRENCY_LEVELS) {
      await loadAt(url, headers, level, 1000); // warm-up of this many sockets
      concurrency.push(await loadAt(url, headers, level, Math.min(durationSeconds, 5) * 1000));
    }

    const barePort = await freePort();
    bare = await startProcess(
      process.execPath,
      ['-e', BARE_SERVER],
      {
        ...process.env,
        PORT: String(barePort),
        BARE_BODY: body.toString('base64'),
        BARE_HEADERS: JSON.stringify(responseHeaders),
      },
      /ready/,
    );
    const bareUrl = `http://127.0.0.1:${barePort}${path}`;
    await autocannon({ url: bareUrl, connections, duration: 2, headers });
    const baseline = await autocannon({ url: bareUrl, connections, duration: durationSeconds, headers });
    const bare_concurrency: ConcurrencyRow[] = [];
    for (const level of CONCURRENCY_LEVELS) {
      await loadAt(bareUrl, headers, level, 1000);
      bare_concurrency.push(await loadAt(bareUrl, headers, level, Math.min(durationSeconds, 5) * 1000));
    }
    // The harness alone: the same gateway in front of a function that answers the same bytes at once.
    await stopProcess(bare);
    bare = undefined;
    const floorPort = await freePort();
    floor = await startProcess(
      process.execPath,
      ['--import', 'tsx', 'bench/stand-ins/gateway-floor.ts'],
      {
        ...process.env,
        PORT: String(floorPort),
        FLOOR_BODY: body.toString('base64'),
        FLOOR_HEADERS: JSON.stringify(responseHeaders),
      },
      /ready/,
    );
    const floorUrl = `http://127.0.0.1:${floorPort}${path}`;
    await autocannon({ url: floorUrl, connections, duration: 2, headers });
    const gatewayFloor = await autocannon({ url: floorUrl, connections, duration: durationSeconds, headers });
    return {
      rps: round(local.requests.average, 0),
      gateway_floor_rps: round(gatewayFloor.requests.average, 0),
      gateway_floor_ratio: round(gatewayFloor.requests.average / baseline.requests.average, 3),
      p99_ms: local.latency.p99,
      bare_node_rps: round(baseline.requests.average, 0),
      ratio: round(local.requests.average / baseline.requests.average, 3),
      concurrency,
      bare_concurrency,
      tail_ratio: tailRatio(concurrency),
    };
  } finally {
    await stopProcess(api);
    if (bare) await stopProcess(bare);
    if (floor) await stopProcess(floor);
  }
}

/** The report lines of the concurrency sweep. */
export function describeConcurrency(figures: LocalServerFigures, note: (text: string) => void): void {
  note('Local API, warm child list, by concurrent connections (information: no target)');
  figures.concurrency.forEach((row, index) => {
    const bare = figures.bare_concurrency[index];
    note(
      `  ${`${row.connections} connection(s)`.padEnd(44)} p50 ${row.p50_ms} ms  p99 ${row.p99_ms} ms  ${row.rps} rps` +
        (bare ? `  (bare node:http: p50 ${bare.p50_ms}  p99 ${bare.p99_ms}  ${bare.rps} rps)` : ''),
    );
  });
  note(`  ${'p99 at 64 / p50 at 1'.padEnd(44)} ${figures.tail_ratio}`);
}

// `npx tsx bench/local-server.ts [--children N]`: this stage alone, on its own database and catalog.
runAsScript(
  import.meta.url,
  async (args) => {
    const index = args.indexOf('--children');
    const children = index === -1 ? 1000 : Number(args[index + 1]);
    progress(`publishing a release with a ${children}-child parent`);
    const setup = await setUpChildList(children);
    await publishRelease(setup.storeId, setup.document);
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      // npm start starts its own S3-compatible store: on a free port, not beside a developer's on 9000.
      S3_PORT: String(await freePort()),
    };
    progress('local API under autocannon beside a bare node:http server, then at 1, 16 and 64 connections');
    return benchLocalServer(
      `/catalog/products/${setup.parentId}/relationships/children?page[limit]=25&page[offset]=0`,
      { authorization: `Bearer ${setup.token}`, 'svc-channel': 'web' },
      env,
    );
  },
  (figures) => {
    const lines = [
      `local API ${figures.rps} rps (p99 ${figures.p99_ms} ms) vs bare node:http ${figures.bare_node_rps} rps, ratio ${figures.ratio}`,
      `the local gateway alone, answering the same bytes at once: ${figures.gateway_floor_rps} rps, ratio ${figures.gateway_floor_ratio}`,
    ];
    describeConcurrency(figures, (text) => lines.push(text));
    return `${lines.join('\n')}\n`;
  },
);
