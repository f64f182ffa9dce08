/* Generated from catalog/release.schema.json by `npm run catalog-types`: edit the schema, not this file. */

/**
 * A channel or context tag: 1 to 64 printable ASCII characters, not only spaces (requests send it in a header).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "contextValue".
 */
export type ContextValue = string;
/**
 * Text of 1 to 255 characters, not only white space.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "text".
 */
export type Text = string;
/**
 * Sort order (any integer), or null.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "sortOrder".
 */
export type SortOrder = number | null;
/**
 * The longest input accepted, 1 to 255 characters.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "customInputMaxLength".
 */
export type CustomInputMaxLength = number;
/**
 * A UUID (any case; stored in lower case).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "uuid".
 */
export type Uuid = string;
/**
 * A UUID (any case; stored in lower case), or null.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "nullableUuid".
 */
export type NullableUuid = string | null;
/**
 * Text of 1 to 255 characters, not only white space, or null.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "nullableText".
 */
export type NullableText = string | null;
/**
 * Text of up to 16,384 characters (may be empty). With 100 products on a page, longer texts could not fit in one response (see the publisher's response budget in docs/catalog.md).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "longText".
 */
export type LongText = string;
/**
 * An ISO 8601 date-time with a time zone, e.g. 2024-05-01T12:00:00Z (stored in UTC with milliseconds).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "dateTime".
 */
export type DateTime = string;
/**
 * An ISO 8601 date-time with a time zone (stored in UTC with milliseconds), or null.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "nullableDateTime".
 */
export type NullableDateTime = string | null;
/**
 * An ISO 4217 currency code in upper case.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "currencyCode".
 */
export type CurrencyCode =
  | 'AED'
  | 'AFN'
  | 'ALL'
  | 'AMD'
  | 'ANG'
  | 'AOA'
  | 'ARS'
  | 'AUD'
  | 'AWG'
  | 'AZN'
  | 'BAM'
  | 'BBD'
  | 'BDT'
  | 'BGN'
  | 'BHD'
  | 'BIF'
  | 'BMD'
  | 'BND'
  | 'BOB'
  | 'BRL'
  | 'BSD'
  | 'BTN'
  | 'BWP'
  | 'BYN'
  | 'BZD'
  | 'CAD'
  | 'CDF'
  | 'CHF'
  | 'CLP'
  | 'CNY'
  | 'COP'
  | 'CRC'
  | 'CUC'
  | 'CUP'
  | 'CVE'
  | 'CZK'
  | 'DJF'
  | 'DKK'
  | 'DOP'
  | 'DZD'
  | 'EGP'
  | 'ERN'
  | 'ETB'
  | 'EUR'
  | 'FJD'
  | 'FKP'
  | 'GBP'
  | 'GEL'
  | 'GHS'
  | 'GIP'
  | 'GMD'
  | 'GNF'
  | 'GTQ'
  | 'GYD'
  | 'HKD'
  | 'HNL'
  | 'HRK'
  | 'HTG'
  | 'HUF'
  | 'IDR'
  | 'ILS'
  | 'INR'
  | 'IQD'
  | 'IRR'
  | 'ISK'
  | 'JMD'
  | 'JOD'
  | 'JPY'
  | 'KES'
  | 'KGS'
  | 'KHR'
  | 'KMF'
  | 'KPW'
  | 'KRW'
  | 'KWD'
  | 'KYD'
  | 'KZT'
  | 'LAK'
  | 'LBP'
  | 'LKR'
  | 'LRD'
  | 'LSL'
  | 'LYD'
  | 'MAD'
  | 'MDL'
  | 'MGA'
  | 'MKD'
  | 'MMK'
  | 'MNT'
  | 'MOP'
  | 'MRU'
  | 'MUR'
  | 'MVR'
  | 'MWK'
  | 'MXN'
  | 'MYR'
  | 'MZN'
  | 'NAD'
  | 'NGN'
  | 'NIO'
  | 'NOK'
  | 'NPR'
  | 'NZD'
  | 'OMR'
  | 'PAB'
  | 'PEN'
  | 'PGK'
  | 'PHP'
  | 'PKR'
  | 'PLN'
  | 'PYG'
  | 'QAR'
  | 'RON'
  | 'RSD'
  | 'RUB'
  | 'RWF'
  | 'SAR'
  | 'SBD'
  | 'SCR'
  | 'SDG'
  | 'SEK'
  | 'SGD'
  | 'SHP'
  | 'SLE'
  | 'SLL'
  | 'SOS'
  | 'SRD'
  | 'SSP'
  | 'STN'
  | 'SVC'
  | 'SYP'
  | 'SZL'
  | 'THB'
  | 'TJS'
  | 'TMT'
  | 'TND'
  | 'TOP'
  | 'TRY'
  | 'TTD'
  | 'TWD'
  | 'TZS'
  | 'UAH'
  | 'UGX'
  | 'USD'
  | 'UYU'
  | 'UZS'
  | 'VES'
  | 'VND'
  | 'VUV'
  | 'WST'
  | 'XAF'
  | 'XCD'
  | 'XCG'
  | 'XDR'
  | 'XOF'
  | 'XPF'
  | 'XSU'
  | 'YER'
  | 'ZAR'
  | 'ZMW'
  | 'ZWG'
  | 'ZWL';
