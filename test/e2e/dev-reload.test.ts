import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevServer, type DevServer } from '../../local/dev';
import { listen } from '../../local/gateway';
import { createTestStore } from '../support/fixtures';

/**
 * `npm run dev` serves every kind of save, and keeps serving the later ones: an edit in place, a
 * write-and-rename (an editor's atomic save, `sed -i`), a delete-and-create, and a `git checkout` of a
 * branch touching 20 files. A watcher that follows the file's inode loses the file after the first
 * replacement, so each replacement is followed by an edit in place that must be served too. The project
 * is a git clone of a copy in a temp folder: nothing here touches the repository the tests run from.
 */
const ROOT = join(__dirname, '../..');
const copy = mkdtempSync(join(tmpdir(), 'dev-reload-'));
for (const part of ['functions', 'lib', 'infra', 'package.json', 'tsconfig.json'])
  cpSync(join(ROOT, part), join(copy, part), { recursive: true });
symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
const HANDLER = 'functions/create-access-token/handler.ts';
const original = readFileSync(join(copy, HANDLER), 'utf8');
const RETURN = 'return json(200, token);';
const marked = (marker: string) =>
  original.replace(RETURN, `return json(200, { ...token, marker: '${marker}' });`);

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd: copy,
    encoding: 'utf8',
  });

let dev: DevServer;
let base: string;
let clientId: string;
const stderrWrite = process.stderr.write;
beforeAll(async () => {
  expect(original).toContain(RETURN);
  writeFileSync(join(copy, '.gitignore'), 'node_modules\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'copy');
  process.stderr.write = (() => true) as typeof stderrWrite;
  dev = createDevServer({ root: copy });
  base = `http://127.0.0.1:${await listen(dev.server, 0)}`;
  clientId = (await createTestStore()).clientId;
}, 60_000);
afterAll(async () => {
  process.stderr.write = stderrWrite;
  dev.server.closeAllConnections();
  await new Promise<void>((done) => dev.server.close(() => done()));
  await dev.stop();
  rmSync(copy, { recursive: true, force: true });
});

/** The `marker` the token answer carries (undefined: none), once it is `expected`; fails after 20 s. */
async function served(expected: string | undefined): Promise<string | undefined> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await fetch(`${base}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'implicit', client_id: clientId }),
    });
    const body = (await response.json()) as { marker?: string };
    if (response.status === 200 && body.marker === expected) return body.marker;
    if (Date.now() > deadline) return body.marker;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const inPlace = (text: string) => writeFileSync(join(copy, HANDLER), text);

describe('npm run dev serves each kind of save, and the edits after it', () => {
  it('an edit in place', async () => {
    inPlace(marked('in-place'));
    expect(await served('in-place')).toBe('in-place');
    inPlace(marked('in-place-again'));
    expect(await served('in-place-again')).toBe('in-place-again');
  }, 60_000);

  it('a write-and-rename (atomic save), then an edit in place', async () => {
    const temporary = join(copy, 'functions/create-access-token/.handler.ts.swp');
    writeFileSync(temporary, marked('renamed'));
    renameSync(temporary, join(copy, HANDLER));
    expect(await served('renamed')).toBe('renamed');
    inPlace(marked('after-rename'));
    expect(await served('after-rename')).toBe('after-rename');
  }, 60_000);

  it('a delete-and-create, then an edit in place', async () => {
    unlinkSync(join(copy, HANDLER));
    writeFileSync(join(copy, HANDLER), marked('recreated'));
    expect(await served('recreated')).toBe('recreated');
    inPlace(marked('after-recreate'));
    expect(await served('after-recreate')).toBe('after-recreate');
  }, 60_000);

  it('a git checkout of a branch touching 20 files, then an edit in place, then a checkout back', async () => {
    git('checkout', '-q', '--', HANDLER);
    expect(await served(undefined)).toBeUndefined();
    git('checkout', '-q', '-b', 'twenty');
    inPlace(marked('branch'));
    const others = (readdirSync(join(copy, 'lib'), { recursive: true }) as string[])
      .filter((name) => name.endsWith('.ts'))
      .sort()
      .slice(0, 19);
    expect(others).toHaveLength(19);
    for (const name of others) {
      const path = join(copy, 'lib', name);
      writeFileSync(path, `${readFileSync(path, 'utf8')}\n// touched on the branch\n`);
    }
    git('commit', '-qam', 'twenty files');
    expect(git('diff', '--name-only', 'main', 'twenty').trim().split('\n')).toHaveLength(20);
    git('checkout', '-q', 'main');
    expect(await served(undefined)).toBeUndefined();

    git('checkout', '-q', 'twenty');
    expect(await served('branch')).toBe('branch');
    inPlace(marked('after-checkout'));
    expect(await served('after-checkout')).toBe('after-checkout');
    git('checkout', '-q', '--', HANDLER);
    git('checkout', '-q', 'main');
    expect(await served(undefined)).toBeUndefined();
  }, 120_000);
});
