import { randomUUID } from 'node:crypto';
import { CHILD_CHUNK_SIZE } from '../../lib/catalog/child-index';
import {
  DERIVE_RANGE_BYTES,
  type DerivePlan,
  planRelease,
  type RangePicks,
} from '../../lib/catalog/derive-stream';
import { generateRelease } from '../../lib/catalog/generator';
import { memoTimes, type RangeBytes, RangeHasher } from '../../lib/catalog/pipeline/derive-memo';
import type { SpliceFacts } from '../../lib/catalog/pipeline/export-splice';
import {
  type KeptPlanMeta,
  planSpliced,
  SPLICED_CHECKS_VERSION,
  validateSpliced,
} from '../../lib/catalog/pipeline/spliced-checks';
import type { ReleaseLayout } from '../../lib/catalog/types';
import { validateReleaseStream } from '../../lib/catalog/validate-stream';
import { objectStore } from '../../lib/store/object-store';

/**
 * Validating and planning a spliced document by what changed (docs/publishing.md): the release before's
 * document with some products written again is checked by those products alone, and planned from the
 * release before's plan, only when that gives exactly what reading the whole document gives; otherwise
 * the answer says why, and the step reads the whole document.
 */

jest.setTimeout(60_000);

const RANGE_PRODUCTS = 100;
const meta: KeptPlanMeta = {
  version: SPLICED_CHECKS_VERSION,
  range_bytes: DERIVE_RANGE_BYTES,
  range_products: RANGE_PRODUCTS,
};
const BEFORE = '2026-11-28T08:00:00.000Z';
const NOW = '2026-11-28T09:00:00.000Z';

type Product = { id: string; attributes: Record<string, unknown> } & Record<string, unknown>;

/** A document as an authored export lays it out (the products, then the files), with each product's bytes. */
function documentText(head: Record<string, unknown>, products: Product[], files: unknown[]) {
  let text = `${JSON.stringify(head).slice(0, -1)},"products":[`;
  const places: [number, number][] = [];
  for (const [n, product] of products.entries()) {
    if (n > 0) text += ',';
    const json = JSON.stringify(product);
    const start = Buffer.byteLength(text);
    places.push([start, start + Buffer.byteLength(json)]);
    text += json;
  }
  text += `],"files":${JSON.stringify(files)}}`;
  return { text, places };
}

/** 600 live children of three parents, a standalone product, nodes, files and a modifier. */
function generated() {
  const { products, files, ...head } = generateRelease({
    children: 199,
    parents: 3,
    seed: 7,
    catalogName: 'Spliced',
    images: true,
  }) as { products: Product[]; files?: unknown[] } & Record<string, unknown>;
  return { head, products, files: files ?? [] };
}

const layoutAt = (publishedAt: string): ReleaseLayout => ({
  id: randomUUID(),
  shards: 64,
  chunk_size: CHILD_CHUNK_SIZE,
  published_at: publishedAt,
  filter_index: 1,
});

/** The plan, picks and range bytes of reading the whole document, as Plan makes them. */
async function wholePlan(key: string, layout: ReleaseLayout, times: string[]) {
  const hashers: RangeHasher[] = [];
  const { plan, picks } = await planRelease({
    open: () => objectStore.read(key),
    catalogId: 'c',
    layout,
    storeCurrencies: {},
    rangeBytes: meta.range_bytes,
    rangeProducts: meta.range_products,
    onRangeBytes: (n, piece) => {
      hashers[n] ??= new RangeHasher(times);
      hashers[n].update(piece);
    },
  });
  return {
    plan,
    picks: plan.ranges.map((range) => picks(range.n)),
    bytes: plan.ranges.map((range) => hashers[range.n]?.done() as RangeBytes),
  };
}

/**
 * A release before (its document and whole plan) and one spliced from it: the products `change` edits
 * written again, each run of consecutive edited products one family.
 */
