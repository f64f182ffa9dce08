import { deflateRawSync } from 'node:zlib';
import {
  type ManifestEntry,
  ManifestTable,
  manifestEntry,
  readManifestEntries,
} from '../../lib/catalog/pipeline/item-manifest';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-02-02T10:20:30.456Z';

const product = (release: string, id: string, d: string) => ({ pk: `REL#${release}#7`, sk: `P#${id}`, d });

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function entries(bytes: Buffer, size = 7) {
  const out = [];
  for await (const entry of readManifestEntries(pieces(bytes, size))) out.push(entry);
  return out;
}

describe('item manifest entries', () => {
  it('read back whole, key and shard and hashes, however the stream is cut', async () => {
    const bytes = Buffer.concat([
      manifestEntry(product('r1', 'a', '{"x":1}'), T0),
      manifestEntry({ pk: 'REL#r1#15', sk: 'L#sku#Ünïcode ✓', d: '[]' }, T0),
    ]);
    for (const size of [1, 3, 7, 64, bytes.length]) {
      const read = await entries(bytes, size);
      expect(read.map((e) => [e.sk, e.shard])).toEqual([
        ['P#a', 7],
        ['L#sku#Ünïcode ✓', 15],
      ]);
    }
  });

  it('fail on a stream cut inside an entry', async () => {
    const bytes = manifestEntry(product('r1', 'a', '{}'), T0);
    await expect(entries(bytes.subarray(0, bytes.length - 1))).rejects.toThrow(/ends inside an entry/);
  });

  it('hash the same content alike whatever the release and its publish time, and different content apart', async () => {
    const [a] = await entries(manifestEntry(product('r1', 'a', `{"name":"A","published_at":"${T0}"}`), T0));
    const [b] = await entries(manifestEntry(product('r2', 'a', `{"name":"A","published_at":"${T1}"}`), T1));
    const [c] = await entries(manifestEntry(product('r2', 'a', `{"name":"B","published_at":"${T1}"}`), T1));
    // An own time that is not the publish time is content.
    const [d] = await entries(manifestEntry(product('r2', 'a', `{"name":"A","published_at":"${T0}"}`), T1));
    expect([b?.k1, b?.k2, b?.c1, b?.c2]).toEqual([a?.k1, a?.k2, a?.c1, a?.c2]);
    expect([c?.c1, c?.c2]).not.toEqual([a?.c1, a?.c2]);
    expect([d?.c1, d?.c2]).not.toEqual([a?.c1, a?.c2]);
  });

  it('compare deflated items by what they hold', async () => {
    const z = (text: string) => new Uint8Array(deflateRawSync(text));
    const chunk = (release: string, text: string, at: string) =>
      manifestEntry({ pk: `REL#${release}#1`, sk: 'C#p#000000', z: z(text) }, at);
    const [a] = await entries(chunk('r1', `[["x","${T0}"]]`, T0));
    const [b] = await entries(chunk('r2', `[["x","${T1}"]]`, T1));
    const [c] = await entries(chunk('r2', `[["y","${T1}"]]`, T1));
    expect([b?.c1, b?.c2]).toEqual([a?.c1, a?.c2]);
    expect([c?.c1, c?.c2]).not.toEqual([a?.c1, a?.c2]);
  });
});

describe('ManifestTable', () => {
  async function table(items: Record<string, unknown>[], only?: (sk: string) => boolean) {
    const bytes = Buffer.concat(items.map((item) => manifestEntry(item, T0)));
    return ManifestTable.load(pieces(bytes, 5), only);
  }

  it('says which items are unchanged and which keys the new release no longer has', async () => {
    const base = await table([product('r1', 'a', '1'), product('r1', 'b', '2'), product('r1', 'c', '3')]);
    const next = async (item: Record<string, unknown>) =>
      (await entries(manifestEntry(item, T1)))[0] as ManifestEntry;
    expect(base.unchanged(await next(product('r2', 'a', '1')))).toBe(true);
    expect(base.unchanged(await next(product('r2', 'b', '22')))).toBe(false);
    expect(base.unchanged(await next(product('r2', 'new', '9')))).toBe(false);
    expect([0, 1, 2].map((i) => base.kept(i))).toEqual([true, true, false]);
    expect(base.collisions).toBe(0);
  });

  it('holds only the entries asked for, and counts keys entered twice', async () => {
    const only = await table([product('r1', 'a', '1'), { pk: 'REL#r1#0', sk: 'M#release', d: '{}' }], (sk) =>
      sk.startsWith('P#'),
    );
    expect(only.count).toBe(1);
    const twice = await table([product('r1', 'a', '1'), product('r1', 'a', '2')]);
    expect(twice.collisions).toBe(1);
  });

  it('answers for an empty manifest', async () => {
    const empty = await table([]);
    expect(empty.count).toBe(0);
    expect(empty.unchanged({ k1: 1, k2: 2, c1: 3, c2: 4 })).toBe(false);
  });
});
