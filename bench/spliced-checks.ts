import { rmSync } from 'node:fs';
import { CHILD_CHUNK_SIZE } from '../lib/catalog/child-index';
import { DERIVE_RANGE_BYTES, DERIVE_RANGE_PRODUCTS, planRelease } from '../lib/catalog/derive-stream';
import { FILTER_INDEX_VERSION } from '../lib/catalog/filter-index';
import { generateParts } from '../lib/catalog/generator';
import { readLines } from '../lib/catalog/pipeline/codec';
import { memoTimes, type RangeBytes, RangeHasher } from '../lib/catalog/pipeline/derive-memo';
import { catalogHead } from '../lib/catalog/pipeline/export';
import {
  type ExportTrailer,
  familyLine,
  INDEX_FORMAT,
  readFamilies,
} from '../lib/catalog/pipeline/export-index';
import { type SpliceFacts, type SplicePlan, writeExport } from '../lib/catalog/pipeline/export-splice';
import {
  type KeptPlanMeta,
  planSpliced,
  SPLICED_CHECKS_VERSION,
  validateSpliced,
} from '../lib/catalog/pipeline/spliced-checks';
import { RELEASE_SHARDS } from '../lib/catalog/release-settings';
import { validateReleaseStream } from '../lib/catalog/validate-stream';
import { resetConfig } from '../lib/config/index';
import { objectStore } from '../lib/store/object-store';
import { DEFAULT_CURRENCIES } from '../lib/store/store-repository';
import { freePort } from '../local/dynamodb-local';
import { startObjectStoreThread } from '../local/object-store-thread';
import { intOption, progress, round, runAsScript } from './support';

/**
 * The `spliced` stage: what a one-product change costs Export, Validate and Plan at a catalog's size, on
 * the local object store (its own thread, as `npm start` runs it), without the DynamoDB around them (the
 * `delta` stage publishes through the API; building a million authored products there takes over an
 * hour). A generated document of N products is the release before's: its index (one family a product)
 * and its plan made whole, as its publish made them. Then one product's description is changed, and:
 *
 * - Export's part that grows with the catalog: finding the family in the index (every line read, as
 *   `planSplice` does), then writing the spliced document (server-side copies around the family), its index
 *   moved and its trailer (`writeExport`);
 * - Validate and Plan by what was written again (spliced-checks.ts), against reading the whole document
 *   (`validateReleaseStream`, `planRelease` with every range hashed), whose plan must be the same.
 *
 *   npx tsx bench/spliced-checks.ts --products 1000000 [--product-bytes 600]
 */

const BEFORE = '2026-11-28T08:00:00.000Z';
const NOW = '2026-11-28T09:00:00.000Z';
const CATALOG_ID = '01900000-0000-7000-8000-0000000000cc';
const CATALOG = { id: CATALOG_ID, name: 'Spliced' };
const layoutAt = (publishedAt: string, id: string) => ({
  id,
  shards: RELEASE_SHARDS,
  chunk_size: CHILD_CHUNK_SIZE,
  published_at: publishedAt,
  filter_index: FILTER_INDEX_VERSION,
});
const meta: KeptPlanMeta = {
  version: SPLICED_CHECKS_VERSION,
  range_bytes: DERIVE_RANGE_BYTES,
  range_products: DERIVE_RANGE_PRODUCTS,
};

export interface SplicedFigures {
  products: number;
  document_mb: number;
  export_s: { find_family: number; write: number };
  validate_s: { whole: number; spliced: number };
  plan_s: { whole: number; spliced: number; ranges: number; ranges_read: number };
  peak_rss_mb: number;
}

const seconds = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, round((performance.now() - started) / 1000, 3)];
};

/** The plan of the whole document at `key`, every range hashed, as Plan makes it. */
async function wholePlan(key: string, publishedAt: string, times: string[]) {
  const hashers: RangeHasher[] = [];
  const { plan } = await planRelease({
    open: () => objectStore.read(key),
    catalogId: CATALOG_ID,
    layout: layoutAt(publishedAt, publishedAt),
    storeCurrencies: DEFAULT_CURRENCIES,
    rangeBytes: meta.range_bytes,
    rangeProducts: meta.range_products,
    onRangeBytes: (n, piece) => {
      hashers[n] ??= new RangeHasher(times);
      hashers[n].update(piece);
    },
  });
  return { plan, bytes: plan.ranges.map((range) => hashers[range.n]?.done() as RangeBytes) };
}

