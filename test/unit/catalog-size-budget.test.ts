import { readFileSync } from 'node:fs';
import { CHILD_CHUNK_SIZE } from '../../lib/catalog/child-index';
import { generateRelease } from '../../lib/catalog/generator';
import { RELEASE_SHARDS } from '../../lib/catalog/publisher';
import { renderProductJson } from '../../lib/catalog/render';
import {
  boundedMeasure,
  DEFAULT_LOCALE_TAG_BYTES,
  EXACT,
  Heaviest,
  PAGE_BUDGET_BYTES,
  PAGE_SIZE,
  productPageWeights,
  productResponseBytes,
  responseBytes,
  type Weighed,
  worstPageBytes,
} from '../../lib/catalog/size-budget';
import type { ReleaseDocument } from '../../lib/catalog/types';
import { ReleaseValidationError } from '../../lib/catalog/validate-release';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';
import {
  MAX_COMPONENTS,
  MAX_LONG_TEXT,
  MAX_OPTIONS,
  maximalBundleRelease,
  releaseWithChildren,
} from '../support/large-catalogs';
import { buildReleaseItems, prepareRelease } from '../support/one-process-publisher';

const layout = {
  id: 'release',
  shards: RELEASE_SHARDS,
  chunk_size: CHILD_CHUNK_SIZE,
  published_at: '2026-01-01T00:00:00.000Z',
  filter_index: 1,
};

function validated(input: unknown): ReleaseDocument {
  const result = validateRelease(input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
  return result.document;
}

function prepared(input: unknown) {
  const document = validated(input);
  return prepareRelease(document, {
    catalogId: 'catalog',
    publishedAt: layout.published_at,
    currencies: document.currencies ?? DEFAULT_CURRENCIES,
  });
}

function build(input: unknown) {
  const document = validated(input);
  return buildReleaseItems(document, {
    catalogId: 'catalog',
    layout,
    currencies: document.currencies ?? DEFAULT_CURRENCIES,
  });
}

function refusal(input: unknown): ReleaseValidationError {
  try {
    build(input);
  } catch (error) {
    if (error instanceof ReleaseValidationError) return error;
    throw error;
  }
  throw new Error('the release was accepted');
}

const sample = JSON.parse(readFileSync('catalog/sample-release.json', 'utf8'));
/** The worst page of a children release with descriptions of `n` quotes, measured exactly. */
const pageWith = (n: number) => {
  const release = prepared(releaseWithChildren({ children: PAGE_SIZE, description: n }));
  return worstPageBytes(productPageWeights(release.products, release.files, EXACT));
};

describe('responseBytes', () => {
  it('counts a JSON text as Lambda does: escaped once more inside the serialized response', () => {
    expect(responseBytes('{"a":1}')).toBe(9);
    expect(responseBytes(JSON.stringify({ a: '"' }))).toBe(16);
    expect(responseBytes(JSON.stringify({ a: '€' }))).toBe(Buffer.byteLength(JSON.stringify({ a: '€' })) + 4);
    const body = JSON.stringify({ data: 'x"\\y' });
    expect(responseBytes(body)).toBe(
      Buffer.byteLength(JSON.stringify({ body })) - Buffer.byteLength('{"body":""}'),
    );
  });
});

describe('Heaviest', () => {
  it('keeps the n heaviest of any sequence, heaviest first, whatever the order they come in', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 50; round += 1) {
      const weights: Weighed[] = Array.from({ length: 1 + (random() % 400) }, (_, index) => ({
        index,
        id: `p${index}`,
        bytes: random() % 1000,
      }));
      const heaviest = new Heaviest(PAGE_SIZE);
      for (const weight of weights) heaviest.add(weight);
      const expected = [...weights].sort((a, b) => b.bytes - a.bytes).slice(0, PAGE_SIZE);
      expect(heaviest.entries().map((entry) => entry.bytes)).toEqual(expected.map((entry) => entry.bytes));
      expect(heaviest.total()).toBe(expected.reduce((sum, entry) => sum + entry.bytes, 0));
    }
  });
});

describe('productResponseBytes', () => {
  it("is the largest rendering of the read path, over every locale and currency of the sample's products", () => {
    const release = prepared(sample);
    const defaultTag = 'x'.repeat(DEFAULT_LOCALE_TAG_BYTES);
    for (const stored of release.products) {
      const renderings: number[] = [];
      for (const locale of [defaultTag, ...Object.keys(stored.locales)]) {
        for (const currency of [undefined, ...Object.keys(stored.display ?? {})]) {
          renderings.push(responseBytes(renderProductJson(stored, locale, currency)));
        }
      }
      expect(productResponseBytes(stored)).toBe(Math.max(...renderings));
    }
    expect(release.products.some((stored) => Object.keys(stored.display ?? {}).length > 0)).toBe(true);
    expect(release.products.some((stored) => Object.keys(stored.locales).length > 0)).toBe(true);
  });
});

