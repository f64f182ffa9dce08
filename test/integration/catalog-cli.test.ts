import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashSecret } from '../../lib/auth/secrets';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { createRelease, putDocument } from '../../lib/pcm/publishing';
import { renderRelease } from '../../lib/pcm/render';
import { createCatalog, listReleases } from '../../lib/pcm/service';
import type { WriteCaller } from '../../lib/store/caller-check';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { childrenRelease, SAMPLE_COUNTS } from '../support/catalog-fixtures';
import { runCli, runCliAsync, runCliWith } from '../support/cli';
import { createTestStore, type TestStore, tokenFor } from '../support/fixtures';
import { newIntegration } from '../support/pcm-fixtures';
import { type ReceivedWebhook, startWebhookListener } from '../support/webhook-listener';

// Each case spawns the CLI (tsx compiles it first): seconds on a loaded 2-core machine.
jest.setTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), 'catalog-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each case starts the CLI (tsx, then the library) at least once: seconds on a loaded machine.
jest.setTimeout(60_000);

const catalogCli = (...args: string[]) => runCli('catalog', ...args);
/**
 * publish uses the run's object store, which the global setup serves from this process when the file runs
 * alone: a synchronous spawn would block it.
 */
/** The caller of the API's writes, as a request with the store's client_credentials token makes them. */
async function callerOf(store: TestStore): Promise<WriteCaller> {
  return { storeId: store.store.id, keyId: store.keyId, tokenHash: hashSecret(await tokenFor(store)) };
}

