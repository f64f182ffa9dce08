import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { type PcmRelease, pcmRepository } from '../../lib/store/pcm-repository';
import { freePort } from '../../local/dynamodb-local';
import { count, parseJson } from '../../local/messages';
import { runCli, runCliAsync, runCliWith } from '../support/cli';
import { createTestStore } from '../support/fixtures';

/** What the local tools say when something goes wrong: one language, each message saying what to do. */
jest.setTimeout(90_000);

const ROOT = join(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'tool-messages-'));

describe('counts and JSON syntax errors', () => {
  it('writes 1 parent, 2 parents, 1 child, 0 children', () => {
    expect([
      count(1, 'parent'),
      count(2, 'parent'),
      count(1, 'child', 'children'),
      count(0, 'child', 'children'),
    ]).toEqual(['1 parent', '2 parents', '1 child', '0 children']);
  });

  it('gives a JSON syntax error by line and column', () => {
    expect(() => parseJson('{\n  "a": 1,\n}')).toThrow(
      new SyntaxError('line 3, column 1: Expected double-quoted property name'),
    );
    expect(() => parseJson('{"a":')).toThrow(
      new SyntaxError('line 1, column 6: Unexpected end of JSON input'),
    );
    expect(parseJson('{"a": [1]}')).toEqual({ a: [1] });
  });

  it.each([
    [
      'in a value',
      '{\n  "catalog": {\n    "name": "x",\n  }\n}\n',
      'line 4, column 3: the value of "catalog": Expected double-quoted property name',
    ],
    [
      'between the elements of an array',
      '{"catalog": {"name": "x"},\n "products": [1,]}',
      'line 2, column 17: expected a value in "products", not \']\'',
    ],
    [
      'in a file that is not JSON',
      'hello world\n',
      "line 1, column 1: a release document is a JSON object, not 'h'",
    ],
  ])('catalog validate names the line and column of a syntax error %s', (_, text, reason) => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, text);
    const run = runCli('catalog', 'validate', '--file', path);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`catalog: cannot read ${path}: ${reason} (see --help)\n`);
  });
});

describe('a database that is not there', () => {
  it('catalog explains like admin does', async () => {
    const port = String(await freePort());
    const env = { ...process.env, DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` };
    const message = `cannot reach the tables at http://127.0.0.1:${port}: is \`npm start\` running? (ECONNREFUSED)`;
    const catalog = runCliWith(env, 'catalog', 'cleanup', '--store', 'S');
    expect(catalog.status).toBe(1);
    expect(catalog.stderr).toBe(`catalog: ${message}\n`);
    const admin = runCliWith(env, 'admin', 'create-store', '--name', 'x');
    expect(admin.status).toBe(1);
    expect(admin.stderr).toBe(`admin: ${message}\n`);
  });
});

describe('admin set-rate-limit', () => {
  it('keeps the admin: prefix on a refusal', () => {
    const run = runCli('admin', 'set-rate-limit', '--store', '00000000-0000-7000-8000-000000000000', '10');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('admin: no store with id 00000000-0000-7000-8000-000000000000\n');
  });
});

describe('npm run dev -- --bogus', () => {
  it('says dev:, and npm start -- --bogus says start:', () => {
    const dev = runCli('start', '--reload', '--bogus');
    expect(dev.status).toBe(2);
    expect(dev.stderr).toBe("dev: Unknown option '--bogus' (see --help)\n");
    const start = runCli('start', '--bogus');
    expect(start.status).toBe(2);
    expect(start.stderr).toBe("start: Unknown option '--bogus' (see --help)\n");
  });
});

describe('npm start: its three ports', () => {
  /** npm start's environment with nothing given by URL: it would start DynamoDB Local and the object store. */
  const startEnv = (ports: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
    const env = { ...process.env, ...ports };
    delete env.DYNAMODB_ENDPOINT;
    delete env.S3_ENDPOINT;
    return env;
  };

  it.each(['PORT', 'DYNAMODB_PORT', 'S3_PORT'])(
    'refuses %s out of range or not a number, before starting anything (exit 2)',
    (name) => {
      for (const value of ['70000', 'abc', '0']) {
        const run = runCliWith(startEnv({ [name]: value }), 'start', '--in-memory');
        expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
          status: 2,
          stdout: '',
          stderr: `start: ${name} must be a port number from 1 to 65535, got '${value}' (see --help)\n`,
        });
      }
    },
  );

  it.each([
    ['PORT', ''],
    ['DYNAMODB_PORT', ', or DYNAMODB_ENDPOINT to use the database already there'],
    ['S3_PORT', ', or S3_ENDPOINT to use the object store already there'],
  ])(
    'says which variable to change when %s is taken, before starting anything (exit 1)',
    async (name, instead) => {
      const taken = createServer();
      await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
      const port = (taken.address() as AddressInfo).port;
      try {
        const free = {
          PORT: String(await freePort()),
          DYNAMODB_PORT: String(await freePort()),
          S3_PORT: String(await freePort()),
        };
        const run = runCliWith(startEnv({ ...free, [name]: String(port) }), 'start', '--in-memory');
        expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
          status: 1,
          stdout: '',
          stderr: `start: port ${port} (${name}) is already in use: set ${name} to another port${instead}\n`,
        });
      } finally {
        await new Promise((done) => taken.close(done));
      }
    },
  );

  it('refuses one port given to two of them', () => {
    const run = runCliWith(startEnv({ PORT: '3401', DYNAMODB_PORT: '3401' }), 'start', '--in-memory');
    expect({ status: run.status, stderr: run.stderr }).toEqual({
      status: 2,
      stderr: 'start: PORT and DYNAMODB_PORT are both 3401: give each its own port (see --help)\n',
    });
  });
});

