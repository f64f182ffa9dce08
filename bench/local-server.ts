import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { freePort } from '../local/dynamodb-local';
import { round } from './support';

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

export interface LocalServerFigures {
  rps: number;
  p99_ms: number;
  bare_node_rps: number;
  ratio: number;
}

/** Starts a child process and resolves once it printed `ready` on stdout. */
function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<ChildProcess> {
  return new Promise((done, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`not ready in time: ${output.slice(-500)}`)), 60000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
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
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output.slice(-500)}`)));
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
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
    return {
      rps: round(local.requests.average, 0),
      p99_ms: local.latency.p99,
      bare_node_rps: round(baseline.requests.average, 0),
      ratio: round(local.requests.average / baseline.requests.average, 3),
    };
  } finally {
    await stopProcess(api);
    if (bare) await stopProcess(bare);
  }
}