const publishCli = (...args: string[]) => runCliAsync(process.env, 'catalog', args);
/** 60,000 products of 1 KB (about 62 MB): larger than the heaps the tools are given below. */
const GENERATE_LARGE = ['generate', '--children', '60000', '--product-bytes', '1024'];
/** Publishing 60,000 products (about 240,000 items) into DynamoDB Local: minutes on a loaded 2-core machine. */
const LARGE_PUBLISH_MS = 8 * 60_000;

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('npm run catalog -- publish', () => {
  it('prints exactly one JSON object with --json', async () => {
    const store = await createTestStore();
    const run = await publishCli(
      'publish',
      '--store',
      store.store.id,
      '--file',
      file('ok.json', childrenRelease()),
      '--json',
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const output = JSON.parse(run.stdout);
    expect(Object.keys(output)).toEqual(['catalog_id', 'release_id', 'products', 'warnings']);
    expect(output.warnings).toEqual([]);
    // What the workflow's derive step counted and recorded on the release.
    expect(output.products).toEqual({
      total: 21,
      live: 16,
      draft: 5,
      parents: 3,
      children: 17,
      live_children: 13,
      standard: 1,
      bundles: 0,
    });
    const registry = await catalogRepository.getRegistry(store.store.id);
    expect(registry?.catalogs[output.catalog_id]?.release.id).toBe(output.release_id);
  });

  it('prints a summary without --json and no progress bar when stderr is not a terminal', async () => {
    const store = await createTestStore();
    const run = await publishCli(
      'publish',
      '--store',
      store.store.id,
      '--file',
      file('plain.json', childrenRelease()),
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^published release [0-9a-f-]{36} of catalog [0-9a-f-]{36}\n {2}products: 21 \(16 live, 5 draft\): 3 parents, 17 children \(13 live\), 1 standard, 0 bundles; 2 nodes\n {2}items written: \d+; old releases removed: 0\n$/,
    );
    expect(run.stderr).toBe('');
  });

  it("publishes through the API's workflow: the release and its catalog are the API's records", async () => {
    const store = await createTestStore();
    const path = file('api.json', childrenRelease({ catalogName: 'Through the pipeline' }));
    const first = await publishCli('publish', '--store', store.store.id, '--file', path, '--json');
    expect(first.status).toBe(0);
    const { catalog_id: catalogId, release_id: releaseId } = JSON.parse(first.stdout);
    // The catalog record the API lists, with the file as its document, and no publish holding it.
    const catalog = await pcmRepository.getCatalog(store.store.id, catalogId);
    expect(catalog).toMatchObject({ id: catalogId, name: 'Through the pipeline', description: '' });
    expect(catalog?.document).toMatchObject({ bytes: statSync(path).size });
    expect(catalog?.document?.key).toMatch(
      new RegExp(`^documents/${store.store.id}/${catalogId}/[0-9a-f-]{36}\\.json$`),
    );
    expect(catalog?.publishing).toBeUndefined();
    // The same file again (no catalog.id): the catalog of that name, a second release.
    const second = await publishCli('publish', '--store', store.store.id, '--file', path, '--json');
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout).catalog_id).toBe(catalogId);
    const secondId = JSON.parse(second.stdout).release_id;
    // GET /pcm/catalogs/{id}/releases: newest first, the second one current.
    const { releases, current } = await listReleases(store.store.id, catalogId);
    expect(current).toBe(secondId);
    const rendered = releases.map((release) =>
      renderRelease(release, 'http://api.test', release.release_id === current),
    );
    expect(
      rendered.map((release) => [release.id, (release.meta as Record<string, unknown>).release_status]),
    ).toEqual([
      [secondId, 'PUBLISHED'],
      [releaseId, 'PUBLISHED'],
    ]);
    expect(rendered[0]?.meta).toMatchObject({
      release_status: 'PUBLISHED',
      percent_completed: 100,
      total_products: 21,
      total_nodes: 2,
      current: true,
    });
    expect(rendered[1]?.meta).toMatchObject({ current: false });
  });

  it("delivers the release's created and updated events to the store's webhooks before it exits", async () => {
    const store = await createTestStore();
    const listener = await startWebhookListener();
    try {
      const id = await newIntegration(store.store.id, 'cli', listener.url, [
        'catalog-release.created',
        'catalog-release.updated',
      ]);
      const run = await publishCli(
        'publish',
        '--store',
        store.store.id,
        '--file',
        file('hooked.json', childrenRelease()),
        '--json',
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const { release_id: releaseId } = JSON.parse(run.stdout);
      // Both were delivered while the tool ran: nothing arrives after it exits.
      const trigger = (r: ReceivedWebhook) => r.headers['x-moltin-integration-trigger'];
      expect(listener.received.map(trigger).sort()).toEqual([
        'catalog-release.created',
        'catalog-release.updated',
      ]);
      const updated = listener.received.find((r) => trigger(r) === 'catalog-release.updated');
      expect(updated?.headers['x-moltin-secret-key']).toBe(`secret-of-${id}`);
      expect(updated?.body.payload.data).toMatchObject({
        id: releaseId,
        meta: { release_status: 'PUBLISHED' },
      });
    } finally {
      await listener.close();
    }
  });

  it('prints every validation error at once from the failed release, exits 1 and publishes nothing', async () => {
    const store = await createTestStore();
    const bad = childrenRelease();
    (bad.products[0] as { attributes: Record<string, unknown> }).attributes.slug = 'a b';
    (bad.products[2] as { attributes: Record<string, unknown> }).attributes.tags = ['x,y'];
    const path = file('bad.json', bad);
    const human = await publishCli('publish', '--store', store.store.id, '--file', path);
    expect(human.status).toBe(1);
    expect(human.stdout).toBe('');
    // The release the API shows FAILED is named: its ids are read from the line, then the line is compared whole.
    const [, releaseId, catalogId] =
      /\(release ([0-9a-f-]{36}) of catalog ([0-9a-f-]{36}) is FAILED\)\n/.exec(human.stderr) ?? [];
    expect(human.stderr.split('\n')).toEqual([
      `${path}: the release document has 2 errors; nothing was published (release ${releaseId} of catalog ${catalogId} is FAILED)`,
      '  products[0].attributes.slug: may only contain A-Z, a-z, 0-9, hyphen, underscore and period (slug)',
      '  products[2].attributes.tags[0]: tags must not contain commas (tags)',
      '',
    ]);
    const json = await publishCli('publish', '--store', store.store.id, '--file', path, '--json');
    expect(json.status).toBe(1);
    const errors = [
      {
        path: 'products[0].attributes.slug',
        rule: 'slug',
        message: 'may only contain A-Z, a-z, 0-9, hyphen, underscore and period',
      },
      { path: 'products[2].attributes.tags[0]', rule: 'tags', message: 'tags must not contain commas' },
    ];
    expect(JSON.parse(json.stdout)).toEqual({ errors, total: 2 });
    expect(await catalogRepository.getRegistry(store.store.id)).toBeUndefined();
    // The API shows the failed release with the same errors.
    const release = await pcmRepository.getRelease(store.store.id, catalogId as string, releaseId as string);
    expect(release).toMatchObject({ state: 'FAILED', errors_total: 2 });
    expect(release?.errors).toEqual(errors);
  });

  it('exits 1 for an unknown store and 2 for a file that is not there', async () => {
    const unknown = await publishCli(
      'publish',
      '--store',
      'no-such-store',
      '--file',
      file('u.json', childrenRelease()),
    );
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('store no-such-store does not exist\n');
    const missing = catalogCli('publish', '--store', 'x', '--file', join(dir, 'missing.json'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`cannot read ${join(dir, 'missing.json')}: no such file`);
  });

  it('is refused with exit 3 while a release of the API is being published for the catalog, storing nothing', async () => {
    const store = await createTestStore();
    const storeId = store.store.id;
    // The API's side: a catalog with a document and a release of it whose workflow runs elsewhere.
    registerLocalWorkflow(async () => undefined);
    const caller = await callerOf(store);
    const catalog = await createCatalog(storeId, { name: 'Busy' }, caller);
    await putDocument(storeId, catalog.id, Buffer.from(JSON.stringify(childrenRelease())), caller);
    const running = await createRelease(storeId, catalog.id, caller);
    const before = await pcmRepository.getCatalog(storeId, catalog.id);
    const run = await publishCli(
      'publish',
      '--store',
      storeId,
      '--file',
      file('busy.json', childrenRelease({ catalogId: catalog.id })),
    );
    expect(run.status).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `catalog: catalog ${catalog.id} is being published: release ${running.release_id} is PENDING (0%). A catalog publishes one release at a time; publish again once that one is PUBLISHED or FAILED (GET /pcm/catalogs/${catalog.id}/releases/${running.release_id}); one that makes no progress for 5 minutes is taken over. Nothing was stored.\n`,
    );
    // Neither the catalog's document nor its releases changed.
    expect(await pcmRepository.getCatalog(storeId, catalog.id)).toEqual(before);
    expect((await listReleases(storeId, catalog.id)).releases.map((r) => r.release_id)).toEqual([
      running.release_id,
    ]);
  });

  it(
    'streams a document of 60,000 products of 1 KB through the workflow in a CLI process of a 96 MB heap',
    async () => {
      // Generated as the docs say (about 62 MB). The CLI holds no more of it than a product at a time: it
      // scans it, streams it to the bucket in parts, and the workflow's steps (run in the CLI process)
      // validate and derive it as streams. Measured: it publishes with a 64 MB heap; with 56 its derive step
      // runs out of memory (validation passes with 48). 96 leaves room for a loaded machine's GC timing.
      const large = join(dir, 'publish-large.json');
      const generated = await runCliAsync(process.env, 'catalog', [...GENERATE_LARGE, '--out', large]);
      expect(generated.status).toBe(0);
      const store = await createTestStore();
      const run = await runCliAsync(
        { ...process.env, NODE_OPTIONS: '--max-old-space-size=96' },
        'catalog',
        ['publish', '--store', store.store.id, '--file', large, '--json'],
        { timeoutMs: LARGE_PUBLISH_MS },
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const output = JSON.parse(run.stdout);
      expect(output.products).toEqual({
        total: 60_002,
        live: 60_002,
        draft: 0,
        parents: 1,
        children: 60_000,
        live_children: 60_000,
        standard: 1,
        bundles: 0,
      });
      const release = await pcmRepository.getRelease(store.store.id, output.catalog_id, output.release_id);
      expect(release).toMatchObject({ state: 'PUBLISHED', total_products: 60_002 });
      expect(release?.written_items).toBe(release?.total_items);
      rmSync(large);
    },
    LARGE_PUBLISH_MS + 60_000,
  );
});

describe('npm run catalog -- generate', () => {
  it('writes a valid document with the requested live children', () => {
    const out = join(dir, 'generated.json');
    const run = catalogCli('generate', '--children', '150', '--drafts', '5', '--out', out);
    expect(run.status).toBe(0);
    const document = JSON.parse(readFileSync(out, 'utf8'));
    const result = validateRelease(document);
    expect(result.ok).toBe(true);
    const products = document.products as { attributes: { status: string; base_product_id?: string } }[];
    const children = products.filter((p) => p.attributes.base_product_id !== undefined);
    expect(children.filter((p) => p.attributes.status === 'live')).toHaveLength(150);
    expect(children.filter((p) => p.attributes.status === 'draft')).toHaveLength(5);
    expect(run.stderr).toBe(`wrote ${out} (157 products)\n`);
  });

  it('makes every product at least --product-bytes long, and the document stays valid', () => {
    const run = catalogCli('generate', '--children', '40', '--parents', '2', '--product-bytes', '2048');
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(validateRelease(document).ok).toBe(true);
    const sizes = (document.products as unknown[]).map((p) => Buffer.byteLength(JSON.stringify(p)));
    expect(sizes).toHaveLength(83);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(2048);
    // Filled with words up to the size, not far past it.
    expect(Math.max(...sizes)).toBeLessThan(2048 + 20);
  });

  it('writes a document far larger than its heap: product by product, never the whole text at once', () => {
    // 60,000 products of 1 KB (about 62 MB) from a process allowed a 48 MB heap: building the document as
    // one object and one string, as generate did before, runs out of memory.
    const out = join(dir, 'large.json');
    const run = runCliWith(
      { ...process.env, NODE_OPTIONS: '--max-old-space-size=48' },
      'catalog',
      ...GENERATE_LARGE,
      '--out',
      out,
    );
    expect(run.stderr).toBe(`wrote ${out} (60002 products)\n`);
    expect(run.status).toBe(0);
    expect(statSync(out).size).toBeGreaterThan(60_000 * 1024);
    // Whole and well-formed (the small documents above are parsed and validated): every product, then the end.
    const text = readFileSync(out, 'latin1');
    expect(text.match(/"sku":"GEN-/g)).toHaveLength(60_002);
    expect(text.endsWith('}]}\n')).toBe(true);
  });

  it('says in --help that --children is per parent, and how many products it wrote', () => {
    const help = catalogCli('generate', '--help');
    expect(help.stdout).toContain(
      [
        '      little memory. --children and --drafts are per parent: the document holds',
        '      parents x (children + drafts + 1) + 1 products (one standalone product), and says how many on',
        '      stderr once written; --children 30000 --parents 30 is 900,031 products (about 347 MB).',
      ].join('\n'),
    );
    const run = catalogCli('generate', '--children', '4', '--drafts', '1', '--parents', '3');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).products).toHaveLength(19);
    expect(run.stderr).toBe('wrote 19 products to stdout\n');
  });

  it('refuses a --product-bytes past what a description can hold', () => {
    const run = catalogCli('generate', '--children', '1', '--product-bytes', '16001');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--product-bytes must be an integer from 0 to 16000, got '16001'");
  });
});

describe('npm run catalog -- validate', () => {
  const sampleFile = join(__dirname, '../../catalog/sample-release.json');

  it('checks a document without a database: exit 0, a summary, or one JSON object with --json', () => {
    const endpoint = process.env.DYNAMODB_ENDPOINT;
    // Nothing listens there: validate must not need DynamoDB.
    process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
    try {
      const human = catalogCli('validate', '--file', sampleFile);
      expect(human.status).toBe(0);
      expect(human.stderr).toBe('');
      expect(human.stdout).toBe(
        `${sampleFile}: valid; products: 14 (11 live, 3 draft): 2 parents, 9 children (7 live), 2 standard, 1 bundle; 105 items to write\n`,
      );
      const json = catalogCli('validate', '--file', sampleFile, '--json');
      expect(json.status).toBe(0);
      expect(json.stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(json.stdout)).toEqual({
        valid: true,
        products: SAMPLE_COUNTS,
        items: 105,
      });
    } finally {
      process.env.DYNAMODB_ENDPOINT = endpoint;
    }
  });

  it('prints every error with its path and rule and exits 1', () => {
    const bad = childrenRelease();
    (bad.products[0] as { attributes: Record<string, unknown> }).attributes.slug = 'a b';
    (bad.products[2] as { attributes: Record<string, unknown> }).attributes.tags = ['x,y'];
    (bad.products[3] as { attributes: Record<string, unknown> }).attributes.sku = (
      bad.products[4] as { attributes: { sku: string } }
    ).attributes.sku;
    const path = file('invalid.json', bad);
    const human = catalogCli('validate', '--file', path);
    expect(human.status).toBe(1);
    expect(human.stdout).toBe('');
    const sku = (bad.products[4] as { attributes: { sku: string } }).attributes.sku;
    expect(human.stderr).toBe(
      [
        `${path}: the release document has 3 errors`,
        '  products[0].attributes.slug: may only contain A-Z, a-z, 0-9, hyphen, underscore and period (slug)',
        '  products[2].attributes.tags[0]: tags must not contain commas (tags)',
        `  products[4].attributes.sku: sku ${JSON.stringify(sku)} is also used by products[3] (unique)`,
        '',
      ].join('\n'),
    );
    const json = catalogCli('validate', '--file', path, '--json');
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, total: 3 });
    expect(
      JSON.parse(json.stdout).errors.map((e: { path: string; rule: string }) => [e.path, e.rule]),
    ).toEqual([
      ['products[0].attributes.slug', 'slug'],
      ['products[2].attributes.tags[0]', 'tags'],
      ['products[4].attributes.sku', 'unique'],
    ]);
  });

  it('--stream is still accepted and changes nothing: the same errors, the same summary, line and column for bad JSON', () => {
    const bad = childrenRelease();
    (bad.products[0] as { attributes: Record<string, unknown> }).attributes.slug = 'a b';
    (bad.products[3] as { attributes: Record<string, unknown> }).attributes.sku = (
      bad.products[4] as { attributes: { sku: string } }
    ).attributes.sku;
    const path = file('invalid-streamed.json', bad);
    const plain = catalogCli('validate', '--file', path, '--json');
    const streamed = catalogCli('validate', '--file', path, '--json', '--stream');
    expect(streamed.status).toBe(1);
    expect(streamed.stdout).toBe(plain.stdout);
    for (const args of [[], ['--json']]) {
      const valid = catalogCli('validate', '--file', sampleFile, '--stream', ...args);
      expect(valid.status).toBe(0);
      expect(valid.stdout).toBe(catalogCli('validate', '--file', sampleFile, ...args).stdout);
    }
    const broken = join(dir, 'broken-streamed.json');
    writeFileSync(broken, '{"catalog": {"name": "x"},\n "products": [{"id": 1},]}');
    for (const args of [[], ['--stream']]) {
      const syntax = catalogCli('validate', '--file', broken, ...args);
      expect(syntax.status).toBe(2);
      expect(syntax.stderr).toBe(
        `catalog: cannot read ${broken}: line 2, column 25: expected a value in "products", not ']' (see --help)\n`,
      );
    }
  });

  it('validates a document larger than its heap, a product at a time: 30,000 products of 1 KB under a 64 MB heap', () => {
    // About 31 MB: read whole (the text, then its objects) it needs several times that and runs out of
    // memory; streamed, it holds a product at a time and the compact keys of the checks across products.
    const large = join(dir, 'validate-large.json');
    const generated = catalogCli(
      'generate',
      '--children',
      '30000',
      '--product-bytes',
      '1024',
      '--out',
      large,
    );
    expect(generated.status).toBe(0);
    expect(statSync(large).size).toBeGreaterThan(30_000 * 1024);
    const run = runCliWith(
      { ...process.env, NODE_OPTIONS: '--max-old-space-size=64' },
      'catalog',
      'validate',
      '--file',
      large,
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      `${large}: valid; products: 30002 (30002 live, 0 draft): 1 parent, 30000 children (30000 live), 1 standard, 0 bundles; 121382 items to write\n`,
    );
    rmSync(large);
  });

  it('usage errors are one line on stderr and exit 2; --help prints the usage and exits 0', () => {
    for (const [args, message] of [
      [['--file', sampleFile, '--bogus'], "catalog: Unknown option '--bogus'"],
      [[], 'catalog: validate needs --file: npm run catalog -- validate --file release.json [--json]'],
      [['--file', ''], 'catalog: --file needs a value'],
      [['--file'], "catalog: Option '--file <value>' argument missing"],
      [['--file', join(dir, 'none.json')], `catalog: cannot read ${join(dir, 'none.json')}: no such file`],
      [['--file', sampleFile, 'extra'], "catalog: unexpected argument 'extra'"],
    ] as const) {
      const run = catalogCli('validate', ...args);
      expect([args, run.status]).toEqual([args, 2]);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')).toHaveLength(2);
      expect(run.stderr.startsWith(message)).toBe(true);
    }
    for (const flag of ['--help', '-h']) {
      const help = catalogCli('validate', flag);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('npm run catalog -- validate --file release.json [--json]');
      expect(help.stdout).toContain('--stream, which chose the streamed reading before it was the only one,');
      expect(help.stderr).toBe('');
    }
  });
});