describe('boundedMeasure', () => {
  it('never undercounts: its bound of every product and file is at least the exact size', () => {
    const documents = [
      sample,
      generateRelease({ children: 300, drafts: 20, images: true }),
      releaseWithChildren({ children: 3, description: 100, maximal: true }),
      maximalBundleRelease(50),
    ];
    for (const document of documents) {
      const { items } = build(document);
      const release = prepared(document);
      const chars = items.map((item) => (typeof item.d === 'string' ? item.d.length : 0));
      const bounded = boundedMeasure(
        chars.slice(0, release.products.length),
        chars.slice(release.products.length, release.products.length + release.files.length),
      );
      release.products.forEach((stored, index) => {
        expect(bounded.product(stored, index)).toBeGreaterThanOrEqual(EXACT.product(stored, index));
      });
      release.files.forEach((file, index) => {
        expect(bounded.file(file, index)).toBeGreaterThanOrEqual(EXACT.file(file, index));
      });
    }
  });
});

describe('the response budget of a release', () => {
  it('accepts the longest descriptions whose worst page fits and refuses one character more, naming the products and bytes', () => {
    // Each quote of a description weighs 4 bytes in a response, on each of the 100 children of the page.
    const base = pageWith(0);
    const fits = Math.floor((PAGE_BUDGET_BYTES - base) / (4 * PAGE_SIZE));
    expect(fits).toBeLessThan(MAX_LONG_TEXT);
    expect(pageWith(fits)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(() => build(releaseWithChildren({ children: PAGE_SIZE, description: fits }))).not.toThrow();

    const over = pageWith(fits + 1);
    expect(over).toBeGreaterThan(PAGE_BUDGET_BYTES);
    const error = refusal(releaseWithChildren({ children: PAGE_SIZE, description: fits + 1 }));
    expect(error.total).toBe(5);
    const first = error.issues[0];
    expect(first?.path).toMatch(/^products\[\d+\]$/);
    expect(first?.rule).toBe('response_size');
    expect(first?.message).toContain(
      `would take ${over.toLocaleString('en-US')} bytes, over the 5,242,880-byte budget`,
    );
    expect(first?.message).toMatch(/this product takes [\d,]+ bytes of a response/);
  });

  it('accepts 40 children with descriptions at the limit: their page fits', () => {
    expect(() => build(releaseWithChildren({ children: 40, description: MAX_LONG_TEXT }))).not.toThrow();
  });

  it('refuses a catalog at every schema maximum (texts, tags, files, links), naming its products', () => {
    const error = refusal(
      releaseWithChildren({ children: PAGE_SIZE, description: MAX_LONG_TEXT, maximal: true }),
    );
    expect(error.issues.map((issue) => issue.rule)).toEqual(Array(5).fill('response_size'));
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'products[1]',
      'products[2]',
      'products[3]',
      'products[4]',
      'products[5]',
    ]);
  });

  it('refuses a bundle whose component products could not be included in one response, naming the bundle first', () => {
    const error = refusal(maximalBundleRelease(MAX_LONG_TEXT));
    const bundleIndex = MAX_COMPONENTS * MAX_OPTIONS;
    expect(error.issues[0]).toMatchObject({ path: `products[${bundleIndex}]`, rule: 'response_size' });
    expect(error.issues[0]?.message).toMatch(
      /^with its main image, files and component products, this product takes [\d,]+ bytes/,
    );
  });

  it('refuses the 100 heaviest nodes when their page cannot fit', () => {
    const nodes = Array.from({ length: PAGE_SIZE }, (_, n) => ({
      id: `00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`,
      name: `Node ${n}`,
      description: '"'.repeat(MAX_LONG_TEXT),
      parent_id: null,
    }));
    const error = refusal({ catalog: { name: 'Nodes' }, nodes, products: [] });
    expect(error.issues[0]).toMatchObject({
      path: expect.stringMatching(/^nodes\[\d+\]$/),
      rule: 'response_size',
    });
    expect(error.issues[0]?.message).toMatch(
      /^this node takes [\d,]+ bytes of a response; a page of the 100 nodes/,
    );
    expect(() =>
      build({ catalog: { name: 'Nodes' }, nodes: nodes.slice(0, 60), products: [] }),
    ).not.toThrow();
  });
});
