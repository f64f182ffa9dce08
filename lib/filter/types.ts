/** `like` matches with `*` wildcards; only grammars that list it in `operators` accept it. */
export type FilterOperator = 'eq' | 'in' | 'like';

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
export interface FilterExpression<A extends string = FilterAttribute> {
  op: FilterOperator;
  attribute: A;
  values: string[];
}

/** What a filter may name: one grammar over different attribute sets. */
export interface FilterGrammar<A extends string> {
  /** Attribute names as written (aliases included) to the attribute they mean. */
  attributes: ReadonlyMap<string, A>;
  /** The attribute list an unknown-attribute error shows. */
  description: string;
  /** Attributes only `in` may test. */
  inOnly: ReadonlySet<A>;
  /** Attributes whose values compare in lower case. */
  lowerCase: ReadonlySet<A>;
  /**
   * When given, the operators the grammar accepts and the attributes each may test (`inOnly` still
   * applies); absent: `eq` and `in` on every attribute.
   */
  operators?: ReadonlyMap<FilterOperator, ReadonlySet<A>>;
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
