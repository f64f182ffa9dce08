import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevServer, type DevServer } from '../../local/dev';
import { listen } from '../../local/gateway';
import { createTestStore } from '../support/fixtures';
import { expectReleaseWebhooks } from '../support/release-webhooks';

/**
 * `npm run dev` on a copy of the project (functions/, lib/, the bundling settings), so the test can edit
 * sources: an edit is served by a later request, a build error answers 500 with the compiler's message
 * only in the server's log, and the data stays (the database is never touched by a reload). A publish
 * runs the workflow and delivers the release's webhooks (retried after 10 ms here).
 */
const ROOT = join(__dirname, '../..');
const copy = mkdtempSync(join(tmpdir(), 'dev-copy-'));
for (const part of ['functions', 'lib', 'infra', 'package.json', 'tsconfig.json'])
  cpSync(join(ROOT, part), join(copy, part), { recursive: true });
symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
const HANDLER = join(copy, 'functions/create-access-token/handler.ts');
const original = readFileSync(HANDLER, 'utf8');

let dev: DevServer;
let base: string;
const logged: string[] = [];
const stderrWrite = process.stderr.write;
beforeAll(async () => {
  process.stderr.write = ((chunk: string | Uint8Array) =>
    logged.push(String(chunk)) > 0) as typeof stderrWrite;
  // The functions' workers take the environment of the server's start.
  process.env.INTEGRATIONS_RETRY_BASE_MS = '10';
  dev = createDevServer({ root: copy });
  base = `http://127.0.0.1:${await listen(dev.server, 0)}`;
});
afterAll(async () => {
  process.stderr.write = stderrWrite;
  dev.server.closeAllConnections();
  await new Promise<void>((done) => dev.server.close(() => done()));
  await dev.stop();
  delete process.env.INTEGRATIONS_RETRY_BASE_MS;
  rmSync(copy, { recursive: true, force: true });
});

const token = (clientId: string) =>
  fetch(`${base}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'implicit', client_id: clientId }),
  });

/** Requests until `done` holds for an answer (a reload is asynchronous); fails after 20 s. */
async function until(clientId: string, done: (status: number, body: string) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await token(clientId);
    const body = await response.text();
    if (done(response.status, body)) return { status: response.status, body };
    if (Date.now() > deadline) throw new Error(`no reload: still ${response.status} ${body}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('npm run dev', () => {
  it('serves an edit, answers 500 while the code does not build (message in the log only), and recovers, keeping the data', async () => {
    const store = await createTestStore();
    const first = await token(store.clientId);
    expect(first.status).toBe(200);
    expect(await first.json()).not.toHaveProperty('reloaded');

    writeFileSync(
      HANDLER,
      original.replace('return json(200, token);', 'return json(200, { ...token, reloaded: true });'),
    );
    const edited = await until(
      store.clientId,
      (status, body) => status === 200 && body.includes('"reloaded":true'),
    );
    expect(JSON.parse(edited.body)).toMatchObject({ identifier: 'implicit', reloaded: true });

    writeFileSync(HANDLER, original.replace('return json(200, token);', 'return json(200, {'));
    const broken = await until(store.clientId, (status) => status === 500);
    expect(broken.body).toBe('{"message":"Internal Server Error"}');
    const log = logged.join('');
    expect(log).toContain('dev: create-access-token does not build; it answers 500 until fixed:');
    expect(log).toContain('[ERROR] Unexpected end of file');
    expect(log).toMatch(/functions\/create-access-token\/handler\.ts:\d+:\d+:/);

    writeFileSync(HANDLER, original);
    const fixed = await until(store.clientId, (status) => status === 200);
    // Same database, same data: the store created before the reloads still gets tokens.
    expect(JSON.parse(fixed.body)).not.toHaveProperty('reloaded');
    expect(JSON.parse(fixed.body).identifier).toBe('implicit');
  }, 90_000);

  it('publishes a catalog over the API and delivers its webhooks through the delivery function’s build, a failed attempt retried, both logged', async () => {
    // The release route's function emits catalog-release.created from its worker; the workflow, beside the
    // reloading functions in the server's thread, emits catalog-release.updated.
    await expectReleaseWebhooks(base);
  }, 90_000);
});
