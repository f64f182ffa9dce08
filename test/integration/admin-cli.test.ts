import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { issueAccessToken } from '../../lib/auth/issue-token';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { storeRepository } from '../../lib/store/store-repository';
import { count } from '../../local/messages';
import { DEMO } from '../../local/seed';
import { runCli, runCliAsync } from '../support/cli';
import { createTestStore } from '../support/fixtures';

// Each case spawns the CLI (tsx compiles it first): seconds on a loaded 2-core machine.
jest.setTimeout(60_000);

const adminCli = (...args: string[]) => runCli('admin', ...args);

// Each case starts the CLI (tsx, then the library) at least once: seconds on a loaded machine, where
// the default 5 s failed.
jest.setTimeout(60_000);

describe('npm run admin -- create-store', () => {
  it('prints one JSON object with working credentials and creates the store and its mapping', async () => {
    const run = adminCli('create-store', '--name', 'CLI store', '--json');
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const output = JSON.parse(run.stdout);
    expect(Object.keys(output)).toEqual(['store_id', 'client_id', 'client_secret', 'mapping_id']);
    const store = await storeRepository.get(output.store_id, true);
    expect(store).toMatchObject({ name: 'CLI store', key_count: 1, mapping_id: output.mapping_id });
    // The first (admin) key reserves 20% of the default 100 requests/s.
    expect(store?.reserved_rate_limit_total).toBe(20);
    expect(await mappingRepository.get(output.mapping_id)).toMatchObject({
      store_id: output.store_id,
      prefix: null,
    });
    const token = await issueAccessToken({
      grant_type: 'client_credentials',
      client_id: output.client_id,
      client_secret: output.client_secret,
    });
    expect(token.identifier).toBe('client_credentials');
  });

  it('prints name: value lines without --json, with the note on stderr', () => {
    const run = adminCli('create-store', '--name', 'Plain store', '--page-length', '10');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^store_id: +\S+\nclient_id: +[0-9a-f]{40}\nclient_secret: +\S{43}\nmapping_id: +\S+\n$/,
    );
    expect(run.stderr).toContain('The client secret is shown only now');
  });

  it.each([
    [['create-store'], 2, 'create-store needs --name'],
    [
      ['create-store', '--name', 'x', '--page-length', '101'],
      2,
      '--page-length must be an integer from 1 to 100',
    ],
    [['create-store', '--name', 'x', '--bogus'], 2, "Unknown option '--bogus'"],
    [['create-store', '--name'], 2, "Option '--name <value>' argument missing"],
    [['create-store', '--name', 'x', '--store', 'y'], 2, 'create-store does not take --store'],
    [
      ['create-key', '--store', '00000000-0000-7000-8000-000000000000'],
      1,
      'no store with id 00000000-0000-7000-8000-000000000000',
    ],
    [['rotate-everything'], 2, "unknown command 'rotate-everything'"],
  ])('fails for %p with exit %p and a one-line message', (args, status, message) => {
    const run = adminCli(...(args as string[]));
    expect(run.status).toBe(status);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('npm run admin -- create-key', () => {
  it('adds a key to a store that lost all of its keys', async () => {
    const created = JSON.parse(adminCli('create-store', '--name', 'Keyless', '--json').stdout);
    const run = adminCli('create-key', '--store', created.store_id, '--name', 'Recovery', '--json');
    expect(run.status).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(Object.keys(output)).toEqual(['store_id', 'key_id', 'client_id', 'client_secret']);
    expect((await storeRepository.get(created.store_id, true))?.key_count).toBe(2);
  });
});

describe('npm run admin -- set-rate-limit', () => {
  // Each test starts one or two CLI processes (tsx compiles on the way): seconds on a busy machine.
  jest.setTimeout(30_000);

  it('sets the store limit and prints exactly one JSON object with --json', async () => {
    const { store } = await createTestStore({ rate_limit: 100 });
    const run = adminCli('set-rate-limit', '--store', store.id, '250', '--json');
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual({
      store_id: store.id,
      rate_limit: 250,
      total_reserved_rate_limit: 0,
    });
    expect((await storeRepository.get(store.id, true))?.rate_limit).toBe(250);
  });

  it('prints name: value lines without --json, and usage on stdout with --help / -h', () => {
    const help = adminCli('set-rate-limit', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: npm run admin -- set-rate-limit --store STORE_ID N');
    expect(adminCli('set-rate-limit', '-h').stdout).toBe(help.stdout);
  });

  it('refuses a limit below what the keys reserve, and changes nothing (exit 1)', async () => {
    const { store } = await createTestStore({ rate_limit: 100 });
    await applicationKeyRepository.create(store.id, { name: 'reserving', reserved_rate_limit: 40 });
    const run = adminCli('set-rate-limit', '--store', store.id, '39');
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('reserve 40 requests/s together, more than 39');
    expect((await storeRepository.get(store.id, true))?.rate_limit).toBe(100);
    const exact = adminCli('set-rate-limit', '--store', store.id, '40');
    expect(exact.status).toBe(0);
    expect(exact.stdout).toMatch(/^store_id: +\S+\nrate_limit: +40\ntotal_reserved_rate_limit: +40\n$/);
  });

  it('answers exit 1 for an unknown store', () => {
    const run = adminCli('set-rate-limit', '--store', '00000000-0000-7000-8000-000000000000', '10');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('admin: no store with id 00000000-0000-7000-8000-000000000000\n');
  });

  it.each([
    [['--store', 'S', '10', '--fast'], "Unknown option '--fast'"],
    [['--store'], "Option '--store <value>' argument missing"],
    [['10'], 'set-rate-limit needs --store STORE_ID'],
    [['--store', 'S'], 'set-rate-limit needs exactly one rate limit N'],
    [['--store', 'S', '10', '20'], 'set-rate-limit needs exactly one rate limit N'],
    [['--store', 'S', '0'], 'the rate limit must be an integer from 1 to 100000, got "0"'],
    [['--store', 'S', '2.5'], 'the rate limit must be an integer from 1 to 100000, got "2.5"'],
  ])('rejects %p with one line on stderr and exit 2', (args, message) => {
    const run = adminCli('set-rate-limit', ...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(message);
  });
});

describe('npm run admin -- set-channel-header', () => {
  // Each test starts CLI processes (tsx compiles on the way): seconds on a busy machine.
  jest.setTimeout(30_000);

  it('makes the channel header optional and required again, printing one JSON object with --json', async () => {
    const { store } = await createTestStore();
    expect((await storeRepository.get(store.id, true))?.channel_required).toBeUndefined();
    const optional = adminCli('set-channel-header', '--store', store.id, 'optional', '--json');
    expect(optional.status).toBe(0);
    expect(JSON.parse(optional.stdout)).toEqual({ store_id: store.id, channel_required: false });
    expect((await storeRepository.get(store.id, true))?.channel_required).toBe(false);
    const required = adminCli('set-channel-header', '--store', store.id, 'required');
    expect(required.status).toBe(0);
    expect(required.stdout).toMatch(/^store_id: +\S+\nchannel_required: +true\n$/);
    expect((await storeRepository.get(store.id, true))?.channel_required).toBe(true);
  });

  it('answers exit 1 for an unknown store and exit 2 for a wrong value, changing nothing', () => {
    const unknown = adminCli(
      'set-channel-header',
      '--store',
      '00000000-0000-7000-8000-000000000000',
      'optional',
    );
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('no store with id 00000000-0000-7000-8000-000000000000\n');
    const wrong = adminCli('set-channel-header', '--store', 'S', 'maybe');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('set-channel-header needs exactly one of required or optional');
    const help = adminCli('set-channel-header', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(
      'Usage: npm run admin -- set-channel-header --store STORE_ID required|optional',
    );
  });
});

describe('npm run admin -- reset-demo', () => {
  // Tables of its own: the reset empties every table it is given, and other files use the test tables.
  const env = {
    ...process.env,
    KEYS_TABLE: 'reset-demo-keys',
    MAPPINGS_TABLE: 'reset-demo-mappings',
    PRODUCTS_TABLE: 'reset-demo-products',
    LIMITS_TABLE: 'reset-demo-limits',
  };
  const tables = [env.KEYS_TABLE, env.MAPPINGS_TABLE, env.PRODUCTS_TABLE, env.LIMITS_TABLE];
  const client = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  afterAll(() => client.destroy());

  /** Every item's `pk` in each of the reset's tables. */
  async function partitionsByTable(): Promise<Record<string, string[]>> {
    const found: Record<string, string[]> = {};
    for (const table of tables) {
      const pks: string[] = [];
      let start: Record<string, never> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({ TableName: table, ProjectionExpression: 'pk', ExclusiveStartKey: start }),
        );
        for (const item of page.Items ?? []) pks.push(item.pk?.S as string);
        start = page.LastEvaluatedKey as typeof start;
      } while (start);
      found[table] = pks;
    }
    return found;
  }

  /** Every item's `pk` in the reset's tables. */
  async function partitions(): Promise<string[]> {
    return Object.values(await partitionsByTable()).flat();
  }

  it("drops every item of a published catalog's releases with the tables, saying what each table held", async () => {
    const first = await runCliAsync(env, 'admin', ['reset-demo']);
    expect(first.status).toBe(0);
    const seeded = (await partitions()).length;
    const document = join(mkdtempSync(join(tmpdir(), 'reset-demo-')), 'catalog.json');
    const generated = await runCliAsync(env, 'catalog', ['generate', '--children', '400', '--out', document]);
    expect(generated.status).toBe(0);
    const published = await runCliAsync(env, 'catalog', [
      'publish',
      '--store',
      DEMO.storeId,
      '--file',
      document,
      '--json',
    ]);
    expect(published.status).toBe(0);
    const { release_id: releaseId } = JSON.parse(published.stdout);
    const byTable = await partitionsByTable();
    const held = Object.fromEntries(Object.entries(byTable).map(([table, pks]) => [table, pks.length]));
    const before = Object.values(byTable).flat();
    const ofRelease = (pks: string[]) => pks.filter((pk) => pk.startsWith(`REL#${releaseId}#`));
    expect(ofRelease(before).length).toBeGreaterThan(400);

    const run = await runCliAsync(env, 'admin', ['reset-demo']);
    expect(run.status).toBe(0);
    // Each table is dropped whole (no item read one by one), named on stderr with what it held.
    expect(run.stderr).toBe(
      tables
        .map((table) => `reset-demo: dropping table ${table} (${count(held[table] ?? 0, 'item')})\n`)
        .join(''),
    );
    expect(run.stdout).toBe(
      `demo reset at ${process.env.DYNAMODB_ENDPOINT}: ${before.length} items deleted, demo store ${DEMO.storeId} seeded again\n`,
    );
    const after = await partitions();
    expect(ofRelease(after)).toEqual([]);
    // Only the demo again, as the first reset left it.
    expect(after.length).toBe(seeded);
  }, 180_000);
});
