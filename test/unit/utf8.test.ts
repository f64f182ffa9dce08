import { invalidUtf8Offset } from '../../lib/http/utf8';

describe('invalidUtf8Offset', () => {
  it.each<[string, number[], number | undefined]>([
    ['ASCII', [0x61, 0x62], undefined],
    [
      'é, €, 😀 and U+10FFFF',
      [0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xf4, 0x8f, 0xbf, 0xbf],
      undefined,
    ],
    ['Latin-1 é', [0x61, 0xe9, 0x62], 1],
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['an overlong /', [0xc0, 0xaf], 0],
    ['an overlong three-byte form', [0xe0, 0x80, 0xaf], 0],
    ['a surrogate (U+D800)', [0x61, 0xed, 0xa0, 0x80], 1],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a sequence cut short', [0xc3, 0xa9, 0xe2, 0x82], 2],
    ['0xff', [0xff], 0],
  ])('%s: %p', (_case, bytes, offset) => {
    const array = Uint8Array.from(bytes);
    expect(invalidUtf8Offset(array)).toBe(offset);
    // The same verdict as the strict decoder's.
    let decodes = true;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(array);
    } catch {
      decodes = false;
    }
    expect(decodes).toBe(offset === undefined);
  });
});
