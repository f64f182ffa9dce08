import { likeMatcher } from '../../lib/filter/index';

/** `like(file_name,…)` of GET /v2/files: `*` matches any run of characters, everything else itself. */

describe('likeMatcher', () => {
  it.each([
    ['red-shirt.png', 'red-shirt.png', true],
    ['red-shirt.png', 'red-shirt.PNG', false],
    ['*.png', 'red-shirt.png', true],
    ['*.png', 'red-shirt.png.jpg', false],
    ['red*', 'red-shirt.png', true],
    ['*shirt*', 'red-shirt.png', true],
    ['*shirt*', 'red-shoe.png', false],
    ['*', '', true],
    ['**', 'anything', true],
    ['r*d*t*g', 'red-shirt.png', true],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['a*b*b', 'ab', false],
    ['a*b*b', 'abb', true],
    ['*ab*ab*', 'xabyab', true],
    ['*ab*ab*', 'xaby', false],
    ['.*', 'x.png', false],
    ['x.*', 'x.png', true],
  ])('%s against %s: %s', (pattern, value, expected) => {
    expect(likeMatcher(pattern)(value)).toBe(expected);
  });

  it('matches a long name against many stars in linear time (no backtracking)', () => {
    const pattern = `${'a*'.repeat(120)}b`;
    const name = 'a'.repeat(2000);
    const started = Date.now();
    expect(likeMatcher(pattern)(name)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('likeMatcher with ignoreCase (the product list)', () => {
  it.each([
    ['Red*', 'red shirt', true],
    ['*SHIRT', 'Red Shirt', true],
    ['*ä*', 'BÄR', true],
    ['red', 'Red', true],
    ['red*', 'blue', false],
  ])('%s on %s: %s', (pattern, value, expected) => {
    expect(likeMatcher(pattern, { ignoreCase: true })(value)).toBe(expected);
  });

  // A regular expression of 101 `.*` would backtrack for as long as the universe on this value.
  it('answers a pattern of many stars on a long value that does not match', () => {
    expect(likeMatcher(`${'*a'.repeat(100)}*b`, { ignoreCase: true })('a'.repeat(20_000))).toBe(false);
    expect(likeMatcher(`${'*a'.repeat(100)}*b`, { ignoreCase: true })(`${'a'.repeat(20_000)}B`)).toBe(true);
  });
});
