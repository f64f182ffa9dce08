import {
  type FilterExpression,
  type FilterGrammar,
  type FilterOperator,
  parseFilter,
  valuesMatcher,
} from '../filter/index';
import type { ProductRecord } from '../store/product-repository';
import { productTypes } from './render';

/** What `GET /pcm/products?filter=` may test (docs/products.md). */
export type ProductFilterAttribute =
  | 'id'
  | 'name'
  | 'sku'
  | 'slug'
  | 'upc_ean'
  | 'manufacturer_part_num'
  | 'commodity_type'
  | 'status'
  | 'owner'
  | 'product_types'
  | 'tags'
  | 'external_ref'
  | 'description';

/** What `eq`, `like` and `in` all test. */
const TEXT_ATTRIBUTES: ProductFilterAttribute[] = [
  'name',
  'sku',
  'slug',
  'upc_ean',
  'manufacturer_part_num',
  'tags',
  'external_ref',
];
const EQ: ProductFilterAttribute[] = [
  'id',
  ...TEXT_ATTRIBUTES,
  'commodity_type',
  'status',
  'owner',
  'product_types',
  'description',
];
const LIKE: ProductFilterAttribute[] = [...TEXT_ATTRIBUTES, 'description'];
const IN: ProductFilterAttribute[] = ['id', ...TEXT_ATTRIBUTES, 'product_types'];

/** The product list's filter: `eq`, `like` (`*` wildcards) and `in`, joined with `:` (AND). */
export const PRODUCT_FILTER: FilterGrammar<ProductFilterAttribute> = {
  attributes: new Map<string, ProductFilterAttribute>([
    ...EQ.map((attribute): [string, ProductFilterAttribute] => [attribute, attribute]),
    ['mpn', 'manufacturer_part_num'],
  ]),
  description: `${EQ.join(', ')} (mpn for manufacturer_part_num)`,
  inOnly: new Set(),
  lowerCase: new Set(['tags']),
  operators: new Map<FilterOperator, ReadonlySet<ProductFilterAttribute>>([
    ['eq', new Set(EQ)],
    ['like', new Set(LIKE)],
    ['in', new Set(IN)],
  ]),
};

export function parseProductFilter(text: string): FilterExpression<ProductFilterAttribute>[] {
  return parseFilter(text, PRODUCT_FILTER);
}

/** The values a product shows a filter attribute ('' for an absent string). */
function valuesOf(product: ProductRecord, attribute: ProductFilterAttribute): string[] {
  const a = product.attributes;
  switch (attribute) {
    case 'id':
      return [product.id];
    case 'owner':
      return ['store'];
    case 'product_types':
      return productTypes(product);
    case 'tags':
      return a.tags ?? [];
    case 'manufacturer_part_num':
      return [a.mpn ?? ''];
    default:
      return [a[attribute] ?? ''];
  }
}

/** The test of a parsed filter: every expression must hold; sku and id compare without regard to case. */
export function compileProductFilter(
  filter: FilterExpression<ProductFilterAttribute>[],
): (product: ProductRecord) => boolean {
  const tests = filter.map(({ op, attribute, values }) => {
    const test = valuesMatcher(op, values, attribute === 'sku' || attribute === 'id');
    return (product: ProductRecord) => valuesOf(product, attribute).some(test);
  });
  return (product) => tests.every((test) => test(product));
}

/** The skus an `eq(sku,…)` or `in(sku,…)` limits the list to (looked up by claim), if the filter has one. */
export function skusOf(filter: FilterExpression<ProductFilterAttribute>[]): string[] | undefined {
  const expression = filter.find(({ op, attribute }) => attribute === 'sku' && op !== 'like');
  return expression?.values;
}
