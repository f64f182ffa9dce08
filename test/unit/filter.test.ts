import {
  canonicalFilter,
  compileFilter,
  type FilterAttribute,
  type FilterableProduct,
  type FilterExpression,
  isIdLookup,
  MAX_FILTER_BYTES,
  matchesFilter,
  NO_MATCH_FILTER,
  parseFilter,
} from '../../lib/filter/index';
import { BadRequestError } from '../../lib/http/errors';

/** The error parseFilter throws for `input` (fails the test when it throws nothing or something else). */
function parseError(input: string): BadRequestError {
  try {
    parseFilter(input);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return error as BadRequestError;
  }
  throw new Error(`parseFilter(${JSON.stringify(input)}) did not throw`);
}

const ATTRIBUTE_LIST = 'id, name, sku, slug, manufacturer_part_num (or mpn), upc_ean, product_types, tags';

describe('parseFilter: every operator with every attribute', () => {
  const eqCases: [string, FilterAttribute][] = [
    ['name', 'name'],
    ['sku', 'sku'],
    ['slug', 'slug'],
    ['manufacturer_part_num', 'manufacturer_part_num'],
    ['mpn', 'manufacturer_part_num'],
    ['upc_ean', 'upc_ean'],
    ['product_types', 'product_types'],
  ];
  it.each(eqCases)('eq(%s,...) parses to attribute %s with exactly the one value', (written, attribute) => {
    expect(parseFilter(`eq(${written},Value-1)`)).toEqual([{ op: 'eq', attribute, values: ['Value-1'] }]);
  });

  it('eq(tags,...) lower-cases the tag', () => {
    expect(parseFilter('eq(tags,Summer-SALE)')).toEqual([
      { op: 'eq', attribute: 'tags', values: ['summer-sale'] },
    ]);
  });

  const inCases: [string, FilterAttribute][] = [['id', 'id'], ...eqCases];
  it.each(inCases)('in(%s,...) parses to attribute %s with every value in order', (written, attribute) => {
    expect(parseFilter(`in(${written},B-2,A-1,C-3)`)).toEqual([
      { op: 'in', attribute, values: ['B-2', 'A-1', 'C-3'] },
    ]);
    expect(parseFilter(`in(${written},Only)`)).toEqual([{ op: 'in', attribute, values: ['Only'] }]);
  });

  it('in(tags,...) lower-cases every tag and keeps duplicates as written', () => {
    expect(parseFilter('in(tags,Red,BLUE,red)')).toEqual([
      { op: 'in', attribute: 'tags', values: ['red', 'blue', 'red'] },
    ]);
  });

  it('keeps the case of every value except tags', () => {
    expect(parseFilter('in(product_types,Standard,CHILD)')).toEqual([
      { op: 'in', attribute: 'product_types', values: ['Standard', 'CHILD'] },
    ]);
  });

  it('accepts a uuid list for in(id,...)', () => {
    const ids = ['0190c0de-0000-7000-8000-000000000001', '0190c0de-0000-7000-8000-000000000002'];
    expect(parseFilter(`in(id,${ids.join(',')})`)).toEqual([{ op: 'in', attribute: 'id', values: ids }]);
  });
});

