import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevServer, type DevServer } from '../../local/dev';
import { listen } from '../../local/gateway';
import { childrenRelease } from '../support/catalog-fixtures';
import { createTestStore } from '../support/fixtures';

/**
 * `npm run dev` on a copy of the project (functions/, lib/, the bundling settings), so the test can edit
 * sources: an edit is served by a later request, a build error answers 500 with the compiler's message
 * only in the server's log, and the data stays (the database is never touched by a reload).
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
  dev = createDevServer({ root: copy });
  base = `http://127.0.0.1:${await listen(dev.server, 0)}`;
});
afterAll(async () => {
  process.stderr.write = stderrWrite;
  dev.server.closeAllConnections();
  await new Promise<void>((done) => dev.server.close(() => done()));
  await dev.stop();
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

  it('publishes a catalog over the API: the workflow runs beside the reloading functions', async () => {
    const store = await createTestStore();
    const { access_token } = (await (
      await fetch(`${base}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: store.clientId,
          client_secret: store.clientSecret,
        }),
      })
    ).json()) as { access_token: string };
    const headers = { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${base}/pcm/catalogs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ data: { type: 'catalog', attributes: { name: 'Dev catalog' } } }),
    });
    const catalogId = ((await created.json()) as { data: { id: string } }).data.id;
    const stored = await fetch(`${base}/pcm/catalogs/${catalogId}/document`, {
      method: 'PUT',
      headers,
      body: JSON.stringify(childrenRelease()),
    });
    expect(stored.status).toBe(200);
    const release = await fetch(`${base}/pcm/catalogs/${catalogId}/releases`, { method: 'POST', headers });
    expect(release.status).toBe(201);
    const releaseId = ((await release.json()) as { data: { id: string } }).data.id;
    const deadline = Date.now() + 30_000;
    let status = 'PENDING';
    while (status !== 'PUBLISHED' && status !== 'FAILED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      const got = await fetch(`${base}/pcm/catalogs/${catalogId}/releases/${releaseId}`, { headers });
      status = ((await got.json()) as { data: { meta: { release_status: string } } }).data.meta
        .release_status;
    }
    expect(status).toBe('PUBLISHED');
  }, 60_000);
});
