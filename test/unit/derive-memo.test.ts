import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { deriveRange, planRelease, type ReleaseItem } from '../../lib/catalog/derive-stream';
import { FILTER_INDEX_VERSION } from '../../lib/catalog/filter-index';
import { generateRelease } from '../../lib/catalog/generator';
import {
  DERIVATION_VERSION,
  RangeHasher,
  rangeKey,
  readRangeBytes,
} from '../../lib/catalog/pipeline/derive-memo';
import { relocation } from '../../lib/catalog/pipeline/share';
import type { ReleaseLayout } from '../../lib/catalog/types';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';

/**
 * What keys a range's kept derivation (lib/catalog/pipeline/derive-memo.ts): every input but the publish
 * time and the release's id; and the derivation's version, pinned here to what it derives.
 */

const LAYOUT: ReleaseLayout = {
  id: '01900000-0000-7000-8000-0000000000aa',
  shards: 16,
  chunk_size: 100,
  published_at: '2026-11-25T12:00:00.000Z',
  filter_index: FILTER_INDEX_VERSION,
};
const CATALOG_ID = '01900000-0000-7000-8000-0000000000cc';

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** A generated document without product times (the derivation writes the publish time into each). */
function documentText(seed = 4): Buffer {
  const doc = generateRelease({ children: 240, parents: 2, seed, images: true }) as {
    products: { attributes: Record<string, unknown> }[];
  };
  for (const product of doc.products) {
    delete product.attributes.created_at;
    delete product.attributes.updated_at;
  }
  return Buffer.from(JSON.stringify(doc));
}

/** The plan of `text` in ranges of about 100 products, and each range's bytes. */
async function planned(text: Buffer, layout = LAYOUT) {
  const { plan, picks } = await planRelease({
    open: () => pieces(text, 65_536),
    catalogId: CATALOG_ID,
    layout,
    storeCurrencies: DEFAULT_CURRENCIES,
    rangeProducts: 100,
  });
  const bytesOf = (n: number) => {
    const range = plan.ranges[n] as (typeof plan.ranges)[number];
    return text.subarray(range.offset, range.offset + range.length);
  };
  return { plan, picks, bytesOf };
}

async function keysOf(text: Buffer, layout = LAYOUT) {
  const { plan, picks, bytesOf } = await planned(text, layout);
  const times = [layout.published_at];
  const keys: (string | undefined)[] = [];
  for (const range of plan.ranges) {
    const bytes = await readRangeBytes(pieces(bytesOf(range.n), 4096), times);
    keys.push(rangeKey(plan, picks(range.n), range, bytes, times));
  }
  return keys;
}

describe('a range’s key', () => {
  it('is the same for another release of the same document, at another time', async () => {
    const text = documentText();
    const first = await keysOf(text);
    expect(first.length).toBeGreaterThanOrEqual(4);
    expect(first.every((key) => typeof key === 'string')).toBe(true);
    const later = await keysOf(text, {
      ...LAYOUT,
      id: '01900000-0000-7000-8000-0000000000ab',
      published_at: '2026-11-26T08:30:00.000Z',
    });
    expect(later).toEqual(first);
  });

  it('changes with the range’s bytes and with the layout, and only for the range that changed', async () => {
    const text = documentText();
    const before = await keysOf(text);
    const doc = JSON.parse(text.toString('utf8')) as { products: { attributes: { name: string } }[] };
    (doc.products[150] as { attributes: { name: string } }).attributes.name =
      'Renamed, a longer name than before';
    const after = await keysOf(Buffer.from(JSON.stringify(doc)));
    const differ = before.map((key, n) => key !== after[n]);
    expect(differ.filter(Boolean).length).toBe(1);
    expect(await keysOf(text, { ...LAYOUT, shards: 32 })).not.toEqual(before);
  });

  it('is none when the range’s bytes or the plan hold a publish time as text', async () => {
    const text = documentText();
    const { plan, picks, bytesOf } = await planned(text);
    const range = plan.ranges[1] as (typeof plan.ranges)[number];
    // Split at every byte: a time across two reads is found.
    const bytes = bytesOf(1);
    const inside = bytes.toString('utf8').slice(200, 224);
    expect(await readRangeBytes(pieces(bytes, 1), [inside])).toMatchObject({ holdsTime: true });
    expect(await readRangeBytes(pieces(bytes, 7), [LAYOUT.published_at])).toMatchObject({ holdsTime: false });
    const held = await readRangeBytes(pieces(bytes, 7), [inside]);
    expect(rangeKey(plan, picks(1), range, held, [inside])).toBeUndefined();
    const clean = await readRangeBytes(pieces(bytes, 7), []);
    const catalogName = (plan.head.catalog as { name: string }).name;
    expect(rangeKey(plan, picks(1), range, clean, [catalogName])).toBeUndefined();
    expect(rangeKey(plan, picks(1), range, clean, [LAYOUT.published_at])).toEqual(expect.any(String));
  });
});