describe('parseFilter: values, quoting and whitespace', () => {
  const cases: [string, string, string[]][] = [
    ['every bare special character', 'in(name,a$b-c_d*e.f@g+h/i{j}k|l)', ['a$b-c_d*e.f@g+h/i{j}k|l']],
    [
      'letters and digits in any script',
      'in(name,Été 2024,Größe,商品9,٣)',
      ['Été 2024', 'Größe', '商品9', '٣'],
    ],
    ['a combining mark in a bare value', 'in(name,Cafe\u0301)', ['Cafe\u0301']],
    ['inner spaces of a bare value', 'in(name,Blue  Cotton Shirt)', ['Blue  Cotton Shirt']],
    [
      'spaces around a bare value are not part of it',
      'in(name,  Blue Shirt  ,  Red )',
      ['Blue Shirt', 'Red'],
    ],
    ['a double-quoted value with reserved characters', 'in(name,"a,b:c(d)e#f")', ['a,b:c(d)e#f']],
    ['a single-quoted value with reserved characters', "in(name,'a,b:c(d)e#f')", ['a,b:c(d)e#f']],
    ['spaces inside quotes are kept', 'in(name," padded ")', [' padded ']],
    [
      'the other quote inside quotes needs no escape',
      `in(name,"O'Brien",'say "hi"')`,
      ["O'Brien", 'say "hi"'],
    ],
    ['escaped double quote', 'in(name,"say \\"hi\\"")', ['say "hi"']],
    ['escaped single quote', "in(name,'O\\'Brien')", ["O'Brien"]],
    ['escaped backslash', 'in(name,"C:\\\\temp")', ['C:\\temp']],
    ['escaped quotes of the other kind', `in(name,"\\'",'\\"')`, ["'", '"']],
    ['tab and line break inside quotes', 'in(name,"a\tb\nc")', ['a\tb\nc']],
    ['emoji inside quotes', 'in(name,"😀 party")', ['😀 party']],
    ['quoted and bare values mixed', 'in(name, "a b" ,c,\'d\')', ['a b', 'c', 'd']],
    ['a quoted value that looks like an expression', 'in(name,"eq(sku,x)")', ['eq(sku,x)']],
  ];
  it.each(cases)('%s', (_label, input, values) => {
    expect(parseFilter(input)).toEqual([{ op: 'in', attribute: 'name', values }]);
  });

  it('ignores whitespace (space, tab, CR, LF) around every token', () => {
    expect(parseFilter(' \t eq ( sku , ABC-1 ) \r\n : \n in\t(\ttags\t,\tA\t,\tB\t)\t')).toEqual([
      { op: 'eq', attribute: 'sku', values: ['ABC-1'] },
      { op: 'in', attribute: 'tags', values: ['a', 'b'] },
    ]);
  });

  it('joins expressions with ":" as AND, in the order written', () => {
    expect(parseFilter('eq(tags,sale):in(product_types,child,standard):eq(mpn,MP-9)')).toEqual([
      { op: 'eq', attribute: 'tags', values: ['sale'] },
      { op: 'in', attribute: 'product_types', values: ['child', 'standard'] },
      { op: 'eq', attribute: 'manufacturer_part_num', values: ['MP-9'] },
    ]);
  });

  it('accepts exactly 10 expressions', () => {
    const filter = Array.from({ length: 10 }, (_, i) => `eq(sku,S${i})`).join(':');
    expect(parseFilter(filter)).toHaveLength(10);
    expect(parseFilter(filter)[9]).toEqual({ op: 'eq', attribute: 'sku', values: ['S9'] });
  });

  it('accepts a filter of exactly 8192 bytes and counts bytes, not characters', () => {
    const head = 'in(id,';
    const filler = 'a'.repeat(MAX_FILTER_BYTES - head.length - 1);
    expect(Buffer.byteLength(`${head}${filler})`)).toBe(8192);
    expect(parseFilter(`${head}${filler})`)[0]?.values[0]).toHaveLength(filler.length);
    // 'é' is two bytes in UTF-8: 4093 of them plus the 7 bytes of syntax is 8193 bytes in 4100 characters.
    const accented = `in(id,${'é'.repeat(4093)})`;
    expect(accented.length).toBe(4100);
    expect(parseError(accented).detail).toBe('filter is too long: 8193 bytes, at most 8192 are allowed');
  });
});

