import type { FilterableProduct, FilterExpression } from './types';

/** True when the product satisfies every expression (AND); `eq` and `in` both test "one of the values". */
export function matchesFilter(product: FilterableProduct, filter: FilterExpression[]): boolean {
  return filter.every((expression) => {
    const { attribute, values } = expression;
    switch (attribute) {
      case 'tags': {
        const tags = product.tags.map((tag) => tag.toLowerCase());
        return values.some((value) => tags.includes(value.toLowerCase()));
      }
      case 'product_types':
        return values.some((value) => product.product_types.includes(value));
      default:
        return values.includes(product[attribute]);
    }
  });
}

/**
 * The same test as `matchesFilter`, prepared once (value sets built ahead) for running over many products,
 * e.g. every child of a parent.
 */
export function compileFilter(filter: FilterExpression[]): (product: FilterableProduct) => boolean {
  const tests = filter.map((expression): ((product: FilterableProduct) => boolean) => {
    const { attribute } = expression;
    switch (attribute) {
      case 'tags': {
        const wanted = new Set(expression.values.map((value) => value.toLowerCase()));
        return (product) => product.tags.some((tag) => wanted.has(tag.toLowerCase()));
      }
      case 'product_types': {
        const wanted = new Set(expression.values);
        return (product) => product.product_types.some((type) => wanted.has(type));
      }
      default: {
        const wanted = new Set(expression.values);
        return (product) => wanted.has(product[attribute]);
      }
    }
  });
  return (product) => tests.every((test) => test(product));
}

/** True when the filter holds an `in(id,...)` expression: the list is then ordered by `updated_at`. */
export function isIdLookup(filter: FilterExpression[]): boolean {
  return filter.some((expression) => expression.op === 'in' && expression.attribute === 'id');
}