/**
 * A price modifier name: 1 to 255 characters, not only white space.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "modifierName".
 */
export type ModifierName = string;
/**
 * A language tag such as fr or fr-FR.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "localeTag".
 */
export type LocaleTag = string;
/**
 * A URL label: A-Z, a-z, 0-9, hyphen, underscore and period only, 1 to 255 characters.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "slug".
 */
export type Slug = string;
export type Tag = string;

/**
 * A catalog release: the catalog, its rules, node tree, price modifiers, files and products, published all at once with `npm run catalog -- publish` (validate it first with `npm run catalog -- validate`). Rules between entities (references, unique ids and SKUs, the node tree, parents and children) are checked by the publisher and described in the descriptions below.
 */
export interface ReleaseDocumentInput {
  /**
   * The schema this document follows, for editors: "./release.schema.json". Ignored by the publisher.
   */
  $schema?: string;
  /**
   * The catalog this release belongs to.
   */
  catalog: {
    /**
     * The catalog id, kept. Without it, the store's only catalog of the same name is reused, else a new id is generated.
     */
    id?: string;
    /**
     * The catalog name.
     */
    name: string;
    /**
     * The catalog description.
     */
    description?: string;
    /**
     * Rendered as `meta.pricebook_id`.
     */
    pricebook_id?: string | null;
  };
  /**
   * The store's currencies (ISO 4217 code to display settings), exactly one with `default: true` (checked by the publisher). When present, the publish replaces the store's currencies in the same transaction that makes the release current.
   */
  currencies?: {
    [k: string]: CurrencySettings;
  };
  /**
   * The catalog's rules (a publish replaces them): which requests see this catalog. At most 10; with the catalog's name they take at most 3,072 bytes in the store's catalog registry (checked by the publisher), so that no catalog can grow that one item for the whole store.
   *
   * @maxItems 10
   */
  rules?: Rule[];
  /**
   * The hierarchies: nodes without a parent are hierarchies (roots), the others their nodes; served by `/catalog/hierarchies` and `/catalog/nodes` and used for breadcrumbs. Checked by the publisher: ids unique, every `parent_id` a node of this document, no cycles, at most 10 levels (the root is level 1).
   */
  nodes?: Node[];
  /**
   * Named price modifiers that products list in `attributes.price_modifiers`.
   */
  price_modifiers?: {
    [k: string]: PriceModifier;
  };
  /**
   * File resources (images and other files) that products reference by id in `main_image` and `files`. Checked by the publisher: ids unique, and every id a product references is listed here.
   */
  files?: File[];
  /**
   * The products. Checked by the publisher: ids, SKUs, slugs and external_refs unique; references to nodes, files, price modifiers, parents and component products resolve; parents and children consistent.
   */
  products: Product[];
}
/**
 * How amounts in this currency are displayed.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "currencySettings".
 */
