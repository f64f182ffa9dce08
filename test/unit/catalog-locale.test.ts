import fc from 'fast-check';
import { chooseLocale, parseAcceptLanguage } from '../../lib/catalog/locale';

describe('parseAcceptLanguage', () => {
  it('orders ranges by q-value, keeping header order for equal q', () => {
    expect(parseAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.9, *;q=0.5')).toEqual([
      { tag: 'fr-CH', q: 1 },
      { tag: 'fr', q: 0.9 },
      { tag: 'de', q: 0.9 },
      { tag: 'en', q: 0.8 },
      { tag: '*', q: 0.5 },
    ]);
  });

  it('drops q=0, malformed ranges and malformed q-values', () => {
    expect(parseAcceptLanguage('en;q=0, fr;q=abc, de;q=1.5, it;q=0.3, 12-x, es')).toEqual([
      { tag: 'es', q: 1 },
      { tag: 'it', q: 0.3 },
    ]);
  });

  it('accepts spacing and upper-case Q', () => {
    expect(parseAcceptLanguage('  de-DE ;  Q=0.7 ,en')).toEqual([
      { tag: 'en', q: 1 },
      { tag: 'de-DE', q: 0.7 },
    ]);
  });

  it('is empty for a missing or empty header', () => {
    expect(parseAcceptLanguage(undefined)).toEqual([]);
    expect(parseAcceptLanguage('')).toEqual([]);
  });

  it('never throws, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (header) => {
        for (const range of parseAcceptLanguage(header)) {
          expect(range.q).toBeGreaterThan(0);
          expect(range.q).toBeLessThanOrEqual(1);
        }
      }),
    );
  });
});

describe('chooseLocale', () => {
  const available = ['fr-FR', 'de-DE', 'pt-BR'];
  it.each([
    // [accept-language, chosen]
    [undefined, 'en-US'],
    ['', 'en-US'],
    ['fr-FR', 'fr-FR'],
    ['FR-fr', 'fr-FR'],
    ['fr-CH', 'fr-FR'],
    ['fr', 'fr-FR'],
    ['de-AT;q=0.5, pt;q=0.9', 'pt-BR'],
    ['es, de;q=0.1', 'de-DE'],
    ['es, it', 'en-US'],
    ['*', 'en-US'],
    ['es, *;q=0.5, fr;q=0.4', 'en-US'],
    ['en-GB, fr', 'en-US'],
    ['en-US, fr', 'en-US'],
    ['fr;q=0, de', 'de-DE'],
  ])('accept-language %p picks %p', (header, expected) => {
    expect(chooseLocale(header, available, 'en-US')).toBe(expected);
  });

  it('prefers an exact tag over a language-only match of the same range', () => {
    expect(chooseLocale('fr-CA', ['fr-FR', 'fr-CA'], 'en-US')).toBe('fr-CA');
  });

  it('returns the default locale when the product has no locales', () => {
    expect(chooseLocale('fr-FR', [], 'de-DE')).toBe('de-DE');
  });
});