describe('parseFilter: every error, with its exact detail and source', () => {
  const tooMany = Array.from({ length: 11 }, () => 'eq(sku,a)').join(':');
  const cases: [string, string][] = [
    ['', 'filter is empty; expected an expression such as eq(sku,ABC-1)'],
    [' \t ', 'filter is empty; expected an expression such as eq(sku,ABC-1)'],
    ['a'.repeat(8193), 'filter is too long: 8193 bytes, at most 8192 are allowed'],
    [tooMany, 'too many expressions: at most 10 are allowed, the next one starts at character 101'],
    ['ne(sku,a)', "unknown operator 'ne' at character 1; expected eq or in"],
    ['EQ(sku,a)', "unknown operator 'EQ' at character 1; expected eq or in"],
    [
      `  ${'x'.repeat(40)}(sku,a)`,
      `unknown operator '${'x'.repeat(32)}...' at character 3; expected eq or in`,
    ],
    ['(sku,a)', "expected an operator (eq or in) at character 1, found '('"],
    [':eq(sku,a)', "expected an operator (eq or in) at character 1, found ':'"],
    ['eq', "expected '(' after operator 'eq' at character 3, found the end of the filter"],
    ['eq[sku,a]', "expected '(' after operator 'eq' at character 3, found '['"],
    ['eq(', 'expected an attribute at character 4, found the end of the filter'],
    ['eq(,a)', "expected an attribute at character 4, found ','"],
    ['eq(colour,red)', `unknown attribute 'colour' at character 4; expected one of ${ATTRIBUTE_LIST}`],
    ['eq(SKU,a)', `unknown attribute 'SKU' at character 4; expected one of ${ATTRIBUTE_LIST}`],
    [
      'in(constructor,a)',
      `unknown attribute 'constructor' at character 4; expected one of ${ATTRIBUTE_LIST}`,
    ],
    ['eq(id,a)', "eq cannot be used with attribute 'id' at character 4; use in(id,...)"],
    ['eq(sku)', "eq(sku,...) needs exactly one value, found ')' at character 7"],
    ['in(mpn)', "in(mpn,...) needs at least one value, found ')' at character 7"],
    ['eq(sku a)', "expected ',' after attribute 'sku' at character 8, found 'a'"],
    ['eq(sku', "expected ',' after attribute 'sku' at character 7, found the end of the filter"],
    [
      'eq(sku,a,b)',
      "eq(sku,...) takes exactly one value, found ',' at character 9; use in(sku,...) for several values",
    ],
    [
      'eq(tags,"a", "b")',
      "eq(tags,...) takes exactly one value, found ',' at character 12; use in(tags,...) for several values",
    ],
    ['eq(sku,)', 'empty value at character 8'],
    ['in(sku,a,,b)', 'empty value at character 10'],
    ['in(sku,a,)', 'empty value at character 10'],
    ['in(sku, ,a)', 'empty value at character 9'],
    ['eq(sku,"")', 'empty value at character 8'],
    ["eq(sku,'')", 'empty value at character 8'],
    ['eq(sku,', 'expected a value at character 8, found the end of the filter'],
    ['eq(sku,a', "expected ',' or ')' at character 9, found the end of the filter"],
    ['eq(sku,a  ', "expected ',' or ')' at character 11, found the end of the filter"],
    ['eq(sku,a#b)', "'#' at character 9 is not allowed in an unquoted value; put the value in quotes"],
    ['eq(sku,#)', "'#' at character 8 is not allowed in an unquoted value; put the value in quotes"],
    ["eq(name,O'Brien)", `"'" at character 10 is not allowed in an unquoted value; put the value in quotes`],
    ['eq(sku,a"b")', `'"' at character 9 is not allowed in an unquoted value; put the value in quotes`],
    ['eq(sku,a\\b)', "'\\' at character 9 is not allowed in an unquoted value; put the value in quotes"],
    ['eq(sku,a\tb)', 'U+0009 at character 9 is not allowed in an unquoted value; put the value in quotes'],
    ['eq(sku,a b\nc)', 'U+000A at character 11 is not allowed in an unquoted value; put the value in quotes'],
    [
      'eq(sku,a\u00a0b)',
      'U+00A0 at character 9 is not allowed in an unquoted value; put the value in quotes',
    ],
    ['eq(sku,a(b))', "'(' at character 9 is not allowed in an unquoted value; put the value in quotes"],
    ['eq(sku,a:b)', "':' at character 9 is not allowed in an unquoted value; put the value in quotes"],
    ['eq(sku,é€)', "'€' at character 9 is not allowed in an unquoted value; put the value in quotes"],
    ['eq(sku,a😀)', "'😀' at character 9 is not allowed in an unquoted value; put the value in quotes"],
    ['in(sku,"😀",#)', "'#' at character 12 is not allowed in an unquoted value; put the value in quotes"],
    ['eq(sku,\uD800)', 'U+D800 at character 8 is not allowed in an unquoted value; put the value in quotes'],
    ['eq(sku,"abc', 'unterminated quoted value starting at character 8'],
    ['eq(sku,\'abc")', 'unterminated quoted value starting at character 8'],
    ['eq(sku,"abc\\', 'unterminated quoted value starting at character 8'],
    ['eq(sku,"a\\nb")', "invalid escape '\\n' at character 10; only \\\\, \\\" and \\' are allowed"],
    [
      'eq(sku,"a\\\tb")',
      "invalid escape '\\' followed by U+0009 at character 10; only \\\\, \\\" and \\' are allowed",
    ],
    ['eq(sku,"a" b)', "expected ',' or ')' at character 12, found 'b'"],
    ['eq(sku,"a""b")', `expected ',' or ')' at character 11, found '"'`],
    ['eq(sku,a)x', "expected ':' or the end of the filter at character 10, found 'x'"],
    ['eq(sku,a) eq(sku,b)', "expected ':' or the end of the filter at character 11, found 'e'"],
    ['eq(sku,a),eq(sku,b)', "expected ':' or the end of the filter at character 10, found ','"],
    ['eq(sku,a)))', "expected ':' or the end of the filter at character 10, found ')'"],
    ['eq(sku,a):', 'expected an operator (eq or in) at character 11, found the end of the filter'],
    ['eq(sku,a)::eq(sku,b)', "expected an operator (eq or in) at character 11, found ':'"],
    ['eq(sku,a) : ', 'expected an operator (eq or in) at character 13, found the end of the filter'],
  ];

  it.each(cases)('%j -> %s', (input, detail) => {
    const error = parseError(input);
    expect(error.status).toBe(400);
    expect(error.source).toBe('filter');
    expect(error.detail).toBe(detail);
    expect(error.toErrorObject()).toEqual({ status: '400', title: 'Bad Request', detail, source: 'filter' });
  });
});

