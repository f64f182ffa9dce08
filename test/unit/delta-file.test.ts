import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { render } from '../../lib/catalog/list-children';
import {
  type DeltaChange,
  deltaFileBytes,
  deltaFileKey,
  deltaLine,
  writeDeltaFile,
} from '../../lib/catalog/pipeline/delta-file';
import type { StoredProduct } from '../../lib/catalog/types';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { objectStore } from '../../lib/store/object-store';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';
import { prepareRelease } from '../support/one-process-publisher';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const LIVE = id(1);
const DRAFT = id(2);
const CATALOG = id(99);
const PUBLISHED = '2024-06-01T12:00:00.000Z';
const CURRENCIES = {
  ...DEFAULT_CURRENCIES,
  EUR: { default: false, decimal_places: 2, format: '€{price}', decimal_point: ',', thousand_separator: '.' },
};

function storedProducts(): Map<string, StoredProduct> {
  const result = validateRelease({
    catalog: { id: CATALOG, name: 'Delta catalog' },
    currencies: CURRENCIES,
    products: [
      {
        id: LIVE,
        attributes: {
          name: 'Socks',
          description: 'Wool socks',
          sku: 'SOCKS',
          status: 'live',
          commodity_type: 'physical',
          price: { USD: { amount: 1200, includes_tax: false }, EUR: { amount: 1100, includes_tax: false } },
          locales: { 'fr-FR': { name: 'Chaussettes', description: 'Chaussettes en laine' } },
        },
      },
      {
        id: DRAFT,
        attributes: {
          name: 'Hat',
          sku: 'HAT',
          status: 'draft',
          commodity_type: 'physical',
          price: { USD: { amount: 900, includes_tax: false } },
        },
      },
    ],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const { products } = prepareRelease(result.document, {
    catalogId: CATALOG,
    publishedAt: PUBLISHED,
    currencies: CURRENCIES,
  });
  return new Map(products.map((product) => [product.resource.id, product]));
}

function product(productId: string): StoredProduct {
  const found = storedProducts().get(productId);
  if (!found) throw new Error(`no product ${productId}`);
  return found;
}

async function* changesOf(changes: DeltaChange[]): AsyncGenerator<DeltaChange> {
  yield* changes;
}

async function gunzipped(bytes: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  return gunzipSync(Buffer.concat(chunks)).toString('utf8');
}

describe('delta file lines', () => {
  it('renders a live product as GET /catalog/products/{id} does without headers, with delta_type first', () => {
    const stored = product(LIVE);
    const line = deltaLine({ type: 'createupdate', stored }, 'en-US') as string;
    expect(line.startsWith('{"delta_type":"createupdate","id":"')).toBe(true);
    const { delta_type, ...rest } = JSON.parse(line);
    expect(delta_type).toBe('createupdate');
    expect(rest).toEqual(JSON.parse(render(stored, { defaultLocale: 'en-US', acceptLanguage: undefined })));
    expect(rest).toMatchObject({
      id: LIVE,
      type: 'product',
      attributes: { name: 'Socks', description: 'Wool socks', sku: 'SOCKS', language: 'en-US' },
      meta: { display_price: { without_tax: { amount: 1200, currency: 'USD', formatted: '$12.00' } } },
    });
  });

  it('renders a product with locales in the store default locale, its base text', () => {
    const stored = product(LIVE);
    expect(Object.keys(stored.locales)).toEqual(['fr-FR']);
    expect(
      JSON.parse(deltaLine({ type: 'createupdate', stored }, 'en-US') as string).attributes,
    ).toMatchObject({
      name: 'Socks',
      description: 'Wool socks',
      language: 'en-US',
    });
    // A store whose default locale is one of the product's locales shows that locale's text.
    expect(
      JSON.parse(deltaLine({ type: 'createupdate', stored }, 'fr-FR') as string).attributes,
    ).toMatchObject({
      name: 'Chaussettes',
      description: 'Chaussettes en laine',
      language: 'fr-FR',
    });
  });

  it('writes no line for a draft (not live) product', () => {
    const stored = product(DRAFT);
    expect(stored.live).toBe(false);
    expect(deltaLine({ type: 'createupdate', stored }, 'en-US')).toBeUndefined();
    expect(
      deltaLine({ type: 'createupdate', stored: { ...product(LIVE), live: false } }, 'en-US'),
    ).toBeUndefined();
  });

  it('writes a delete as its id and type only, and none in a full file', () => {
    expect(deltaLine({ type: 'delete', id: DRAFT }, 'en-US')).toBe(
      `{"delta_type":"delete","id":"${DRAFT}","type":"product"}`,
    );
    expect(deltaLine({ type: 'delete', id: DRAFT }, 'en-US', true)).toBeUndefined();
  });

  it('keys the file under deltas/, by store, catalog and release', () => {
    expect(deltaFileKey('s1', 'c1', 'r1')).toBe('deltas/s1/c1/r1.jsonl.gz');
  });
});

describe('writing the delta file', () => {
  const STORE = { default_locale: 'en-US' };
  /** An upload that reads the body to its end, then waits for `answer` (its outcome). */
  function upload(answer: Promise<void>) {
    const events: string[] = [];
    const spy = jest.spyOn(objectStore, 'put').mockImplementation(async (_key, body) => {
      for await (const _ of body as AsyncIterable<Buffer>);
      events.push('body read');
      await answer;
      events.push('upload answered');
    });
    return { events, spy };
  }
  const input = (counted: (delta: { key: string; lines: number }) => Promise<unknown>) => ({
    storeId: id(7),
    catalogId: CATALOG,
    releaseId: id(8),
    full: false,
    changes: changesOf([
      { type: 'delete', id: id(3) },
      { type: 'delete', id: id(4) },
    ]),
    store: Promise.resolve(STORE),
    counted,
  });
  afterEach(() => jest.restoreAllMocks());

  it('hands the key and the line count over once every line is counted, beside the upload', async () => {
    let answer: () => void = () => undefined;
    const { events } = upload(
      new Promise<void>((resolve) => {
        answer = resolve;
      }),
    );
    const written = writeDeltaFile(
      input(async (delta) => {
        events.push(`counted ${delta.lines}`);
        answer();
      }),
    );
    await expect(written).resolves.toEqual({ key: deltaFileKey(id(7), CATALOG, id(8)), lines: 2 });
    // Counted before the upload answered: the upload waited for the count's work to let it answer.
    expect(events).toEqual(['counted 2', 'body read', 'upload answered']);
  });

  it("fails with the upload's error, once the count's work has settled", async () => {
    const refused = Promise.reject(new Error('upload refused'));
    refused.catch(() => undefined);
    upload(refused);
    let settled = false;
    await expect(
      writeDeltaFile(
        input(async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          settled = true;
        }),
      ),
    ).rejects.toThrow('upload refused');
    expect(settled).toBe(true);
  });

  it("fails with the count's work's error when the upload succeeds", async () => {
    upload(Promise.resolve());
    await expect(
      writeDeltaFile(
        input(async () => {
          throw new Error('record refused');
        }),
      ),
    ).rejects.toThrow('record refused');
  });
});

describe('delta file bytes', () => {
  it('gzips one JSON line per change, in order, skipping drafts, and counts the lines', async () => {
    const products = storedProducts();
    let lines = 0;
    const text = await gunzipped(
      deltaFileBytes(
        changesOf([
          { type: 'createupdate', stored: products.get(LIVE) as StoredProduct },
          { type: 'createupdate', stored: products.get(DRAFT) as StoredProduct },
          { type: 'delete', id: id(3) },
        ]),
        { defaultLocale: 'en-US', full: false, onLine: () => (lines += 1) },
      ),
    );
    expect(text.endsWith('\n')).toBe(true);
    const parsed = text
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(parsed.map((line) => [line.delta_type, line.id])).toEqual([
      ['createupdate', LIVE],
      ['delete', id(3)],
    ]);
    expect(lines).toBe(2);
  });

  it('is an empty gzip file when nothing changed', async () => {
    expect(await gunzipped(deltaFileBytes(changesOf([]), { defaultLocale: 'en-US', full: false }))).toBe('');
  });

  it('fails when its source fails', async () => {
    async function* failing(): AsyncGenerator<DeltaChange> {
      yield { type: 'delete', id: id(3) };
      throw new Error('comparison broke');
    }
    await expect(
      gunzipped(deltaFileBytes(failing(), { defaultLocale: 'en-US', full: false })),
    ).rejects.toThrow('comparison broke');
  });

  it('streams 50,000 changes without holding them: the live heap stays far below the file', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const template = product(LIVE);
    const description = 'x'.repeat(2000);
    const COUNT = 50_000;
    async function* many(): AsyncGenerator<DeltaChange> {
      for (let n = 0; n < COUNT; n += 1) {
        // Each change a fresh object with its own text, as the comparison hands them over.
        const stored: StoredProduct = {
          ...template,
          resource: {
            ...template.resource,
            id: id(100_000 + n),
            attributes: { ...template.resource.attributes, description: `${n} ${description}` },
          },
        };
        yield { type: 'createupdate', stored };
      }
    }
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let lines = 0;
    let inflated = 0;
    let compressed = 0;
    let chunks = 0;
    for await (const chunk of deltaFileBytes(many(), {
      defaultLocale: 'en-US',
      full: false,
      onLine: () => (lines += 1),
    })) {
      compressed += chunk.length;
      chunks += 1;
      if (chunks % 10 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      }
    }
    const lineChars = (deltaLine((await many().next()).value as DeltaChange, 'en-US') as string).length;
    inflated = lines * lineChars;
    expect(lines).toBe(COUNT);
    expect(chunks).toBeGreaterThan(20);
    // The file's text is over 100 MB; what stays alive while it streams is a few batches and gzip's window.
    expect(inflated).toBeGreaterThan(100 * 1024 * 1024);
    expect(peak).toBeLessThan(16 * 1024 * 1024);
    expect(compressed).toBeGreaterThan(0);
  }, 120_000);
});
