import fc from 'fast-check';
import { CATALOG, type PlaceholderName, ref } from './world';

/**
 * Building blocks of the fuzzed requests. Each request part comes as a pair: `valid` (what a correct
 * client sends, so the success paths and the writes run too) and `any` (valid often, otherwise wrong in
 * one of many ways). Strings may hold `{{placeholder}}`s (see world.ts).
 */
export interface Part<T> {
  valid: fc.Arbitrary<T>;
  any: fc.Arbitrary<T>;
}

/** A request body: text, or the base64 of raw bytes (`base64`), with the Content-Type to send (if any). */
export interface FuzzBody {
  text: string;
  base64: boolean;
  contentType: string | undefined;
}

/** A request to send to one route; every string may hold placeholders. */
export interface FuzzRequest {
  /** Raw (percent-encoded) path segment per `{param}` of the route. */
  params: Record<string, string>;
  /** Raw query string without `?` ('' for none). */
  query: string;
  headers: Record<string, string>;
  body: FuzzBody | undefined;
}

/** Every `any` arbitrary lists its valid values first: a failure then shrinks towards a valid request. */
export const CROSS_SHRINK = { withCrossShrink: true };

/** Space-separated tokens, for long lists of simple test values. */
const words = (text: string) => text.split(' ');

// ---------------------------------------------------------------- strings

/** Single characters that tend to break things: quotes, escapes, controls, bidi, zero-width, surrogates. */
const NASTY_CHARS = [
  'a',
  'Z',
  '0',
  ' ',
  '-',
  '_',
  '.',
  'é',
  'ß',
  '中',
  '😀',
  '\u0301',
  '\u200b',
  '\u202e',
  '\ufeff',
  '\u2028',
  '\u0000',
  '\u001f',
  '\n',
  '\t',
  '"',
  "'",
  '\\',
  '/',
  '%',
  '&',
  '=',
  '+',
  '#',
  '?',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '<',
  ':',
  ',',
  ';',
  '\ud800',
  '\udc00',
];

/** Short strings of any kind: graphemes, any code point, and the nasty characters above. */
export const unicodeString = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength, maxLength }),
    fc.string({ unit: 'binary', minLength, maxLength }),
    fc.string({ unit: fc.constantFrom(...NASTY_CHARS), minLength, maxLength }),
  );

/** One character repeated: from just over a field's limit to well over the 64 KiB body limit. */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('a', ' ', 'é', '中', '😀', '\ud800', '"', '\\', '%'),
    fc.oneof(fc.integer({ min: 250, max: 2000 }), fc.integer({ min: 8000, max: 70000 })),
  )
  .map(([char, count]) => char.repeat(count));

/**
 * Text at and around the byte limits of values that become DynamoDB keys: characters of 1 to 4 UTF-8
 * bytes (4-byte ones included, where character counts and byte counts differ most) filling exactly
 * 512, 1,024 or 2,048 bytes, or one character more or fewer, and 512-character runs of each width.
 */
export const byteLimitString: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('a', '\u00e9', '\u4e2d', '\u{1F600}', '\u{10FFFF}'),
    fc.constantFrom(512, 1024, 2048),
    fc.constantFrom(-1, 0, 1, 'chars' as const),
  )
  .map(([char, limit, delta]) => {
    const width = Buffer.byteLength(char, 'utf8');
    const count = delta === 'chars' ? 512 : Math.max(1, Math.floor(limit / width) + delta);
    return char.repeat(count);
  });

/** Percent-encodes text, lone surrogates included (as the bytes a careless encoder would send). */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