export interface CurrencySettings {
  /**
   * The display format; must contain {price}, e.g. "${price}".
   */
  format: string;
  /**
   * The decimal point, e.g. ".".
   */
  decimal_point: string;
  /**
   * The thousands separator, e.g. ",".
   */
  thousand_separator: string;
  /**
   * Decimal places of the display amount.
   */
  decimal_places: number;
  /**
   * The store default (exactly one currency).
   */
  default?: boolean;
}
/**
 * A catalog rule: the catalog applies to requests that match every non-empty list. Rule ids are unique (checked by the publisher).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "rule".
 */
export interface Rule {
  /**
   * The rule id, kept (rules keep their age across publishes).
   */
  id?: string;
  /**
   * The rule name.
   */
  name: string;
  /**
   * Channels the rule matches (empty: all): at most 10.
   *
   * @maxItems 10
   */
  channels?: ContextValue[];
  /**
   * Context tags the rule matches (empty: all): at most 10; stored in lower case.
   *
   * @maxItems 10
   */
  tags?: ContextValue[];
  /**
   * When the rule applies (empty: always): at most 10 windows.
   *
   * @maxItems 10
   *
   * Items: A time window; `valid_from` must be earlier than `valid_to` (checked by the publisher).
   */
  schedules?: {
    /**
     * Start (null or absent: open).
     */
    valid_from?: string | null;
    /**
     * End (null or absent: open).
     */
    valid_to?: string | null;
  }[];
}
/**
 * A node of the hierarchy.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "node".
 */
export interface Node {
  /**
   * The node id, unique.
   */
  id: string;
  /**
   * The node name.
   */
  name: string;
  /**
   * The parent node (a node of this document), or null for a root.
   */
  parent_id?: string | null;
  /**
   * The node's URL label; default: derived from the name (lower case, runs of other characters replaced by a hyphen).
   */
  slug?: string;
  /**
   * The node description.
   */
  description?: string;
  /**
   * When the node was created; default: the publish time.
   */
  created_at?: string;
  /**
   * When the node was last updated (the order of `filter=in(id,...)` on `/catalog/nodes`); default: the publish time.
   */
  updated_at?: string;
}
/**
 * A price modifier applied per currency to the price, tiers and sale price of the products that list it.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "priceModifier".
 */
export interface PriceModifier {
  /**
   * price_increment adds, price_decrement subtracts (never below 0), price_equals sets.
   */
  modifier_type: 'price_increment' | 'price_decrement' | 'price_equals';
  currencies: PriceMap;
}
/**
 * The modifier amount per currency (at least one).
 */
export interface PriceMap {
  [k: string]: PriceEntry;
}
/**
 * One currency's price.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "priceEntry".
 */
export interface PriceEntry {
  /**
   * The amount in the currency's lowest denomination (cents for USD).
   */
  amount: number;
  /**
   * Whether the amount includes tax.
   */
  includes_tax?: boolean;
}
/**
 * A file resource (the platform's file object), rendered in `included.main_images` and `included.files`.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "file".
 */
export interface File {
  /**
   * The file id, unique among the files.
   */
  id: string;
  /**
   * The file name.
   */
  file_name: string;
  /**
   * The media type, e.g. image/jpeg.
   */
  mime_type: string;
  /**
   * The size in bytes; 0 when unknown (a file authored with `/v2/files` from a `file_location` is never fetched, so its size is not known).
   */
  file_size: number;
  /**
   * Where the file is served.
   */
  link: {
    /**
     * An https URL (http only for localhost, 127.0.0.1 or [::1]).
     */
    href: string;
  };
  /**
   * Optional file metadata.
   */
  meta?: {
    /**
     * Image dimensions in pixels.
     */
    dimensions?: {
      /**
       * Width in pixels.
       */
      width: number;
      /**
       * Height in pixels.
       */
      height: number;
    };
    /**
     * File timestamps.
     */
    timestamps?: {
      /**
       * When the file was created.
       */
      created_at: string;
    };
  };
}
/**
 * A product: standard, parent (with variations), child (base_product_id, variation_options) or bundle (components).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "product".
 */
