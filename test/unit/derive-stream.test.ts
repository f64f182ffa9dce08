import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { deriveReleaseStream, planRelease, type ReleaseItem } from '../../lib/catalog/derive-stream';
import { FILTER_INDEX_VERSION } from '../../lib/catalog/filter-index';
import { generateRelease } from '../../lib/catalog/generator';
import type { ReleaseLayout } from '../../lib/catalog/types';
import { ReleaseValidationError } from '../../lib/catalog/validate-release';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';
import { childrenRelease } from '../support/catalog-fixtures';
import { maximalBundleRelease, releaseWithChildren } from '../support/large-catalogs';
import { buildReleaseItems } from '../support/one-process-publisher';
import { schemaValidRelease } from '../support/release-arbitrary';

/**
 * The streamed derivation makes exactly the items of the whole-document one (buildReleaseItems), and
 * refuses what it refuses with the same issues, whatever the document's shape and member order.
 */

const LAYOUT: ReleaseLayout = {
  id: '01900000-0000-7000-8000-0000000000aa',
  shards: 16,
  chunk_size: 100,
  published_at: '2026-11-25T12:00:00.000Z',
  filter_index: FILTER_INDEX_VERSION,
};
const CATALOG_ID = '01900000-0000-7000-8000-0000000000cc';

type Outcome = { items: string[] } | { issues: unknown[]; total: number };

/** An item as one comparable string (binary attributes as base64). */
function key(item: ReleaseItem): string {
  return JSON.stringify(item, (_k, value: unknown) =>
    value instanceof Uint8Array ? `bytes:${Buffer.from(value).toString('base64')}` : value,
  );
}

/** How `streamed` splits the products: in one range (the defaults), or in ranges of a few products each. */
interface Split {
  layout: ReleaseLayout;
  rangeProducts?: number;
  releaseSegment?: number;
}
const ONE_RANGE: Split = { layout: LAYOUT };
/**
 * Ranges of at least 2 products, ending where the release index's chunk of 3 live products ends; segments of
 * the release-wide filter index of 7 (inside a range, or across several).
 */
const SMALL_RANGES: Split = { layout: { ...LAYOUT, chunk_size: 3 }, rangeProducts: 2, releaseSegment: 7 };

function whole(document: unknown, layout = LAYOUT, releaseSegment?: number): Outcome {
  const validation = validateRelease(document);
  if (!validation.ok) throw new Error('the test document must be valid');
  try {
    const { items } = buildReleaseItems(validation.document, {
      catalogId: CATALOG_ID,
      layout,
      currencies: validation.document.currencies ?? DEFAULT_CURRENCIES,
      ...(releaseSegment === undefined ? {} : { releaseSegment }),
    });
    return { items: items.map(key).sort() };
  } catch (error) {
    if (!(error instanceof ReleaseValidationError)) throw error;
    return { issues: error.issues, total: error.total };
  }
}

async function streamed(document: unknown, chunkBytes = 4096, split = ONE_RANGE): Promise<Outcome> {
  const text = Buffer.from(JSON.stringify(document));
  const items: string[] = [];
  try {
    const result = await deriveReleaseStream({
      open: async function* () {
        for (let at = 0; at < text.length; at += chunkBytes) yield text.subarray(at, at + chunkBytes);
      },
      catalogId: CATALOG_ID,
      layout: split.layout,
      ...(split.rangeProducts === undefined ? {} : { rangeProducts: split.rangeProducts }),
      ...(split.releaseSegment === undefined ? {} : { releaseSegment: split.releaseSegment }),
      storeCurrencies: DEFAULT_CURRENCIES,
      emit: (item) => {
        items.push(key(item));
      },
    });
    expect(result.items).toBe(items.length);
    return { items: items.sort() };
  } catch (error) {
    if (!(error instanceof ReleaseValidationError)) throw error;
    return { issues: error.issues, total: error.total };
  }
}

/** The same document with its products first (the generator writes them last). */
function productsFirst(document: Record<string, unknown>): Record<string, unknown> {
  const { products, ...rest } = document;
  return { products, ...rest };
}

const SAMPLE = JSON.parse(
  readFileSync(join(__dirname, '../../catalog/sample-release.json'), 'utf8'),
) as Record<string, unknown>;

/** 2,100 products in one node (its product list spans three chunks), a third of them named alike with no slug. */
function crowdedNode(): Record<string, unknown> {
  const document = generateRelease({ children: 2100, seed: 3 }) as {
    nodes?: unknown[];
    products: { node_ids?: string[]; attributes: { name: string; slug?: string } }[];
  };
  const node = '01900000-0000-7000-8000-0000000000dd';
  document.nodes = [{ id: node, name: 'Everything', parent_id: null }];
  document.products.forEach((product, index) => {
    product.node_ids = [node];
    if (index % 3 === 0) {
      delete product.attributes.slug;
      product.attributes.name = 'Same name';
    }
  });
  return document;
}