const shirt: FilterableProduct = {
  id: 'id-1',
  name: 'Blue Shirt',
  sku: 'SHIRT-BLUE',
  slug: 'blue-shirt',
  manufacturer_part_num: 'MPN-1',
  upc_ean: '0123456789012',
  product_types: ['child'],
  tags: ['summer', 'Sale'],
};

describe('matchesFilter and compileFilter', () => {
  const cases: [string, string, boolean][] = [
    ['in(id,...) holding the id', 'in(id,id-0,id-1)', true],
    ['in(id,...) without the id', 'in(id,id-0,id-2)', false],
    ['eq(name) exact', 'eq(name,Blue Shirt)', true],
    ['eq(name) is case-sensitive', 'eq(name,blue shirt)', false],
    ['eq(name) does not match a prefix', 'eq(name,Blue)', false],
    ['in(name)', 'in(name,Red Shirt,Blue Shirt)', true],
    ['eq(sku)', 'eq(sku,SHIRT-BLUE)', true],
    ['eq(sku) other', 'eq(sku,SHIRT-RED)', false],
    ['in(sku)', 'in(sku,SHIRT-RED,SHIRT-BLUE)', true],
    ['eq(slug)', 'eq(slug,blue-shirt)', true],
    ['in(slug) other', 'in(slug,red-shirt)', false],
    ['eq(mpn)', 'eq(mpn,MPN-1)', true],
    ['in(manufacturer_part_num)', 'in(manufacturer_part_num,MPN-2,MPN-1)', true],
    ['eq(mpn) other', 'eq(mpn,MPN-2)', false],
    ['eq(upc_ean)', 'eq(upc_ean,0123456789012)', true],
    ['in(upc_ean) other', 'in(upc_ean,999)', false],
    ['eq(product_types) membership', 'eq(product_types,child)', true],
    ['eq(product_types) other', 'eq(product_types,standard)', false],
    ['in(product_types) any of', 'in(product_types,standard,child)', true],
    ['in(product_types) none of', 'in(product_types,standard,bundle)', false],
    ['eq(tags) membership', 'eq(tags,summer)', true],
    ['eq(tags) compares lower-case on both sides', 'eq(tags,SALE)', true],
    ['in(tags) any of', 'in(tags,winter,summer)', true],
    ['in(tags) none of', 'in(tags,winter,autumn)', false],
    ['AND: both hold', 'eq(tags,sale):eq(sku,SHIRT-BLUE)', true],
    ['AND: one fails', 'eq(tags,sale):eq(sku,SHIRT-RED)', false],
    ['AND: ten expressions all hold', Array(10).fill('in(id,id-1)').join(':'), true],
  ];
  it.each(cases)('%s: %s -> %p', (_label, filter, expected) => {
    const parsed = parseFilter(filter);
    expect(matchesFilter(shirt, parsed)).toBe(expected);
    expect(compileFilter(parsed)(shirt)).toBe(expected);
  });

  it('an empty filter matches every product', () => {
    expect(matchesFilter(shirt, [])).toBe(true);
    expect(compileFilter([])(shirt)).toBe(true);
  });

  it('an absent optional attribute ("") is not matched by a value', () => {
    const bare = { ...shirt, upc_ean: '', manufacturer_part_num: '' };
    expect(matchesFilter(bare, parseFilter('eq(upc_ean,0123456789012)'))).toBe(false);
    expect(matchesFilter(bare, parseFilter('in(mpn,MPN-1)'))).toBe(false);
  });

  it('an expression with no values (built by hand) matches nothing', () => {
    const none: FilterExpression[] = [{ op: 'in', attribute: 'tags', values: [] }];
    expect(matchesFilter(shirt, none)).toBe(false);
    expect(compileFilter(none)(shirt)).toBe(false);
  });
});