export interface Product {
  /**
   * The product id, unique (checked by the publisher).
   */
  id: string;
  attributes: Attributes;
  /**
   * Nodes of this document, no repeats (checked by the publisher).
   */
  node_ids?: Uuid[];
  /**
   * Files of the document's `files` (checked by the publisher), rendered as `relationships.files`: at most 100.
   *
   * @maxItems 100
   */
  files?: ProductFile[];
  /**
   * A UUID (any case; stored in lower case).
   */
  main_image?: string;
  /**
   * Parents only (checked by the publisher).
   */
  variations?: Variation[];
  /**
   * Children only: variation id to option id, of the parent's variations; two children of one parent may not pick the same combination (checked by the publisher).
   */
  variation_options?: {
    [k: string]: Uuid;
  };
  sale?: Sale;
  /**
   * The price book this product's price comes from (`meta.pricebook_id`; children without a price of their own show their parent's); default: the catalog's `pricebook_id`.
   */
  pricebook_id?: string | null;
}
/**
 * The product attributes a release document gives (the input form of the API's product resource), plus `locales`.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "attributes".
 */
export interface Attributes {
  /**
   * The product name.
   */
  name: string;
  /**
   * The description (children without one inherit the parent's; else empty).
   */
  description?: string;
  /**
   * The SKU, unique in the release when given (checked by the publisher). A product without one (a bundle, say) is listed and read by id and slug; price books price by sku.
   */
  sku?: string;
  /**
   * The URL label, unique in the release when given (checked by the publisher). Default: the name without accents, in lower case, other runs of characters as one hyphen.
   */
  slug?: string;
  /**
   * Only live products are listed.
   */
  status: 'live' | 'draft';
  /**
   * Required except for children, which inherit it (checked by the publisher).
   */
  commodity_type?: 'physical' | 'digital';
  /**
   * True for a parent; may not be false for a product with children, and not true for a child (checked by the publisher).
   */
  base_product?: boolean;
  /**
   * Makes this product a child of that product: a product of this document that is not itself a child (checked by the publisher).
   */
  base_product_id?: string;
  /**
   * Whether the product is curated.
   */
  curated_product?: boolean;
  /**
   * The UPC or EAN.
   */
  upc_ean?: string;
  /**
   * The manufacturer part number.
   */
  manufacturer_part_num?: string;
  /**
   * Tags (at most 100; duplicates in any case are refused by the publisher).
   *
   * @maxItems 100
   *
   * Items: A tag: 1 to 255 characters without commas, <, > or control characters; stored in lower case.
   */
  tags?: string[];
  /**
   * Names of the release's `price_modifiers`, applied in this order (checked by the publisher).
   */
  price_modifiers?: Text[];
  /**
   * An external reference, unique in the release when set (checked by the publisher).
   */
  external_ref?: string | null;
  /**
   * Default: derived. Must say child exactly when base_product_id is set, parent for a product with children, and bundle needs components (checked by the publisher).
   *
   * @minItems 1
   */
  product_types?: ('standard' | 'parent' | 'child' | 'bundle')[];
  price?: ProductPrice;
  /**
   * Template name to attributes of string, number, boolean or null values.
   */
  extensions?: {
    [k: string]: {
      [k: string]: string | number | boolean | null;
    };
  };
  /**
   * A bundle's components by key, at most 25; a bundle needs at least one (checked by the publisher).
   */
  components?: {
    [k: string]: Component;
  };
  /**
   * Text inputs by key.
   */
  custom_inputs?: {
    [k: string]: CustomInput;
  };
  /**
   * Default: the publish time.
   */
  published_at?: string | null;
  /**
   * Default: the publish time.
   */
  created_at?: string;
  /**
   * Default: the publish time; not earlier than created_at (checked by the publisher).
   */
  updated_at?: string;
  /**
   * Texts by language tag (at most 50), chosen with Accept-Language.
   */
  locales?: {
    [k: string]: LocaleText;
  };
}
/**
 * Prices by ISO 4217 currency code, plus optional volume `tiers` (two tiers may not start at the same `minimum_quantity`; checked by the publisher).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "productPrice".
 */