export async function measureSplicedChecks(options: {
  products: number;
  productBytes: number;
}): Promise<SplicedFigures> {
  const port = await freePort();
  const store = await startObjectStoreThread({ port });
  process.env.S3_ENDPOINT = store.endpoint;
  resetConfig();
  try {
    // The document as an authored export writes it, with its index: one line a product, each its family.
    const parents = Math.max(1, Math.floor(options.products / 100));
    const parts = generateParts({
      parents,
      children: Math.max(1, Math.floor(options.products / parents) - 1),
      seed: 5,
      catalogName: 'Spliced',
      productBytes: options.productBytes,
    });
    const indexLines: string[] = [];
    const changedAt = Math.floor(options.products / 2);
    let changed: { id: string; offset: number; text: string } | undefined;
    let offset = 0;
    let run: [number, number] = [0, 0];
    async function* documentText(): AsyncGenerator<string> {
      const { catalog: _catalog, $schema: _schema, ...rest } = parts.head;
      const head = `${catalogHead(CATALOG, [])},${JSON.stringify(rest).slice(1, -1)},"products":[`;
      offset = Buffer.byteLength(head);
      run = [offset, offset];
      yield head;
      let n = 0;
      let piece = '';
      for (const product of parts.products) {
        const text = JSON.stringify(product);
        if (n > 0) {
          piece += ',';
          offset += 1;
        }
        const length = Buffer.byteLength(text);
        indexLines.push(familyLine({ length, extra: false, ids: [product.id as string] }));
        if (n === changedAt) changed = { id: product.id as string, offset, text };
        piece += text;
        offset += length;
        run[1] = offset;
        n += 1;
        if (piece.length >= 1 << 20) {
          yield piece;
          piece = '';
        }
      }
      yield `${piece}],"files":${JSON.stringify(parts.files)}}`;
    }
    progress(`writing a document of ${options.products} products`);
    await objectStore.put('bench/before/authored.json', documentText());
    const bytes = (await objectStore.head('bench/before/authored.json'))?.bytes as number;
    await objectStore.put('bench/before/authored.index', `${indexLines.join('\n')}\n`);
    indexLines.length = 0;
    const indexBytes = (await objectStore.head('bench/before/authored.index'))?.bytes as number;
    if (changed === undefined) throw new Error('no product changed');
    const target = changed;
    const trailer: ExportTrailer = {
      head_end: Buffer.byteLength(catalogHead(CATALOG, [])),
      at: Date.parse(BEFORE),
      started_at: Date.parse(BEFORE),
      sources: { hierarchy_ids: [], pricebook_ids: [] },
      next_boundary: null,
      index_format: INDEX_FORMAT,
      products: run,
    };

    progress('planning the release before whole (its kept plan)');
    const kept = await wholePlan('bench/before/authored.json', BEFORE, memoTimes(BEFORE, undefined));

    // Export: the family found in the index (every line read), then the document spliced and written.
    const [family, find] = await seconds(async () => {
      for await (const one of readFamilies(
        readLines(objectStore.read('bench/before/authored.index')),
        trailer,
      )) {
        if (one.ids.includes(target.id)) return one;
      }
      throw new Error('the changed product is not in the index');
    });
    const product = JSON.parse(target.text) as { attributes: Record<string, unknown> };
    product.attributes.description = `${String(product.attributes.description ?? '')} and changed`;
    const text = JSON.stringify(product);
    const plan: Exclude<SplicePlan, { whole: string }> = {
      base: {
        release: 'before',
        document: 'bench/before/authored.json',
        index: 'bench/before/authored.index',
        bytes,
        indexBytes,
        trailer,
      },
      rewritten: [{ family, text, ids: family.ids }],
      boundaries: [],
      changed: 1,
    };
    progress('exporting the spliced document');
    const [exported, write] = await seconds(() =>
      writeExport(
        'bench/after/authored.json',
        {
          storeId: 'bench',
          catalog: { ...CATALOG, sources: plan.base.trailer.sources },
          at: new Date(NOW),
          startedAt: Date.parse(NOW),
        },
        plan,
      ),
    );
    const facts = exported.facts as SpliceFacts;

    const times = memoTimes(NOW, { published_at: BEFORE });
    progress('validating and planning the spliced document by what changed');
    const [validated, validateSplicedS] = await seconds(() =>
      validateSpliced('bench/after/authored.json', 'bench/before/authored.json', facts),
    );
    const [spliced, planSplicedS] = await seconds(() =>
      planSpliced({
        facts,
        documentKey: 'bench/after/authored.json',
        baseDocumentKey: 'bench/before/authored.json',
        kept: { plan: kept.plan, bytes: kept.bytes, meta },
        catalogId: CATALOG_ID,
        layout: layoutAt(NOW, NOW),
        storeCurrencies: DEFAULT_CURRENCIES,
        meta,
        times,
      }),
    );
    progress('validating and planning the whole spliced document');
    const [wholeValidation, validateWholeS] = await seconds(() =>
      validateReleaseStream(objectStore.read('bench/after/authored.json')),
    );
    const [whole, planWholeS] = await seconds(() => wholePlan('bench/after/authored.json', NOW, times));
    if (!('families' in validated) || !wholeValidation.ok)
      throw new Error(`not validated by what changed: ${JSON.stringify(validated)}`);
    if (!('plan' in spliced)) throw new Error(`not planned by what changed: ${spliced.why}`);
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (
      !same({ ...spliced.plan, layout: null }, { ...whole.plan, layout: null }) ||
      !same(spliced.bytes, whole.bytes)
    )
      throw new Error('the plan by what changed is not the whole plan');
    return {
      products: options.products,
      document_mb: round(bytes / 1e6, 1),
      export_s: { find_family: find, write },
      validate_s: { whole: validateWholeS, spliced: validateSplicedS },
      plan_s: {
        whole: planWholeS,
        spliced: planSplicedS,
        ranges: whole.plan.ranges.length,
        ranges_read: spliced.read,
      },
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    await store.stop();
    rmSync(store.directory, { recursive: true, force: true });
  }
}

export function describeSplicedChecks(f: SplicedFigures): string {
  return `${[
    `spliced checks: ${f.products.toLocaleString('en-US')} products (${f.document_mb} MB), one product's description changed`,
    `  export: family found in the index ${f.export_s.find_family} s, spliced document, index and trailer written ${f.export_s.write} s`,
    `  validate: by what changed ${f.validate_s.spliced} s, whole ${f.validate_s.whole} s`,
    `  plan: by what changed ${f.plan_s.spliced} s (${f.plan_s.ranges_read} of ${f.plan_s.ranges} ranges read), whole ${f.plan_s.whole} s (the same plan)`,
    `  peak RSS of the process (the whole plans included) ${f.peak_rss_mb} MB`,
  ].join('\n')}\n`;
}

runAsScript(
  import.meta.url,
  (args) =>
    measureSplicedChecks({
      products: intOption(args, '--products', 100_000),
      productBytes: intOption(args, '--product-bytes', 600),
    }),
  describeSplicedChecks,
);