describe('isIdLookup', () => {
  it.each([
    ['in(id,a)', true],
    ['eq(sku,a):in(id,a,b)', true],
    ['in(sku,a)', false],
    ['eq(tags,id)', false],
  ])('%s -> %p', (filter, expected) => {
    expect(isIdLookup(parseFilter(filter))).toBe(expected);
  });

  it('an empty filter is not an id lookup', () => {
    expect(isIdLookup([])).toBe(false);
  });
});

describe('canonicalFilter', () => {
  const canonical = (filter: string) => canonicalFilter(parseFilter(filter));

  it('an empty filter is the empty string', () => {
    expect(canonicalFilter([])).toBe('');
  });

  it('writes eq as in, quotes every value and sorts values and expressions', () => {
    expect(canonical('eq(sku,B):in(tags,Y,X)')).toBe('in(sku,"B"):in(tags,"x","y")');
    expect(canonical('in(tags,x,Y):in(sku,B)')).toBe('in(sku,"B"):in(tags,"x","y")');
  });

  it('gives the same string for the same meaning', () => {
    const same = [
      'in(sku,a,b):eq(tags,Sale)',
      'eq(tags,sale):in(sku,b,a)',
      ' in ( sku , "b" , \'a\' , b ) : in(tags,SALE,sale)',
      'in(sku,a,b,c):in(sku,b,a):eq(tags,sale)',
      'in(tags,sale):in(tags,sale,new):in(sku,a,b)',
    ];
    const expected = 'in(sku,"a","b"):in(tags,"sale")';
    for (const filter of same) expect(canonical(filter)).toBe(expected);
  });

  it('normalises the mpn alias', () => {
    expect(canonical('eq(mpn,X)')).toBe(canonical('eq(manufacturer_part_num,X)'));
    expect(canonical('eq(mpn,X)')).toBe('in(manufacturer_part_num,"X")');
  });

  it('intersects expressions on a single-valued attribute', () => {
    expect(canonical('in(id,a,b,c):in(id,c,b,d)')).toBe('in(id,"b","c")');
  });

  it('keeps tag expressions that are not implied by each other (AND of memberships, not intersection)', () => {
    expect(canonical('in(tags,a,b):in(tags,b,c)')).toBe('in(tags,"a","b"):in(tags,"b","c")');
    expect(canonical('in(tags,a):in(product_types,a)')).toBe('in(product_types,"a"):in(tags,"a")');
  });

  it('collapses every filter that matches nothing to NO_MATCH_FILTER', () => {
    expect(canonical('eq(sku,a):eq(sku,b)')).toBe(NO_MATCH_FILTER);
    expect(canonical('in(id,a):in(id,b):eq(tags,x)')).toBe(NO_MATCH_FILTER);
    expect(canonicalFilter([{ op: 'in', attribute: 'tags', values: [] }])).toBe(NO_MATCH_FILTER);
  });

  it('escapes quotes and backslashes so different values never share a string', () => {
    expect(canonical('in(name,\'a",b\',"a","b")')).toBe('in(name,"a","a\\",b","b")');
    expect(canonical('in(name,"a\\\\")')).toBe('in(name,"a\\\\")');
    expect(canonical("in(name,'a\",b')")).not.toBe(canonical('in(name,"a","b")'));
  });

  it('keeps filters of different meaning apart', () => {
    expect(canonical('eq(sku,a)')).not.toBe(canonical('eq(slug,a)'));
    expect(canonical('eq(name,A)')).not.toBe(canonical('eq(name,a)'));
    expect(canonical('in(tags,a,b)')).not.toBe(canonical('in(tags,a):in(tags,b)'));
  });

  it('keeps an id lookup an id lookup', () => {
    expect(isIdLookup(parseFilter(canonical('in(id,b,a):eq(sku,x)')))).toBe(true);
    expect(canonical('in(id,b,a):eq(sku,x)')).toBe('in(id,"a","b"):in(sku,"x")');
  });
});