/**
 * 2,100 products over two hierarchies: most in two nodes of the first (listed once in its product list,
 * which spans three chunks), some in the hierarchy itself, some in both hierarchies.
 */
function crowdedHierarchy(): Record<string, unknown> {
  const document = generateRelease({ children: 2100, seed: 5 }) as {
    nodes?: unknown[];
    products: { node_ids?: string[] }[];
  };
  const [root, shirts, sale, other] = ['e1', 'e2', 'e3', 'e4'].map(
    (n) => `01900000-0000-7000-8000-0000000000${n}`,
  ) as [string, string, string, string];
  document.nodes = [
    { id: root, name: 'Apparel', parent_id: null },
    { id: shirts, name: 'Shirts', parent_id: root },
    { id: sale, name: 'Sale', parent_id: shirts },
    { id: other, name: 'Gifts', parent_id: null },
  ];
  const placements = [[shirts, sale], [root], [sale, other], [other], [shirts]];
  document.products.forEach((product, index) => {
    product.node_ids = placements[index % placements.length] as string[];
  });
  return document;
}

const DOCUMENTS: [string, unknown][] = [
  ['the sample release', SAMPLE],
  ['the sample release, products first', productsFirst(SAMPLE)],
  ['the children fixture', childrenRelease()],
  [
    'a generated release (3 parents, drafts, images)',
    generateRelease({ children: 250, drafts: 3, parents: 3, images: true, seed: 7 }),
  ],
  [
    'a generated release of 1 KB products',
    productsFirst(generateRelease({ children: 120, parents: 2, productBytes: 1024 })),
  ],
  ['a parent with 1,200 children', releaseWithChildren({ children: 1200, description: 20 })],
  ['a node of 2,100 products, 700 with the same derived slug', crowdedNode()],
  ['a hierarchy of 2,100 products over its nodes', crowdedHierarchy()],
  ['a hierarchy of 2,100 products over its nodes, products first', productsFirst(crowdedHierarchy())],
];

describe('deriveReleaseStream', () => {
  it.each(DOCUMENTS)('makes the items of the whole-document derivation: %s', async (_name, document) => {
    const expected = whole(document);
    expect('items' in expected && expected.items.length).toBeGreaterThan(0);
    expect(await streamed(document)).toEqual(expected);
  });

  // Families, node lists' chunks, repeated slugs and index segments split over ranges, joined by the merge.
  it.each(DOCUMENTS)(
    'makes the same items split in ranges of a few products: %s',
    async (_name, document) => {
      const expected = whole(document, SMALL_RANGES.layout, SMALL_RANGES.releaseSegment);
      expect(await streamed(document, 4096, SMALL_RANGES)).toEqual(expected);
      const text = Buffer.from(JSON.stringify(document));
      const { plan } = await planRelease({
        open: async function* () {
          yield text;
        },
        catalogId: CATALOG_ID,
        layout: SMALL_RANGES.layout,
        storeCurrencies: DEFAULT_CURRENCIES,
        rangeProducts: 2,
      });
      const { products } = document as { products: unknown[] };
      // Every product in one range or another, the ranges several.
      expect(plan.ranges.reduce((sum, range) => sum + range.count, 0)).toBe(products.length);
      expect(plan.ranges.length).toBeGreaterThanOrEqual(Math.floor(products.length / 6));
      expect(plan.ranges.length).toBeGreaterThan(1);
    },
  );

  it('refuses a release past the response budget with the issues of the whole-document derivation', async () => {
    const document = maximalBundleRelease(16_384);
    const expected = whole(document);
    expect(
      'issues' in expected && expected.issues.map((issue) => (issue as { rule: string }).rule),
    ).toContain('response_size');
    expect(await streamed(document, 65_536)).toEqual(expected);
    expect(await streamed(document, 65_536, SMALL_RANGES)).toEqual(
      whole(document, SMALL_RANGES.layout, SMALL_RANGES.releaseSegment),
    );
  });

  it('makes the same items for any release the schema and the code checks accept (property)', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(schemaValidRelease(), fc.integer({ min: 1, max: 512 }), async (document, chunk) => {
        // About one in six schema-valid documents passes the code checks too (references, uniqueness).
        if (!validateRelease(document).ok) return;
        checked += 1;
        expect(await streamed(document, chunk)).toEqual(whole(document));
        expect(await streamed(document, chunk, SMALL_RANGES)).toEqual(
          whole(document, SMALL_RANGES.layout, SMALL_RANGES.releaseSegment),
        );
      }),
      { numRuns: 300 },
    );
    expect(checked).toBeGreaterThan(10);
  });
});
