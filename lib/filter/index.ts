/**
 * The catalog filter (docs/filtering.md): a pure parser, an evaluator and a canonical form for cache keys.
 * Values are data only: nothing here builds a DynamoDB expression string.
 */
export { canonicalFilter, NO_MATCH_FILTER } from './canonical';
export { compileFilter, isIdLookup, matchesFilter } from './evaluate';
export { likeMatcher, valuesMatcher } from './like';
export { CATALOG_FILTER, MAX_FILTER_BYTES, MAX_FILTER_EXPRESSIONS, parseFilter } from './parse';
export type {
  FilterAttribute,
  FilterableProduct,
  FilterExpression,
  FilterGrammar,
  FilterOperator,
} from './types';
