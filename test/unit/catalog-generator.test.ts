import { generateRelease, generateReleaseText, MAX_PRODUCT_BYTES } from '../../lib/catalog/generator';
import { validateRelease } from '../../lib/catalog/validate-stream';

type Product = { id: string; attributes: Record<string, unknown> };

describe('catalog generate', () => {
  it.each([
    { children: 0 },
    { children: 20, drafts: 3 },
    { children: 30, drafts: 4, parents: 3, seed: 9, images: true },
    { children: 12, productBytes: 3000, images: true },
  ])('writes as text exactly the document it builds (%j)', (options) => {
    const pieces = [...generateReleaseText(options)];
    expect(JSON.parse(pieces.join(''))).toEqual(generateRelease(options));
    expect(pieces.join('').endsWith('\n')).toBe(true);
  });

  it('writes a large document in pieces of about 64 KB, not as one string', () => {
    const pieces = [...generateReleaseText({ children: 2000, productBytes: 1024 })];
    expect(pieces.length).toBeGreaterThan(30);
    // A piece ends at the first product past 64 KB: never more than one product over.
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(65_536 + 2 * 1024);
  });

  it('fills products to --product-bytes with the same ids, and the document stays valid', () => {
    const bare = generateRelease({ children: 50, drafts: 5, seed: 3 });
    const filled = generateRelease({ children: 50, drafts: 5, seed: 3, productBytes: 1500 });
    const ids = (document: Record<string, unknown>) => (document.products as Product[]).map((p) => p.id);
    expect(ids(filled)).toEqual(ids(bare));
    const sizes = (filled.products as Product[]).map((p) => Buffer.byteLength(JSON.stringify(p)));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1500);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1500 + 16);
    expect(validateRelease(filled).ok).toBe(true);
  });

  it('fills up to the largest size a description allows, and the document is still valid', () => {
    const filled = generateRelease({ children: 3, productBytes: MAX_PRODUCT_BYTES });
    const result = validateRelease(filled);
    expect(result.ok ? [] : result.issues).toEqual([]);
    for (const product of filled.products as Product[])
      expect(Buffer.byteLength(JSON.stringify(product))).toBeGreaterThanOrEqual(MAX_PRODUCT_BYTES);
  });
});
