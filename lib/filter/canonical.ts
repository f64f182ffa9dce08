import type { FilterAttribute, FilterExpression } from './types';

/** The canonical form of any filter that can match no product at all (e.g. `in(sku,a):in(sku,b)`). */
export const NO_MATCH_FILTER = '!none';

const SCALAR: ReadonlySet<FilterAttribute> = new Set([
  'id',
  'name',
  'sku',
  'slug',
  'manufacturer_part_num',
  'upc_ean',
]);

/**
 * A stable cache key: filters with the same meaning give the same string. `eq` is written as `in`, values
 * are de-duplicated and sorted (tags lower-cased), expressions on one single-valued attribute are
 * intersected, a tags/product_types expression implied by a narrower one is dropped, and the expressions
 * are sorted. An id lookup keeps its `in(id,...)` term, so `isIdLookup` gives the same answer.
 * The result is filter syntax with every value double-quoted, or NO_MATCH_FILTER; `[]` gives ''.
 */
export function canonicalFilter(filter: FilterExpression[]): string {
  const scalars = new Map<FilterAttribute, Set<string>>();
  const memberships = new Map<FilterAttribute, Set<string>[]>();
  for (const { attribute, values } of filter) {
    const set = new Set(attribute === 'tags' ? values.map((value) => value.toLowerCase()) : values);
    if (set.size === 0) return NO_MATCH_FILTER;
    if (SCALAR.has(attribute)) {
      const previous = scalars.get(attribute);
      const merged = previous === undefined ? set : new Set([...previous].filter((value) => set.has(value)));
      if (merged.size === 0) return NO_MATCH_FILTER;
      scalars.set(attribute, merged);
    } else {
      memberships.set(attribute, [...(memberships.get(attribute) ?? []), set]);
    }
  }
  const terms: string[] = [];
  for (const [attribute, values] of scalars) terms.push(term(attribute, values));
  for (const [attribute, sets] of memberships) {
    // A product with a value from A also has one from any B containing A, so B adds nothing to A.
    const kept = sets.filter(
      (set, index) =>
        !sets.some(
          (other, otherIndex) =>
            otherIndex !== index && isSubset(other, set) && (other.size < set.size || otherIndex < index),
        ),
    );
    for (const set of kept) terms.push(term(attribute, set));
  }
  return terms.sort(compareStrings).join(':');
}

function term(attribute: FilterAttribute, values: Set<string>): string {
  const rendered = [...values].sort(compareStrings).map(quote);
  return `in(${attribute},${rendered.join(',')})`;
}

function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

function isSubset(small: Set<string>, large: Set<string>): boolean {
  for (const value of small) if (!large.has(value)) return false;
  return true;
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