/** Percent-encodes text but keeps `{{placeholder}}`s as they are (their values are URL-safe). */
export function encodeKeepingPlaceholders(text: string): string {
  return text
    .split(/(\{\{[A-Za-z]+\}\})/)
    .map((piece, index) => (index % 2 === 1 ? piece : percentEncode(piece)))
    .join('');
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// ---------------------------------------------------------------- authorization

const TOKENS: PlaceholderName[] = [
  'adminToken',
  'implicitToken',
  'otherAdminToken',
  'otherImplicitToken',
  'revokedToken',
  'forgedToken',
  'tamperedToken',
];

/** `Authorization` values: `Bearer` with one of `valid` tokens, or other tokens, mangled schemes, garbage. */
export function authorization(valid: PlaceholderName[]): Part<string | undefined> {
  const validArb = fc.constantFrom(...valid).map((name) => `Bearer ${ref(name)}`);
  const token = fc.constantFrom(...TOKENS).map(ref);
  return {
    valid: validArb,
    any: fc.oneof(
      CROSS_SHRINK,
      { weight: 16, arbitrary: validArb },
      { weight: 4, arbitrary: token.map((t) => `Bearer ${t}`) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            fc.constantFrom('bearer ', 'BEARER ', 'Bearer  ', 'Bearer\t', 'Token ', 'Basic ', '', 'Bearer'),
            token,
            fc.constantFrom('', ' ', '\t', '\r\n', 'x', ' x', '.', ',', '\u0000', ref('adminToken')),
          )
          .map(([scheme, t, suffix]) => `${scheme}${t}${suffix}`),
      },
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.constantFrom(
            '',
            ' ',
            'Bearer',
            'Bearer ',
            'Basic dXNlcjpwYXNz',
            'Bearer null',
            'Bearer undefined',
            'Bearer {}',
            `Bearer ${ref('clientSecret')}`,
          ),
          unicodeString(0, 60),
          unicodeString(1, 60).map((s) => `Bearer ${s}`),
          fc.integer({ min: 400, max: 20000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
          fc
            .tuple(
              fc.uuid(),
              fc.uuid(),
              fc.string({ unit: fc.constantFrom(...BASE64URL), minLength: 43, maxLength: 43 }),
            )
            .map(([store, key, secret]) => `Bearer ${store}.${key}.${secret}`),
        ),
      },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  };
}

// ---------------------------------------------------------------- path segments

const junkSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    ...words(
      '% %zz %E0%A4%A %ED%A0%80 %C0%AF %FF %00 %2F %2e%2e .. . __proto__ constructor prototype hasOwnProperty null undefined 0 -1 %20 + * {id} %7Bid%7D Infinity',
    ),
  ),
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.uuid().map((u) => `%7B${u}%7D`),
  fc.uuid().map((u) => `${u}x`),
  fc.uuid().map((u) => `${u}%00`),
  fc.uuid().map((u) => u.replace(/-/g, '')),
  fc.uuid().map((u) => ` ${u}`.replace(' ', '%20')),
  unicodeString(1, 40).map(percentEncode),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map((s) => s.replace(/[/?#%]/g, '_')),
  fc.integer({ min: 256, max: 8000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 100, max: 3000 }).map((n) => '%F0%9F%98%80'.repeat(n)),
);

/** A path segment: one of the valid placeholders, other placeholders (other stores, deleted), or junk. */
export function segment(valid: string[], others: string[]): Part<string> {
  const validArb = fc.constantFrom(...valid);
  const alternatives = [
    { weight: 6, arbitrary: validArb },
    { weight: 3, arbitrary: junkSegment },
    // Ids become DynamoDB keys: text at the key byte limits, percent-encoded as a client would send it.
    { weight: 1, arbitrary: byteLimitString.map(encodeURIComponent) },
  ];
  if (others.length > 0) alternatives.push({ weight: 3, arbitrary: fc.constantFrom(...others) });
  return { valid: validArb, any: fc.oneof(CROSS_SHRINK, ...alternatives) };
}

// ---------------------------------------------------------------- query strings

const PAGE_KEYS = {
  limit: ['page[limit]', 'page%5Blimit%5D', 'page%5blimit%5d'],
  offset: ['page[offset]', 'page%5Boffset%5D'],
  junk: ['PAGE[LIMIT]', 'page[limit][]', 'page[]', 'page', 'page[limit', 'limit', 'offset', 'page[size]'],
};

const badNumber: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    ' 5',
    '5 ',
    '1'.repeat(400),
    ...words(
      '0 -1 101 10001 -0 +5 05 1e2 1.0 1.5 0x10 NaN Infinity -Infinity 5,5 null undefined [] true ٥ ５ 5%00 %35 %2B5 99999999999999999999999',
    ),
  ),
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt().map(String),
  unicodeString(0, 20).map(percentEncode),
);

