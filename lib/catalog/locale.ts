/** One language range of an `accept-language` header with its quality. */
export interface LanguageRange {
  tag: string;
  q: number;
}

const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/;
const QUALITY = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;
/** Headers are client input: only this many ranges are looked at. */
const MAX_RANGES = 32;

/**
 * Parses `accept-language` (RFC 9110): ranges with optional q-values, best first (stable for equal q).
 * Malformed ranges and `q=0` are dropped; the function never throws.
 */
export function parseAcceptLanguage(header: string | undefined): LanguageRange[] {
  if (header === undefined) return [];
  const ranges: LanguageRange[] = [];
  for (const part of header.split(',').slice(0, MAX_RANGES)) {
    const [rawTag, ...params] = part.split(';').map((piece) => piece.trim());
    if (!rawTag || !RANGE.test(rawTag)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const match = QUALITY.exec(param);
      if (match?.[1] !== undefined) q = Number(match[1]);
      else if (/^q=/i.test(param)) valid = false;
    }
    if (valid && q > 0) ranges.push({ tag: rawTag, q });
  }
  return ranges
    .map((range, index) => ({ range, index }))
    .sort((a, b) => b.range.q - a.range.q || a.index - b.index)
    .map(({ range }) => range);
}

const primary = (tag: string) => tag.split('-')[0]?.toLowerCase() ?? '';

/**
 * The locale to render: for each range of the header, best first, an exact tag among `available` (the
 * store's default locale counts as available: it is the base text), then the same language with any
 * region; `*` or no match picks the default locale. Returns one of `defaultLocale` or `available`.
 */
export function chooseLocale(
  header: string | undefined,
  available: readonly string[],
  defaultLocale: string,
): string {
  const candidates = [defaultLocale, ...available.filter((tag) => tag !== defaultLocale)];
  for (const { tag } of parseAcceptLanguage(header)) {
    if (tag === '*') return defaultLocale;
    const lower = tag.toLowerCase();
    const exact = candidates.find((candidate) => candidate.toLowerCase() === lower);
    if (exact !== undefined) return exact;
    const language = primary(tag);
    const sameLanguage = candidates.find((candidate) => primary(candidate) === language);
    if (sameLanguage !== undefined) return sameLanguage;
  }
  return defaultLocale;
}
