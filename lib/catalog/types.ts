import type { FilterableProduct } from '../filter/types';
import type { CurrencySettings } from '../store/store-repository';

/** One currency's price: `amount` in the currency's lowest denomination (the list price). */
export interface PriceEntry {
  amount: number;
  includes_tax: boolean;
}

/** A price map keyed by three-letter ISO 4217 currency code. */
export type PriceMap = Record<string, PriceEntry>;

/** A volume price: from `minimum_quantity` units on, `price` applies. */
export interface PriceTier {
  minimum_quantity: number;
  price: PriceMap;
}

/** A product's prices: the currency map plus named tiers (rendered as `price.tiers`). */
export interface ProductPricing {
  currencies: PriceMap;
  tiers: Record<string, PriceTier>;
}

export type ModifierType = 'price_increment' | 'price_decrement' | 'price_equals';

/** A release-level price modifier, named by products' `price_modifiers`. */
export interface PriceModifier {
  modifier_type: ModifierType;
  currencies: PriceMap;
}

/** `with_tax` / `without_tax` of `meta.display_price`. */
export interface DisplayAmount {
  amount: number;
  currency: string;
  formatted: string;
}

export interface DisplayPrice {
  with_tax: DisplayAmount;
  without_tax: DisplayAmount;
}

export interface ComponentOption {
  id: string;
  type: 'product';
  quantity: number;
  sort_order: number | null;
  default: boolean | null;
}

export interface Component {
  name: string;
  min: number | null;
  max: number | null;
  sort_order: number | null;
  options: ComponentOption[];
}

export interface CustomInput {
  name: string;
  validation_rules: { type: 'string'; options: { max_length: number } }[];
  required: boolean | null;
}

export interface VariationOption {
  id: string;
  name: string;
  sort_order: number | null;
  description: string;
}

export interface Variation {
  id: string;
  name: string;
  sort_order: number | null;
  options: VariationOption[];
}

export interface LocaleText {
  name?: string;
  description?: string;
}

/** A sale on a product: the sale price replaces the list price in `display_price`. */
export interface Sale {
  id: string;
  expires: string | null;
  price: PriceMap;
}

/** A node of the release's hierarchies (a hierarchy when it has no parent): breadcrumbs and navigation. */
export interface CatalogNode {
  id: string;
  name: string;
  parent_id: string | null;
  /** Absent: derived from the name at publish. */
  slug?: string;
  description?: string;
  /** Normalised ISO times; absent: the publish time. */
  created_at?: string;
  updated_at?: string;
}

export interface ReleaseRuleInput {
  id?: string;
  name: string;
  channels: string[];
  tags: string[];
  schedules: { valid_from: string | null; valid_to: string | null }[];
}

/** The product attributes a release document may carry (the product resource's attributes plus `locales`), after validation. */
export interface ProductAttributesInput {
  name: string;
  description?: string;
  sku?: string;
  slug?: string;
  status: 'live' | 'draft';
  commodity_type?: 'physical' | 'digital';
  base_product?: boolean;
  base_product_id?: string;
  curated_product?: boolean;
  upc_ean?: string;
  manufacturer_part_num?: string;
  tags?: string[];
  price_modifiers?: string[];
  external_ref?: string | null;
  product_types?: ProductType[];
  price?: ProductPricing;
  extensions?: Record<string, Record<string, string | number | boolean | null>>;
  components?: Record<string, Component>;
  custom_inputs?: Record<string, CustomInput>;
  published_at?: string | null;
  created_at?: string;
  updated_at?: string;
  locales?: Record<string, LocaleText>;
}

export type ProductType = 'standard' | 'parent' | 'child' | 'bundle';

export interface ProductInput {
  id: string;
  attributes: ProductAttributesInput;
  node_ids: string[];
  files: { id: string; created_at: string }[];
  main_image?: string;
  variations: Variation[];
  /** A child's choice per variation of its parent: variation id -> option id. */
  variation_options: Record<string, string>;
  sale?: Sale;
  /** The price book its price comes from, when not the catalog's. */
  pricebook_id?: string;
}

/**
 * A file of a release document's top-level `files[]` (the platform's file object): products name it by id
 * in `main_image` and `files[].id`.
 */
export interface CatalogFile {
  id: string;
  file_name: string;
  mime_type: string;
  /** Bytes. */
  file_size: number;
  link: { href: string };
  meta?: {
    dimensions?: { width: number; height: number };
    timestamps?: { created_at: string };
  };
}

/** A file as `included.main_images[]` and `included.files[]` render it (the platform's file shape). */
export interface FileResource {
  type: 'file';
  id: string;
  file_name: string;
  mime_type: string;
  file_size: number;
  link: { href: string };
  meta: NonNullable<CatalogFile['meta']>;
}

/** A release document after validation and normalisation (defaults filled, timestamps normalised). */
export interface ReleaseDocument {
  catalog: { id?: string; name: string; description: string; pricebook_id: string | null };
  currencies?: Record<string, CurrencySettings>;
  rules: ReleaseRuleInput[];
  nodes: CatalogNode[];
  price_modifiers: Record<string, PriceModifier>;
  /** The files products refer to (empty when the document has none). */
  files: CatalogFile[];
  products: ProductInput[];
}

/** The product resource, as the API returns it. */
export interface ProductResource {
  id: string;
  type: 'product';
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
  meta: Record<string, unknown>;
}

/**
 * A product as stored in a release: the resource rendered in the store's default text, plus the locale
 * texts a request may switch to. Parents also carry their count of live children.
 */
export interface StoredProduct {
  resource: ProductResource;
  /** The currency of the display prices in `resource.meta` (the default currency at publish time). */
  currency?: string;
  /** The display prices in each other currency of the release's currency settings (see `DisplayPrices`). */
  display?: Record<string, DisplayPrices>;
  locales: Record<string, LocaleText>;
  live: boolean;
  base_product: boolean;
  /** Live children in publish order (parents only; 0 otherwise). */
  live_children: number;
}

/**
 * Everything of a product's `meta` that depends on the display currency: `display_price`,
 * `original_display_price`, and per bundle component those two plus its tiers' `display_price`. Absent
 * fields mean no price in that currency.
 */
export interface DisplayPrices {
  display_price?: DisplayPrice;
  original_display_price?: DisplayPrice;
  component_products?: Record<
    string,
    {
      display_price?: DisplayPrice;
      original_display_price?: DisplayPrice;
      tiers: Record<string, { display_price?: DisplayPrice }>;
    }
  >;
}

/** A live child's entry in its parent's index: the filterable attributes plus `updated_at`. */
export interface ChildIndexEntry extends FilterableProduct {
  updated_at: string;
}

/** Where a release's items live: product ids hash to `shards` partitions; child indexes hold `chunk_size` ids per item. */
export interface ReleaseLayout {
  id: string;
  shards: number;
  chunk_size: number;
  published_at: string;
  /** FILTER_INDEX_VERSION when the release carries a filter index per parent (`lib/catalog/filter-index.ts`). */
  filter_index?: number;
  /**
   * The releases whose items this one shares (newest first, at most MAX_LAYERS - 1): a key missing from the
   * release's own partitions is read from them, the first holding it giving the item
   * (lib/catalog/pipeline/share.ts). Absent or empty: the release holds all its items.
   */
  layers?: string[];
}
