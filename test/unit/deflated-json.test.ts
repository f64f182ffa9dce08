import { inflateRawSync } from 'node:zlib';
import { deflateJson, inflatedText } from '../../lib/catalog/deflated-json';
import { manifestEntry } from '../../lib/catalog/pipeline/item-manifest';

const T0 = '2026-01-01T00:00:00.000Z';

describe('deflated JSON', () => {
  const value = [
    ['a', 'Name', 'sku-1', ['red', 'blue']],
    ['b', 'Ünïcode ✓', '', []],
  ];

  it('deflates JSON as raw deflate, which inflates back to the text', () => {
    const bytes = deflateJson(value);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(JSON.parse(inflateRawSync(bytes).toString('utf8'))).toEqual(value);
  });

  it("answers the text of bytes this process deflated, and inflates anyone else's", () => {
    const bytes = deflateJson(value);
    const stored = new Uint8Array(bytes); // the same bytes as read back from the table
    expect(inflatedText(bytes)).toBe(JSON.stringify(value));
    expect(inflatedText(stored)).toBe(JSON.stringify(value));
  });

  it('gives a derived item and the same item read back one manifest entry', () => {
    const derived = { pk: 'REL#r1#3', sk: 'C#p#0', z: deflateJson(value), n: 2 };
    const readBack = { ...derived, z: new Uint8Array(derived.z) };
    expect(manifestEntry(derived, T0).equals(manifestEntry(readBack, T0))).toBe(true);
    const other = { ...derived, z: deflateJson([['a']]) };
    expect(manifestEntry(derived, T0).equals(manifestEntry(other, T0))).toBe(false);
  });
});