/** `page[limit]` / `page[offset]` parts: in range, or negative, huge, floats, empty, non-numeric, repeated. */
export function pageQuery(): Part<string[]> {
  const valid = fc
    .tuple(
      fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
      fc.option(
        fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: 0, max: 30 }) },
          { weight: 1, arbitrary: fc.integer({ min: 0, max: 10000 }) },
        ),
        { nil: undefined },
      ),
    )
    .map(([limit, offset]) => [
      ...(limit === undefined ? [] : [`page[limit]=${limit}`]),
      ...(offset === undefined ? [] : [`page[offset]=${offset}`]),
    ]);
  const part = fc.oneof(
    fc.tuple(fc.constantFrom(...PAGE_KEYS.limit), fc.integer({ min: 1, max: 100 }).map(String)),
    fc.tuple(fc.constantFrom(...PAGE_KEYS.offset), fc.integer({ min: 0, max: 10000 }).map(String)),
    fc.tuple(fc.constantFrom(...PAGE_KEYS.limit, ...PAGE_KEYS.offset, ...PAGE_KEYS.junk), badNumber),
    fc.constantFrom(...PAGE_KEYS.limit, ...PAGE_KEYS.offset).map((key) => [key] as const),
  );
  const any = fc.oneof(
    CROSS_SHRINK,
    { weight: 2, arbitrary: valid },
    {
      weight: 3,
      arbitrary: fc
        .array(part, { maxLength: 4 })
        .map((parts) => parts.map((p) => (p.length === 1 ? p[0] : `${p[0]}=${p[1]}`))),
    },
  );
  return { valid, any };
}

/** Unrelated query parameters, as a route that takes none should ignore them. */
export const junkQueryParts: fc.Arbitrary<string[]> = fc.array(
  fc
    .oneof(
      fc.tuple(fc.constantFrom('filter', 'sort', 'include', '__proto__', 'constructor', 'a'), badNumber),
      fc.tuple(unicodeString(1, 10).map(percentEncode), unicodeString(0, 10).map(percentEncode)),
      fc.constantFrom('&', '&&', '=', '==', '%', '?', 'a=1&a=2'),
    )
    .map((part) => (typeof part === 'string' ? part : `${part[0]}=${part[1]}`)),
  { maxLength: 3 },
);

// ---------------------------------------------------------------- filters

/** Values of the published products (so filters match, or match a draft, a parent...) by attribute. */
const matchingValues: Record<string, string[]> = {
  id: CATALOG.values('id'),
  name: CATALOG.values('name'),
  sku: CATALOG.values('sku'),
  slug: CATALOG.values('slug'),
  manufacturer_part_num: CATALOG.values('manufacturer_part_num'),
  mpn: CATALOG.values('manufacturer_part_num'),
  upc_ean: CATALOG.values('upc_ean'),
  product_types: ['standard', 'child', 'parent', 'bundle'],
  tags: [...CATALOG.values('tags'), ...CATALOG.values('tags').map((tag) => tag.toUpperCase())],
};
const FILTER_ATTRIBUTES = Object.keys(matchingValues);

const filterValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Object.values(matchingValues).flat()) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 $\-_*.@+/{}|]{0,11}$/) },
  { weight: 1, arbitrary: unicodeString(1, 12) },
);

/** Renders a value bare when the grammar allows it (style permitting), else quoted with escapes. */
function renderFilterValue(value: string, style: number): string {
  const bare = /^[\p{L}\p{M}\p{N} $\-_*.@+/{}|]+$/u.test(value) && value.trim() === value;
  if (bare && style % 3 !== 0) return value;
  const quote = style % 2 === 0 ? '"' : "'";
  return `${quote}${value.replace(quote === '"' ? /[\\"]/g : /[\\']/g, '\\$&')}${quote}`;
}

/** Filters from the filter grammar (docs/filtering.md), with values that match the children and values that do not. */
export const grammarFilter: fc.Arbitrary<string> = fc
  .array(
    fc.record({
      attribute: fc.constantFrom(...FILTER_ATTRIBUTES),
      eq: fc.boolean(),
      values: fc.array(fc.tuple(filterValue, fc.nat()), { minLength: 1, maxLength: 4 }),
      space: fc.constantFrom('', '', ' ', '  '),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .map((expressions) =>
    expressions
      .map(({ attribute, eq, values, space }) => {
        const op = eq && attribute !== 'id' ? 'eq' : 'in';
        const kept = op === 'eq' ? values.slice(0, 1) : values;
        const rendered = kept.map(([value, style]) => `${space}${renderFilterValue(value, style)}`);
        return `${op}(${attribute},${rendered.join(',')})`;
      })
      .join(':'),
  );

const filterMutation = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.constantFrom("'", '\\', ' ', '\u0000', '\ud800', ...words('( ) , : " # 😀 % & = eq( in(sku,')),
  }),
  fc.record({
    kind: fc.constant('swap' as const),
    from: fc.constantFrom('eq', 'in', 'sku', 'tags', 'id', '(', ')', ',', ':'),
    to: fc.constantFrom('', ...words('ne EQ IN nin like price ID constructor __proto__ toString [ ; ::')),
  }),
  fc.record({ kind: fc.constant('repeat' as const), times: fc.integer({ min: 2, max: 1200 }) }),
);

