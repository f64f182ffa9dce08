/**
 * `like`'s test: `*` matches any run of characters (none included), everything else itself; with
 * `ignoreCase`, letters compare in lower case. The pieces between the stars are found left to right (the
 * first anchored at the start, the last at the end): linear in the value for each piece, with no
 * backtracking, whatever the pattern (a regular expression of several `.*` is not).
 */
export function likeMatcher(raw: string, options: { ignoreCase?: boolean } = {}): (value: string) => boolean {
  const fold = options.ignoreCase === true ? (text: string) => text.toLowerCase() : (text: string) => text;
  const pattern = fold(raw);
  const pieces = pattern.split('*');
  const first = pieces[0] as string;
  if (pieces.length === 1) return (value) => fold(value) === pattern;
  const last = pieces[pieces.length - 1] as string;
  const middle = pieces.slice(1, -1).filter((piece) => piece !== '');
  return (raw) => {
    const value = fold(raw);
    if (value.length < first.length + last.length) return false;
    if (!value.startsWith(first) || !value.endsWith(last)) return false;
    let at = first.length;
    const end = value.length - last.length;
    for (const piece of middle) {
      const found = value.indexOf(piece, at);
      if (found === -1 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

/**
 * The test of one filter expression's values against one value: `like` a wildcard pattern (any case), `eq`
 * and `in` one of the values (without regard to case when `folded`).
 */
export function valuesMatcher(
  op: 'eq' | 'in' | 'like',
  values: string[],
  folded: boolean,
): (value: string) => boolean {
  if (op === 'like') return likeMatcher(values[0] ?? '', { ignoreCase: true });
  const wanted = new Set(folded ? values.map((value) => value.toLowerCase()) : values);
  return (value) => wanted.has(folded ? value.toLowerCase() : value);
}