export interface ProductPrice {
  /**
   * Volume prices by tier name: from `minimum_quantity` units on, `price` applies.
   */
  tiers?: {
    [k: string]: Tier;
  };
  [k: string]:
    | PriceEntry
    | {
        [k: string]: Tier;
      }
    | undefined;
}
/**
 * A volume price.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "tier".
 */
export interface Tier {
  /**
   * The tier applies from this many units on.
   */
  minimum_quantity: number;
  price: PriceMap1;
}
/**
 * Prices by ISO 4217 currency code.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "priceMap".
 */
export interface PriceMap1 {
  [k: string]: PriceEntry;
}
/**
 * A bundle component; `min` must not exceed `max` (checked by the publisher).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "component".
 */
export interface Component {
  /**
   * Text of 1 to 255 characters, not only white space.
   */
  name: string;
  /**
   * The fewest options to choose, or null.
   */
  min?: number | null;
  /**
   * The most options to choose, or null.
   */
  max?: number | null;
  sort_order?: SortOrder;
  /**
   * The options (1 to 20).
   *
   * @minItems 1
   * @maxItems 20
   */
  options: ComponentOption[];
}
/**
 * A product a bundle component may contain: a product of this document other than the bundle (checked by the publisher).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "componentOption".
 */
export interface ComponentOption {
  /**
   * The component product id.
   */
  id: string;
  /**
   * Always "product".
   */
  type?: 'product';
  /**
   * Units of the product.
   */
  quantity: number;
  sort_order?: SortOrder;
  /**
   * Selected by default.
   */
  default?: boolean | null;
}
/**
 * A text input the shopper fills in.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "customInput".
 */
export interface CustomInput {
  /**
   * Text of 1 to 255 characters, not only white space.
   */
  name: string;
  /**
   * Rules for the input.
   *
   * Items: A validation rule.
   */
  validation_rules?: {
    /**
     * Always "string".
     */
    type?: 'string';
    /**
     * The rule options.
     */
    options: {
      max_length: CustomInputMaxLength;
    };
  }[];
  /**
   * Whether the input is required.
   */
  required?: boolean | null;
}
/**
 * Texts in one language.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "localeText".
 */
export interface LocaleText {
  /**
   * Text of 1 to 255 characters, not only white space.
   */
  name?: string;
  /**
   * The description in this language.
   */
  description?: string;
}
/**
 * A reference to a file of the document's `files`.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "productFile".
 */
export interface ProductFile {
  /**
   * A UUID (any case; stored in lower case).
   */
  id: string;
  /**
   * When the file was attached.
   */
  created_at: string;
}
/**
 * A parent's variation. Variation ids are unique within the product (checked by the publisher).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "variation".
 */
export interface Variation {
  /**
   * A UUID (any case; stored in lower case).
   */
  id: string;
  /**
   * Text of 1 to 255 characters, not only white space.
   */
  name: string;
  sort_order?: SortOrder;
  /**
   * The options (at least one).
   *
   * @minItems 1
   */
  options: VariationOption[];
}
/**
 * An option of a variation. Option ids are unique within the variation (checked by the publisher).
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "variationOption".
 */
export interface VariationOption {
  /**
   * A UUID (any case; stored in lower case).
   */
  id: string;
  /**
   * Text of 1 to 255 characters, not only white space.
   */
  name: string;
  sort_order?: SortOrder;
  /**
   * The option description.
   */
  description?: string;
}
/**
 * A sale: its price replaces the list price in `display_price`.
 *
 * This interface was referenced by `ReleaseDocumentInput`'s JSON-Schema
 * via the `definition` "sale".
 */
export interface Sale {
  /**
   * Text of 1 to 255 characters, not only white space.
   */
  id: string;
  /**
   * When the sale ends (null or absent: never).
   */
  expires?: string | null;
  price: PriceMap1;
}