/** Grammar filters mutated: cut short, characters inserted, operators and attributes swapped, repeated. */
export const mutatedFilter: fc.Arbitrary<string> = fc
  .tuple(grammarFilter, fc.array(filterMutation, { minLength: 1, maxLength: 3 }))
  .map(([filter, mutations]) => {
    let text = filter;
    for (const mutation of mutations) {
      if (mutation.kind === 'cut') text = text.slice(0, mutation.at % (text.length + 1));
      else if (mutation.kind === 'insert') {
        const at = mutation.at % (text.length + 1);
        text = text.slice(0, at) + mutation.text + text.slice(at);
      } else if (mutation.kind === 'swap') text = text.replace(mutation.from, mutation.to);
      else {
        // Past 10 expressions and past 8 KiB, but no further: a longer filter tests nothing more.
        const times = Math.min(mutation.times, Math.ceil(12000 / (text.length + 1)));
        text = Array.from({ length: times }, () => text).join(':');
      }
    }
    return text;
  });

/** `filter=` parts: valid, mutated, random, very long; percent-encoded, raw, or repeated. */
export function filterQuery(
  valid: fc.Arbitrary<string[]> = grammarFilter.map(encodedFilter),
): Part<string[]> {
  const text = fc.oneof(
    { weight: 3, arbitrary: grammarFilter },
    { weight: 2, arbitrary: keyFilter },
    { weight: 4, arbitrary: mutatedFilter },
    { weight: 1, arbitrary: unicodeString(0, 40) },
    { weight: 1, arbitrary: hugeString },
  );
  const any = fc.oneof(
    CROSS_SHRINK,
    { weight: 3, arbitrary: valid },
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    {
      weight: 5,
      arbitrary: fc
        .array(fc.tuple(text, fc.boolean()), { minLength: 1, maxLength: 2 })
        .map((filters) =>
          filters.map(
            ([filter, raw]) => `filter=${raw ? filter.replace(/[&#]/g, '') : percentEncode(filter)}`,
          ),
        ),
    },
  );
  return { valid, any };
}

/** A filter as a query part, placeholders (client ids) left for the world to fill in. */
function encodedFilter(filter: string): string[] {
  return [`filter=${encodeKeepingPlaceholders(filter)}`];
}

/** Key-list filters: `eq`/`in` on name (names of the world's keys, or others) and client_id. */
export const keyFilter: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc
        .array(fc.constantFrom('First key', 'Fuzz key', 'Extra 1', 'Doomed', 'Nobody', 'Extra 1"x'), {
          minLength: 1,
          maxLength: 3,
        })
        .map((names) =>
          names.length === 1
            ? `eq(name,${JSON.stringify(names[0])})`
            : `in(name,${names.map((name) => JSON.stringify(name)).join(',')})`,
        ),
      fc
        .array(fc.constantFrom(ref('clientId'), ref('deletedClientId'), 'nobody', 'x'.repeat(300)), {
          minLength: 1,
          maxLength: 3,
        })
        .map((ids) => `in(client_id,${ids.join(',')})`),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((expressions) => expressions.join(':'));

/** `filter=` of the key list: valid key filters, else anything `filterQuery` sends (catalog filters are 400). */
export function keyFilterQuery(): Part<string[]> {
  return filterQuery(keyFilter.map(encodedFilter));
}

