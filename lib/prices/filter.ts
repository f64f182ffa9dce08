import {
  type FilterExpression,
  type FilterGrammar,
  type FilterOperator,
  parseFilter,
  valuesMatcher,
} from '../filter/index';

/**
 * The filters of the price book entry lists (docs/price-books.md), in the grammar of lib/filter:
 * `eq(sku|external_ref)` and `in(sku)` on a book's prices, `eq(name|external_ref)` on its modifiers, and across
 * books `eq`/`in` on id, sku, external_ref and `like` on sku, external_ref.
 */
export type EntryFilterAttribute = 'id' | 'sku' | 'external_ref' | 'name';
export type EntryFilter = FilterExpression<EntryFilterAttribute>[];

const grammar = (
  operators: [FilterOperator, EntryFilterAttribute[]][],
): FilterGrammar<EntryFilterAttribute> => {
  const names = [...new Set(operators.flatMap(([, attributes]) => attributes))];
  return {
    attributes: new Map(names.map((name) => [name, name])),
    description: operators.map(([op, attributes]) => `${op} on ${attributes.join(', ')}`).join('; '),
    inOnly: new Set(),
    lowerCase: new Set(),
    operators: new Map(operators.map(([op, attributes]) => [op, new Set(attributes)])),
  };
};

export const BOOK_PRICE_FILTER = grammar([
  ['eq', ['sku', 'external_ref']],
  ['in', ['sku']],
]);
export const ALL_PRICES_FILTER = grammar([
  ['eq', ['id', 'sku', 'external_ref']],
  ['in', ['id', 'sku', 'external_ref']],
  ['like', ['sku', 'external_ref']],
]);
export const MODIFIER_FILTER = grammar([['eq', ['name', 'external_ref']]]);

export function parseEntryFilter(
  text: string | undefined,
  filterGrammar: FilterGrammar<EntryFilterAttribute>,
): EntryFilter | undefined {
  return text === undefined ? undefined : parseFilter(text, filterGrammar);
}

/** The test of a parsed filter: every expression must hold; sku and id compare without regard to case. */
export function compileEntryFilter(
  filter: EntryFilter,
): (entry: { id: string; sku?: string; name?: string; external_ref?: string }) => boolean {
  const tests = filter.map(({ op, attribute, values }) => {
    const test = valuesMatcher(op, values, attribute === 'sku' || attribute === 'id');
    return (entry: Record<string, unknown>) => test((entry[attribute] as string | undefined) ?? '');
  });
  return (entry) => tests.every((test) => test(entry as Record<string, unknown>));
}

/** The skus an `eq(sku,…)` or `in(sku,…)` limits a list to (looked up by claim), if the filter has one. */
export function filteredSkus(filter: EntryFilter | undefined): string[] | undefined {
  return filter?.find(({ op, attribute }) => attribute === 'sku' && op !== 'like')?.values;
}
