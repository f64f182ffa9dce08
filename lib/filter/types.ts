export type FilterOperator = 'eq' | 'in';

/** Filterable product attributes; the `mpn` alias is normalised to `manufacturer_part_num` by the parser. */
export type FilterAttribute =
  | 'id'
  | 'name'
  | 'sku'
  | 'slug'
  | 'manufacturer_part_num'
  | 'upc_ean'
  | 'product_types'
  | 'tags';

/** One `op(attribute,value,...)` term; a filter is the AND of its expressions. Tag values are lower-case. */
export interface FilterExpression {
  op: FilterOperator;
  attribute: FilterAttribute;
  values: string[];
}

/** The product fields a filter can test (absent optional strings are ''). */
export interface FilterableProduct {
  id: string;
  name: string;
  sku: string;
  slug: string;
  manufacturer_part_num: string;
  upc_ean: string;
  product_types: string[];
  tags: string[];
}