async function splice(
  change: (products: Product[]) => number[],
  tweak?: (products: Product[]) => void,
  keptAs: (plan: DerivePlan) => DerivePlan = (plan) => plan,
) {
  const { head, products, files } = generated();
  tweak?.(products);
  const before = documentText(head, products, files);
  const baseKey = `test/spliced/${randomUUID()}/before.json`;
  await objectStore.put(baseKey, before.text);
  const kept = await wholePlan(baseKey, layoutAt(BEFORE), memoTimes(BEFORE, undefined));

  const edited = structuredClone(products);
  const changed = change(edited).sort((a, b) => a - b);
  const after = documentText(head, edited, files);
  const key = `test/spliced/${randomUUID()}/after.json`;
  await objectStore.put(key, after.text);
  // Runs of consecutive changed products, each a family written again.
  const runs: [number, number][] = [];
  for (const n of changed) {
    const last = runs.at(-1);
    if (last && last[1] === n - 1) last[1] = n;
    else if (!last || last[1] < n) runs.push([n, n]);
  }
  const span = (places: [number, number][], [from, to]: [number, number]): [number, number] => [
    (places[from] as [number, number])[0],
    (places[to] as [number, number])[1] - (places[from] as [number, number])[0],
  ];
  const facts: SpliceFacts = {
    base: 'before',
    bytes: Buffer.byteLength(after.text),
    base_bytes: Buffer.byteLength(before.text),
    products: [(after.places[0] as [number, number])[0], (after.places.at(-1) as [number, number])[1]],
    families: runs.map(
      (run) => [...span(before.places, run), ...span(after.places, run)] as [number, number, number, number],
    ),
  };
  const layout = layoutAt(NOW);
  const times = memoTimes(NOW, { published_at: BEFORE });
  const spliced = await planSpliced({
    facts,
    documentKey: key,
    baseDocumentKey: baseKey,
    kept: { plan: keptAs(kept.plan), bytes: kept.bytes, meta },
    catalogId: 'c',
    layout,
    storeCurrencies: {},
    meta,
    times,
  });
  return {
    spliced,
    validated: await validateSpliced(key, baseKey, facts),
    whole: await wholePlan(key, layout, times),
    wholeValidation: await validateReleaseStream(objectStore.read(key)),
    kept,
  };
}

const describeText = (product: Product, text: string) => {
  product.attributes.description = text;
};

describe('a spliced document validated and planned by what changed', () => {
  it('gives the plan, picks and range hashes of reading the whole document, reading only the ranges changed', async () => {
    const { spliced, validated, whole, wholeValidation, kept } = await splice((products) => {
      // Longer, shorter, a parent (its input is held for its children), a run across a range's edge.
      describeText(products[5] as Product, 'a much longer description than the generated one, by far');
      describeText(products[0] as Product, '');
      describeText(products[320] as Product, 'short');
      for (const n of [98, 99, 100, 101]) describeText(products[n] as Product, `edited ${n}`);
      return [0, 5, 98, 99, 100, 101, 320];
    });
    expect(wholeValidation.ok).toBe(true);
    expect(validated).toEqual({ families: 4 });
    if (!('plan' in spliced)) throw new Error(`not spliced: ${spliced.why}`);
    expect(whole.plan.ranges.length).toBeGreaterThan(5);
    expect(spliced.plan).toEqual(whole.plan);
    expect(spliced.bytes).toEqual(whole.bytes);
    // Ranges 0, 1 (the run across the edge of 0 and 1) and 3: the others carried forward unread.
    expect(spliced.read).toBe(3);
    // The picks are the release before's: the same families in the same ranges.
    expect(whole.picks).toEqual(kept.picks as RangePicks[]);
    const held = (plan: DerivePlan) => plan.held.map((product) => product.attributes.description);
    expect(held(spliced.plan)).not.toEqual(held(kept.plan));
  });

  it('reads a range again when a later publish time may be written in it', async () => {
    const { spliced, whole } = await splice(
      (products) => {
        describeText(products[5] as Product, 'changed');
        return [5];
      },
      // A product of another range that holds this publish's time as text (a merchant may write anything).
      (products) => describeText(products[450] as Product, `on sale from ${NOW}`),
    );
    if (!('plan' in spliced)) throw new Error(`not spliced: ${spliced.why}`);
    expect(spliced.read).toBe(2);
    expect(spliced.bytes).toEqual(whole.bytes);
    expect(whole.bytes.filter((bytes) => bytes.holdsTime)).toHaveLength(1);
  });

  it('says why, and leaves it to the whole document, when a product written again changes a shared fact or breaks a rule', async () => {
    const taken = await splice((products) => {
      // Another product's sku: the whole validation finds it taken.
      (products[7] as Product).attributes.sku = (products[8] as Product).attributes.sku;
      return [7];
    });
    expect(taken.wholeValidation.ok).toBe(false);
    expect(taken.validated).toEqual({
      why: 'a product written again changed what other products are checked against',
    });
    expect(taken.spliced).toEqual({ why: 'a product written again changed what the plan holds of it' });

    const drafted = await splice((products) => {
      (products[9] as Product).attributes.status = 'draft';
      return [9];
    });
    expect(drafted.validated).toMatchObject({ why: expect.stringContaining('changed what other products') });
    expect(drafted.spliced).toMatchObject({ why: expect.stringContaining('changed what the plan holds') });

    // A kept plan whose filter index segments another size than this code's: planned whole.
    const resized = await splice(
      (products) => {
        describeText(products[5] as Product, 'changed');
        return [5];
      },
      undefined,
      (plan) => ({ ...plan, segment: plan.segment / 2 }),
    );
    expect(resized.spliced).toEqual({ why: "the document's head changed beyond its catalog" });

    const broken = await splice((products) => {
      (products[11] as Product).attributes.name = '';
      return [11];
    });
    expect(broken.wholeValidation.ok).toBe(false);
    expect(broken.validated).toEqual({ why: 'a product written again has issues' });
  });
});