/** `include=` of the child list: subsets of the three names, repeated or comma-joined; and wrong ones. */
export function includeQuery(): Part<string[]> {
  const names = ['main_image', 'files', 'component_products'];
  const valid = fc
    .tuple(fc.subarray(names, { minLength: 1 }), fc.boolean())
    .map(([picked, repeat]) =>
      repeat ? picked.map((name) => `include=${name}`) : [`include=${picked.join(',')}`],
    );
  const wrong = fc.oneof(
    fc.constantFrom(
      '',
      ',',
      'main_images',
      'MAIN_IMAGE',
      'main_image,,files',
      ' files ',
      'children',
      'main_image,x',
    ),
    unicodeString(0, 20),
    hugeString,
  );
  const any = fc.oneof(
    CROSS_SHRINK,
    { weight: 3, arbitrary: valid },
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    {
      weight: 3,
      arbitrary: fc
        .array(wrong, { minLength: 1, maxLength: 2 })
        .map((values) => values.map((v) => `include=${percentEncode(v)}`)),
    },
  );
  return { valid, any };
}

/** Joins query parts in a shuffled order. */
export function joinQuery(parts: string[][], order: number): string {
  const flat = parts.flat();
  if (flat.length < 2) return flat.join('&');
  const shift = order % flat.length;
  return [...flat.slice(shift), ...flat.slice(0, shift)].join('&');
}

// ---------------------------------------------------------------- headers

const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    ...words(
      'web fr-FR * gzip https http https,http javascript:alert(1) localhost:3000 evil.example.com ../../ chunked 0 -1 99999999999',
    ),
  ),
  unicodeString(0, 30),
  fc.integer({ min: 1000, max: 10000 }).map((n) => 'x'.repeat(n)),
);

/** Unrelated or hostile headers: hosts, forwarded protocols, encodings, odd names. */
export const miscHeaders: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.constantFrom(
    ...words(
      'host Host x-forwarded-proto user-agent accept accept-language cookie content-length transfer-encoding content-encoding x-amzn-trace-id constructor toString X-Weird-Header',
    ),
  ),
  headerValue,
  { maxKeys: 4 },
);

const languageValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'fr-CA;q=0.9, en;q=0.8',
    ...words(
      'fr-FR fr FR-fr en-US,fr;q=0.5 * *;q=0 de;q=abc fr-FR;q=1.5 fr-FR;q=0 q=1 ;;; ,,,, xx-YYYYYYYYYY fr-FR;q=0.5;q=0.9 i-klingon zh-Hant-TW',
    ),
  ),
  unicodeString(0, 30),
  fc.integer({ min: 100, max: 5000 }).map((n) => `${','.repeat(n)}fr-FR`),
  fc.integer({ min: 100, max: 2000 }).map((n) => 'fr-FR;q=0.5,'.repeat(n)),
);

const contextValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('web', 'WEB', ' web ', 'mobile', 'pos', 'summer', 'SUMMER', 'winter', '', '  ', '\t'),
  unicodeString(0, 20),
  fc.constantFrom(255, 256, 1000).map((n) => 'w'.repeat(n)),
);

const currencyValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('EUR', 'USD', 'eur', ' EUR ', 'GBP', 'XXX', 'EURO', 'E', '', 'constructor', '__proto__'),
  unicodeString(0, 10),
  fc.constantFrom(255, 5000).map((n) => 'E'.repeat(n)),
);

/**
 * The catalog's shopper headers: `SVC-Channel` (or `EP-Channel`), `SVC-Context-Tag`, `accept-language`
 * (or the SDK's `x-moltin-language`), and the display currency (`EP-Currency` / `X-Moltin-Currency`).
 */
export function shopperHeaders(): Part<Record<string, string>> {
  const valid = fc
    .record({
      channel: fc.constantFrom('web', 'mobile', 'WEB'),
      tag: fc.option(fc.constantFrom('summer', 'winter'), { nil: undefined }),
      language: fc.option(fc.constantFrom('fr-FR', 'fr', 'en-US,fr;q=0.5', 'de'), { nil: undefined }),
      languageHeader: fc.constantFrom('accept-language', 'x-moltin-language'),
      currency: fc.option(fc.constantFrom('EUR', 'USD', 'eur'), { nil: undefined }),
      currencyHeader: fc.constantFrom('ep-currency', 'x-moltin-currency'),
    })
    .map(({ channel, tag, language, languageHeader, currency, currencyHeader }) => ({
      'svc-channel': channel,
      ...(tag === undefined ? {} : { 'svc-context-tag': tag }),
      ...(language === undefined ? {} : { [languageHeader]: language }),
      ...(currency === undefined ? {} : { [currencyHeader]: currency }),
    }));
  const any = fc.oneof(
    CROSS_SHRINK,
    { weight: 3, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc.dictionary(
        fc.constantFrom(
          ...words(
            'svc-channel SVC-Channel ep-channel svc-context-tag EP-Context-Tag accept-language x-moltin-language ep-currency x-moltin-currency EP-Currency',
          ),
        ),
        fc.oneof(contextValue, languageValue, currencyValue),
        { maxKeys: 5 },
      ),
    },
  );
  return { valid, any };
}