describe('the plan’s hashes of its ranges', () => {
  it('are those of each range’s bytes read alone, whatever the reads’ sizes and the members’ order', async () => {
    const text = documentText();
    const { products, ...rest } = JSON.parse(text.toString('utf8')) as Record<string, unknown>;
    // The other members before the products (held while the first range is fed) and after them.
    const productsLast = Buffer.from(JSON.stringify({ ...rest, products }));
    const productsFirst = Buffer.from(JSON.stringify({ products, ...rest }));
    for (const document of [productsLast, productsFirst]) {
      const { plan, bytesOf } = await planned(document);
      expect(plan.ranges.length).toBeGreaterThanOrEqual(3);
      // A time that occurs in one range only, across the edges of small reads.
      const inside = bytesOf(1).toString('utf8').slice(300, 324);
      const times = [LAYOUT.published_at, inside];
      expect((await readRangeBytes(pieces(bytesOf(1), 4096), times)).holdsTime).toBe(true);
      expect((await readRangeBytes(pieces(bytesOf(0), 4096), times)).holdsTime).toBe(false);
      for (const size of [1, 7, 4096, 65_536]) {
        const hashers: RangeHasher[] = [];
        await planRelease({
          open: () => pieces(document, size),
          catalogId: CATALOG_ID,
          layout: LAYOUT,
          storeCurrencies: DEFAULT_CURRENCIES,
          rangeProducts: 100,
          onRangeBytes: (n, piece) => {
            hashers[n] ??= new RangeHasher(times);
            hashers[n].update(piece);
          },
        });
        expect(hashers.length).toBe(plan.ranges.length);
        for (const range of plan.ranges) {
          const alone = await readRangeBytes(pieces(bytesOf(range.n), 4096), times);
          expect([size, range.n, hashers[range.n]?.done()]).toEqual([size, range.n, alone]);
          if (!alone.holdsTime) expect(alone.latest).toBe(latestStamp(bytesOf(range.n)));
        }
      }
    }
  });
});

/** The greatest time written as `toISOString` writes it in `bytes`, as a regular expression finds it. */
function latestStamp(bytes: Buffer): string | null {
  const stamps = bytes.toString('latin1').match(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g) ?? [];
  return stamps.length === 0 ? null : (stamps.sort().at(-1) as string);
}

describe('the latest time a range’s bytes hold', () => {
  it('is the greatest written as toISOString anywhere in them, across the edges of reads of any size', async () => {
    const latest = '2031-01-02T03:04:05.678Z';
    const bytes = Buffer.from(
      `{"a":"x2030-12-31T23:59:59.999Zy","b":"Z${latest}Z","c":"2099-01-01T00:00:00Z","d":"2099-01-01T00:00:00.000","e":"99999-01-01T00:00:00.000Z"}`,
    );
    expect(latestStamp(bytes)).toBe('9999-01-01T00:00:00.000Z');
    for (const size of [1, 5, 23, 24, 25, 4096]) {
      expect([size, (await readRangeBytes(pieces(bytes, size), [])).latest]).toEqual([
        size,
        '9999-01-01T00:00:00.000Z',
      ]);
      const without = Buffer.from(bytes.toString('latin1').replace(/"e":"[^"]*"/, '"e":1'));
      expect([size, (await readRangeBytes(pieces(without, size), [])).latest]).toEqual([size, latest]);
    }
    expect((await readRangeBytes(pieces(Buffer.from('{"a":"2099-01-01T00:00:00Z"}'), 3), [])).latest).toBe(
      null,
    );
  });
});

/** Every range's items and partial of a sample document, as one digest. */
async function derivationDigest(): Promise<string> {
  const text = documentText(7);
  const { plan, picks, bytesOf } = await planned(text);
  const hash = createHash('sha256');
  for (const range of plan.ranges) {
    const items: ReleaseItem[] = [];
    const partial = await deriveRange({
      plan,
      picks: picks(range.n),
      range,
      source: pieces(bytesOf(range.n), 65_536),
      emit: (item) => {
        items.push(item);
      },
    });
    hash.update(
      // Deflated attributes as their text: the digest is of what is derived, not of zlib's encoding.
      JSON.stringify([items, partial], (_k, value: unknown) =>
        value instanceof Uint8Array ? inflateRawSync(value).toString('utf8') : value,
      ),
    );
  }
  return hash.digest('hex');
}

describe('the derivation’s version', () => {
  it('names what a range derives: a change of it raises DERIVATION_VERSION (and the digest here)', async () => {
    // When this fails, the derivation writes other items or partials than releases kept before: raise
    // DERIVATION_VERSION in lib/catalog/pipeline/derive-memo.ts, so that no release takes up an older
    // derivation, and record the new digest with it.
    expect({ version: DERIVATION_VERSION, digest: await derivationDigest() }).toEqual({
      version: 1,
      digest: '5878b19796e374ddfc73f9569a3e3b79e6d4b9b881200b267d40c59ff57ed559',
    });
  });
});

describe('the lines of kept ranges derived again', () => {
  it('follow each range into its chunk files; the other chunks move up or down', () => {
    const chunk = (key: string, items: number, kept = false) => ({
      key,
      items,
      ...(kept ? { kept: true as const } : {}),
    });
    const chunks = [chunk('a', 4), chunk('b', 5, true), chunk('c', 2)];
    const moved = relocation(chunks, new Map([[1, [chunk('b1', 3), chunk('b2', 2)]]]));
    expect(moved.chunks.map((c) => c.key)).toEqual(['a', 'b1', 'b2', 'c']);
    const marked = new Map([
      [0, [1, 3]],
      [1, [0, 2, 3, 4]],
      [2, [1]],
    ]);
    expect([...moved.lines(marked)]).toEqual([
      [0, [1, 3]],
      [1, [0, 2]],
      [2, [0, 1]],
      [3, [1]],
    ]);
  });
});
