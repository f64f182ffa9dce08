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