// ---------------------------------------------------------------- JSON bodies

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

/** Values of the wrong type (or a right type with a wrong value) to put anywhere in a body. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0,
    1e21,
    2 ** 53 + 2,
    '',
    ' ',
    '0',
    'application_key',
    'merchant-realm-mappings',
    'client_credentials',
    'implicit',
    [],
    {},
    [null],
    { data: null },
    { type: 'application_key' },
  ),
  fc.integer(),
  fc.double(),
  unicodeString(0, 40),
  hugeString,
  byteLimitString,
  fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 4 }),
  fc.dictionary(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'type', 'name', 'toString', 'valueOf'),
    fc.oneof(fc.string(), fc.integer(), fc.constant({})),
    { maxKeys: 3 },
  ),
);

/** JSON text that JSON.stringify never writes: numbers out of range, NaN, lone surrogate escapes, deep nesting. */
const rawJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '"a\\ud83db"',
    '"\\u0000"',
    '"\\u2028"',
    '"\\x41"',
    '"\\q"',
    "'single'",
    '/* c */1',
    ...words(
      '1e309 -1e309 -0 -0.0 1E400 1e-400 NaN Infinity -Infinity undefined 0x10 01 .5 +1 1. 123456789012345678901234567890 9007199254740993 {"a":1,} [1,] {"__proto__":{"admin":true}} {"constructor":{"prototype":{"polluted":true}}} {"type":"a","type":"b"}',
    ),
  ),
  fc
    .tuple(
      fc.constantFrom('[', '{"a":', '{"data":', '[{"x":'),
      fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1000, max: 20000 })),
    )
    .map(([open, depth]) => {
      const close = open === '[' ? ']' : open === '[{"x":' ? '}]' : '}';
      return `${open.repeat(depth)}1${close.repeat(depth)}`;
    }),
);

type JsonMutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'remove'; at: number }
  | { kind: 'raw'; at: number; text: string }
  | { kind: 'duplicate'; at: number; key: number; value: unknown; first: boolean }
  | { kind: 'special-key'; at: number; name: string; value: unknown };

const jsonMutation: fc.Arbitrary<JsonMutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: wrongValue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('raw' as const), at: fc.nat(), text: rawJsonText }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('duplicate' as const),
      at: fc.nat(),
      key: fc.nat(),
      value: wrongValue,
      first: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('special-key' as const),
      at: fc.nat(),
      name: fc.constantFrom('__proto__', 'constructor', 'prototype'),
      value: wrongValue,
    }),
  },
);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function pathsOf(value: unknown, path: Path = []): Path[] {
  const out: Path[] = [path];
  if (Array.isArray(value)) {
    for (const [i, entry] of value.entries()) out.push(...pathsOf(entry, [...path, i]));
  } else if (isObject(value))
    for (const key of Object.keys(value)) out.push(...pathsOf(value[key], [...path, key]));
  return out;
}

function getAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