describe('npm run smoke against a closed port', () => {
  it('says connection refused at the URL for every check, not "fetch failed"', async () => {
    const base = `http://127.0.0.1:${await freePort()}`;
    const run = runCli('smoke', '--base', base, '--client-id', 'c', '--client-secret', 's');
    expect(run.status).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^0 passed, \d+ failed$/);
    // Each check that calls the API says why it failed; the ones that need its answer are not run.
    const refused = lines.filter((line) =>
      line.includes(`: connection refused at ${base}: is the API running? (`),
    );
    // A check that is not run does no I/O, but on a loaded machine (a GC pause, a busy core) it can still
    // take a millisecond: its time is any number (this test once failed in a loaded run expecting 0 ms).
    const notRun = lines.filter((line) =>
      /^FAIL {2}.+: not run: the (admin token|create) failed \(\d+ ms\)$/.test(line),
    );
    expect(refused.length).toBeGreaterThanOrEqual(4);
    // Every line but the summary is one of the two: any other is shown whole.
    expect(lines.slice(0, -1).filter((line) => !refused.includes(line) && !notRun.includes(line))).toEqual(
      [],
    );
    expect(run.stdout).not.toContain('fetch failed');
  });
});

describe('Ctrl-C during catalog publish', () => {
  it('fails the release at once and says so; cleanup removes what it wrote', async () => {
    const store = await createTestStore();
    const release = join(dir, 'large.json');
    const generated = runCli('catalog', 'generate', '--children', '20000', '--out', release);
    expect(generated.status).toBe(0);
    // node with tsx as its loader, one process: the tsx CLI would run the tool in a child process and, when
    // the signal reaches the CLI alone, relay it and SIGKILL the child unless it confirms within 30 ms: on a
    // loaded machine the child died before its message (exit 130, empty stderr). A terminal's Ctrl-C reaches
    // both processes at once, so users never meet that path.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'local/catalog.ts', 'publish', '--store', store.store.id, '--file', release],
      { cwd: ROOT, env: process.env },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // 'close', not 'exit': at 'exit' the child's stderr may still hold the message (seen on a loaded machine).
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    const deadline = Date.now() + 60_000;
    // Interrupted once it writes items, as a user would press Ctrl-C at the progress bar.
    let markers = await catalogRepository.listReleases(store.store.id);
    while ((markers[0] as PcmRelease | undefined)?.written_items === undefined) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`publish never started writing: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
      markers = await catalogRepository.listReleases(store.store.id);
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const marker = markers[0] as PcmRelease;
    expect(stderr).toBe(
      `\ncatalog: SIGINT: publish interrupted; release ${marker.release_id} of catalog ${marker.catalog_id} is FAILED and never went live (the current release still serves). \`npm run catalog -- cleanup --store ${store.store.id}\` removes what it wrote; so does the next publish of the catalog.\n`,
    );
    // Fenced (no switch can follow), FAILED as the API shows it, and the catalog free for the next publish.
    const failed = await pcmRepository.getRelease(store.store.id, marker.catalog_id, marker.release_id);
    expect(failed).toMatchObject({
      status: 'abandoned',
      state: 'FAILED',
      errors: [
        {
          path: '',
          rule: 'interrupted',
          message: 'the publish was interrupted (SIGINT) before the release went live; publish again',
        },
      ],
    });
    expect((await pcmRepository.getCatalog(store.store.id, marker.catalog_id))?.publishing).toBeUndefined();
    expect(await catalogRepository.getRegistry(store.store.id)).toBeUndefined();

    const plain = runCli('catalog', 'cleanup', '--store', store.store.id);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toMatch(/^removed 1 release \(\d+ items\)\n$/);
    expect(await catalogRepository.listReleases(store.store.id)).toEqual([]);
  });
});

describe('an object store that is not there', () => {
  it('catalog publish says which and what to start, and stores nothing', async () => {
    const store = await createTestStore();
    const port = String(await freePort());
    const path = join(dir, 'no-bucket.json');
    writeFileSync(path, JSON.stringify({ catalog: { name: 'Nowhere' }, products: [] }));
    const run = await runCliAsync({ ...process.env, S3_ENDPOINT: `http://127.0.0.1:${port}` }, 'catalog', [
      'publish',
      '--store',
      store.store.id,
      '--file',
      path,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `catalog: cannot reach the object store at http://127.0.0.1:${port}: is \`npm start\` running? (ECONNREFUSED)\n`,
    );
    expect(await pcmRepository.listCatalogs(store.store.id)).toEqual([]);
  });
});

describe('admin reset-demo', () => {
  // Its effect (empty tables, the demo seeded again) is proven by the docs test, whose every page starts
  // with it; here only what must never happen: it refuses the deployed tables and wrong arguments.
  it('never runs against AWS, and takes no options', () => {
    const aws = runCliWith({ ...process.env, DYNAMODB_ENDPOINT: 'aws' }, 'admin', 'reset-demo');
    expect(aws.status).toBe(2);
    expect(aws.stderr).toBe(
      'admin: reset-demo empties the tables: it never runs against AWS (DYNAMODB_ENDPOINT=aws) (see --help)\n',
    );
    const option = runCli('admin', 'reset-demo', '--json');
    expect(option.status).toBe(2);
    expect(option.stderr).toBe('admin: reset-demo does not take --json (see --help)\n');
  });
});
