import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import sampleRelease from '../../catalog/sample-release.json';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { listen } from '../../local/gateway';
import { DEMO_PARENT_ID } from '../../local/seed';
import { createTestStore, type TestStore } from '../support/fixtures';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { publishRelease } from '../support/one-process-publisher';

const ROOT = join(__dirname, '../..');

/** Runs `npm run smoke` (tsx local/smoke.ts) without blocking this process, which serves the API. */
function smoke(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['local/smoke.ts', ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

let api: LocalApi;
let store: TestStore;
let proxy: Server | undefined;
beforeAll(async () => {
  api = await startLocalApi();
  store = await createTestStore();
  await publishRelease(store.store.id, sampleRelease);
});
afterAll(async () => {
  await api.close();
  await new Promise<void>((done) => (proxy ? proxy.close(() => done()) : done()));
});

const keyCount = async () =>
  (await applicationKeyRepository.list(store.store.id, { limit: 100, offset: 0 })).keys.length;
const credentials = () => ['--client-id', store.clientId, '--client-secret', store.clientSecret];

describe('npm run smoke', () => {
  it('passes every check against a working API, one line each, and leaves no key behind', async () => {
    const before = await keyCount();
    const run = await smoke(
      '--base',
      api.baseUrl,
      ...credentials(),
      '--product',
      DEMO_PARENT_ID,
      '--channel',
      'web',
    );
    const lines = run.stdout.trim().split('\n');
    expect(run.stderr).toBe('');
    expect(lines.slice(0, -1).map((line) => line.slice(0, 4))).toEqual(Array(12).fill('PASS'));
    expect(lines.map((line) => line.replace(/^(PASS|FAIL) {2}([^:]+):.*$/, '$2'))).toEqual([
      'token',
      'token',
      'application keys',
      'application keys',
      'application keys',
      'application keys',
      'merchant realm mapping',
      'catalog',
      'catalog',
      'catalog',
      'unknown route',
      'bad token',
      '12 passed, 0 failed',
    ]);
    expect(run.status).toBe(0);
    expect(await keyCount()).toBe(before);
    expect(run.stdout).not.toContain(store.clientSecret);
  }, 60_000);

  it('fails and exits 1 when a check fails midway, still deleting the key it created', async () => {
    // A proxy that breaks only the read of one key: the create before it and the delete after it work.
    proxy = createServer(async (req, res) => {
      const body = await new Promise<Buffer>((done) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => done(Buffer.concat(chunks)));
      });
      if (req.method === 'GET' && /^\/v2\/application-keys\/[^/?]+$/.test(req.url ?? '') && !proxyBrokeOnce) {
        proxyBrokeOnce = true;
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"Internal Server Error"}');
        return;
      }
      const upstream = await fetch(`${api.baseUrl}${req.url}`, {
        method: req.method ?? 'GET',
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection'),
        ) as Record<string, string>,
        ...(body.length > 0 ? { body } : {}),
      });
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    let proxyBrokeOnce = false;
    const port = await listen(proxy, 0);
    const before = await keyCount();
    const run = await smoke('--base', `http://127.0.0.1:${port}`, ...credentials(), '--json');
    const report = JSON.parse(run.stdout) as {
      checks: { name: string; ok: boolean; detail: string }[];
      passed: number;
      failed: number;
    };
    expect(run.status).toBe(1);
    expect(report.failed).toBe(1);
    expect(report.passed).toBe(8);
    expect(report.checks.find((c) => !c.ok)).toMatchObject({
      name: 'application keys: read the new key',
      detail: expect.stringContaining('expected 200, got 500'),
    });
    expect(report.checks.find((c) => c.name.startsWith('application keys: delete'))?.ok).toBe(true);
    expect(await keyCount()).toBe(before);
  }, 60_000);

  it('reports every check as failed with wrong credentials, and exits 1', async () => {
    const run = await smoke(
      '--base',
      api.baseUrl,
      '--client-id',
      store.clientId,
      '--client-secret',
      // One secret in 64 starts with `-` (base64url): it is the option's value, not an unknown option.
      '-wrong-secret-123',
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      'FAIL  token: client_credentials grant: POST /oauth/access_token: expected 200, got 401',
    );
    expect(run.stdout).toContain('FAIL  application keys: create: not run: the admin token failed');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('3 passed, 6 failed');
  }, 60_000);

  it('refuses unknown flags and missing values with exit 2, and prints usage on --help', async () => {
    expect((await smoke('--base', api.baseUrl, '--nope')).status).toBe(2);
    const missing = await smoke('--base', api.baseUrl);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--client-id and --client-secret are required');
    const help = await smoke('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: npm run smoke');
  }, 60_000);
});