/** An own, enumerable property even for `__proto__` (plain assignment would change the prototype). */
function define(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Applies structural mutations to a copy of a valid body and serialises it. Text JSON.stringify cannot
 * write (raw numbers, duplicate keys, deep nesting) goes in as sentinel strings replaced afterwards.
 */
export function mutateJson(valid: Json, mutations: JsonMutation[]): string {
  let root: unknown = structuredClone(valid);
  const raws: string[] = [];
  const keys: string[] = [];
  const set = (path: Path, value: unknown) => {
    if (path.length === 0) root = value;
    else define(getAt(root, path.slice(0, -1)) as Record<string, unknown>, path.at(-1) as string, value);
  };
  for (const mutation of mutations) {
    const paths = pathsOf(root);
    const path = paths[mutation.at % paths.length] as Path;
    if (mutation.kind === 'replace') set(path, structuredClone(mutation.value));
    else if (mutation.kind === 'raw') {
      set(path, `__fuzz_raw_${raws.length}__`);
      raws.push(mutation.text);
    } else if (mutation.kind === 'remove') {
      if (path.length === 0) root = undefined;
      else {
        const parent = getAt(root, path.slice(0, -1));
        if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
        else delete (parent as Record<string, unknown>)[path.at(-1) as string];
      }
    } else {
      const objects = paths.filter((p) => isObject(getAt(root, p)));
      const target = objects[mutation.at % Math.max(1, objects.length)];
      if (target === undefined) continue;
      const object = getAt(root, target) as Record<string, unknown>;
      let name = mutation.kind === 'special-key' ? mutation.name : undefined;
      if (mutation.kind === 'duplicate') {
        const existing = Object.keys(object);
        name = `__fuzz_key_${keys.length}__`;
        keys.push(existing[mutation.key % Math.max(1, existing.length)] ?? 'data');
      }
      const entries = Object.entries(object);
      const first = mutation.kind === 'duplicate' && mutation.first;
      const rebuilt: Record<string, unknown> = {};
      if (first) define(rebuilt, name as string, structuredClone(mutation.value));
      for (const [key, value] of entries) define(rebuilt, key, value);
      if (!first) define(rebuilt, name as string, structuredClone(mutation.value));
      set(target, rebuilt);
    }
  }
  let text = JSON.stringify(root) ?? '';
  raws.forEach((raw, i) => {
    text = text.replace(`"__fuzz_raw_${i}__"`, () => raw);
  });
  keys.forEach((key, i) => {
    text = text.replace(`"__fuzz_key_${i}__"`, () => JSON.stringify(key));
  });
  return text;
}

type TextMutation =
  | { kind: 'cut'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'wrap'; before: string; after: string };

const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(fc.constantFrom(...NASTY_CHARS), fc.constantFrom('{', '}', '[', ']', ',', ':', '"')),
  }),
  fc.record({
    kind: fc.constant('wrap' as const),
    before: fc.constantFrom('', '\ufeff', ' \n\t', '[', ")]}'\n"),
    after: fc.constantFrom('', ' ', '\n', 'x', ',', '}', '\u0000', '{}'),
  }),
);

function mutateText(text: string, mutations: TextMutation[]): string {
  let out = text;
  for (const mutation of mutations) {
    if (mutation.kind === 'cut') out = out.slice(0, mutation.at % (out.length + 1));
    else if (mutation.kind === 'insert') {
      const at = mutation.at % (out.length + 1);
      out = out.slice(0, at) + mutation.text + out.slice(at);
    } else out = `${mutation.before}${out}${mutation.after}`;
  }
  return out;
}

const JSON_TYPES = [
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/vnd.api+json',
  'application/problem+json',
];
const OTHER_TYPES = [
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/jsonx',
  'json',
  '',
  ';',
  'application/json;;;',
  ' application/json ',
  '*/*',
];

/** Content-Type values: the route's own type mostly, its variants, others, random, or none. */
function contentType(valid: string, variants: string[]): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    CROSS_SHRINK,
    { weight: 12, arbitrary: fc.constant(valid) },
    { weight: 3, arbitrary: fc.constantFrom(...variants) },
    { weight: 2, arbitrary: fc.constantFrom(...OTHER_TYPES) },
    { weight: 1, arbitrary: unicodeString(0, 30) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Bodies every body-taking route must survive: empty, over 64 KiB, invalid UTF-8, binary, non-JSON. */
function hostileBody(valid: string): fc.Arbitrary<FuzzBody> {
  const type = contentType(valid, [...JSON_TYPES, 'application/x-www-form-urlencoded']);
  const text = (arb: fc.Arbitrary<string>) =>
    fc.tuple(arb, type).map(([t, contentType]): FuzzBody => ({ text: t, base64: false, contentType }));
  const bytes = (arb: fc.Arbitrary<Uint8Array>) =>
    fc.tuple(arb, type).map(
      ([b, contentType]): FuzzBody => ({
        text: Buffer.from(b).toString('base64'),
        base64: true,
        contentType,
      }),
    );
  const badUtf8 = fc.constantFrom(
    [0xff],
    [0xc0, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xe2, 0x82],
    [0x80],
    [0xfe, 0xfe, 0xff, 0xff],
  );
  return fc.oneof(
    text(
      fc.constantFrom('', ' ', '\n', '\t\r\n', 'null', '[]', '{}', 'true', '0', '""', '"x"', '{"data":{}}'),
    ),
    text(
      fc.integer({ min: 65530, max: 65545 }).map((size) => `{"data":{"name":"${'n'.repeat(size - 21)}"}}`),
    ),
    text(hugeString.map((s) => `{"data":{"type":"application_key","name":${JSON.stringify(s)}}}`)),
    text(hugeString),
    text(unicodeString(1, 200)),
    text(fc.constantFrom('<xml/>', 'a=b&c=d', 'grant_type=implicit', '---\n', '\u0000\u0000')),
    bytes(fc.uint8Array({ minLength: 1, maxLength: 300 })),
    bytes(
      fc
        .tuple(badUtf8, fc.constantFrom('{"data":{"type":"application_key","name":"', '{"grant_type":"'))
        .map(([bad, head]) => Buffer.concat([Buffer.from(head), Buffer.from(bad), Buffer.from('"}}')])),
    ),
    text(fc.constantFrom('!!!', '====', 'not base64 at all')).map((body) => ({ ...body, base64: true })),
  );
}

/**
 * A JSON-taking route's bodies: valid JSON (sometimes sent base64-encoded, as API Gateway does for binary
 * types), mutated JSON (wrong types anywhere, special keys, duplicate keys, raw numbers, deep nesting, cut
 * or garbled text), hostile bodies, and no body at all.
 */
export function jsonBody(validValue: fc.Arbitrary<Json>): Part<FuzzBody | undefined> {
  const valid = fc.tuple(validValue, fc.boolean(), fc.nat(9)).map(([value, pretty, encoded]): FuzzBody => {
    const text = JSON.stringify(value, null, pretty ? 2 : undefined);
    return encoded === 0
      ? { text: Buffer.from(text).toString('base64'), base64: true, contentType: 'application/json' }
      : { text, base64: false, contentType: 'application/json' };
  });
  const mutated = fc
    .tuple(
      validValue,
      fc.array(jsonMutation, { minLength: 1, maxLength: 3 }),
      fc.array(textMutation, { maxLength: 2 }),
      fc.nat(7),
      contentType('application/json', JSON_TYPES),
    )
    .map(([value, mutations, textMutations, textChance, type]): FuzzBody => {
      const text = mutateJson(value, mutations);
      return {
        text: textChance === 0 ? mutateText(text, textMutations) : text,
        base64: false,
        contentType: type,
      };
    });
  return {
    valid,
    any: fc.oneof(
      CROSS_SHRINK,
      { weight: 8, arbitrary: valid },
      { weight: 12, arbitrary: mutated },
      { weight: 4, arbitrary: hostileBody('application/json') },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  };
}

/** `application/x-www-form-urlencoded` bodies from fields (placeholders kept), with duplicates and junk. */
export function formBody(validFields: fc.Arbitrary<[string, string][]>): fc.Arbitrary<FuzzBody> {
  const encode = (fields: [string, string][], plus: boolean) =>
    fields
      .map(([key, value]) => {
        const k = encodeKeepingPlaceholders(key);
        const v = encodeKeepingPlaceholders(value);
        return `${k}=${plus ? v.replace(/%20/g, '+') : v}`;
      })
      .join('&');
  const extraField = fc.tuple(
    fc.constantFrom('grant_type', 'client_id', 'client_secret', '__proto__', 'constructor', 'scope', ''),
    fc.oneof(fc.constantFrom('implicit', 'client_credentials', ''), unicodeString(0, 20)),
  );
  return fc
    .tuple(
      validFields,
      fc.array(fc.tuple(extraField, fc.nat()), { maxLength: 2 }),
      fc.boolean(),
      fc.array(textMutation, { maxLength: 2 }),
      fc.nat(4),
      contentType('application/x-www-form-urlencoded', [
        'application/x-www-form-urlencoded; charset=utf-8',
        'APPLICATION/X-WWW-FORM-URLENCODED',
      ]),
    )
    .map(([fields, extras, plus, textMutations, chance, type]): FuzzBody => {
      const all = [...fields];
      for (const [field, at] of extras) all.splice(at % (all.length + 1), 0, field);
      const text = encode(all, plus);
      return {
        text: chance === 0 ? mutateText(text, textMutations) : text,
        base64: false,
        contentType: type,
      };
    });
}

/** Bodies sent to routes that take none: they must be ignored, whatever they are. */
export const ignoredBody: Part<FuzzBody | undefined> = {
  valid: fc.constant(undefined),
  any: fc.oneof(
    CROSS_SHRINK,
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: hostileBody('application/json') },
  ),
};
