import type { ChildVariation, ProductRecord } from '../../store/product-repository';
import type {
  Attributes,
  Node as DocumentNode,
  PriceMap1 as DocumentPriceMap,
  PriceModifier as DocumentPriceModifier,
  Product as DocumentProduct,
  ProductPrice as DocumentProductPrice,
  Sale as DocumentSale,
  Tier as DocumentTier,
  Variation as DocumentVariation,
} from '../release-input.generated';

/**
 * The pure half of the Export step (lib/catalog/pipeline/export.ts): authored records (products, nodes,
 * prices, price modifiers) turned into the release document's entries, so that an authored catalog is
 * published by the very steps that publish a document (docs/publishing.md, "Authored catalogs").
 */

/** One currency's amount as price books hold it, with its volume tiers. */
export interface AuthoredAmount {
  amount: number;
  includes_tax?: boolean;
  tiers?: Record<string, { minimum_quantity: number; amount: number }>;
}

/** A sale of a price: its schedule, its prices, and the bundles it is limited to. */
export interface AuthoredSale {
  bundle_ids?: string[];
  schedule?: { valid_from?: string | null; valid_to?: string | null };
  currencies: Record<string, AuthoredAmount>;
}

/** A price book's price of one sku (with the book it came from, when known). */
export interface AuthoredPrice {
  currencies: Record<string, AuthoredAmount>;
  sales?: Record<string, AuthoredSale>;
  pricebook_id?: string;
}

/** A price book's price modifier. */
export interface AuthoredPriceModifier {
  name: string;
  modifier_type: DocumentPriceModifier['modifier_type'];
  currencies: Record<string, AuthoredAmount>;
}

const entry = (amount: AuthoredAmount) => ({
  amount: amount.amount,
  includes_tax: amount.includes_tax ?? false,
});

/** A currency map without its tiers: `{USD: {amount, includes_tax}}`. */
export function documentPriceMap(currencies: Record<string, AuthoredAmount>): DocumentPriceMap {
  const map: DocumentPriceMap = {};
  for (const [code, amount] of Object.entries(currencies)) map[code] = entry(amount);
  return map;
}

/**
 * A price book's currencies as the document's `price`: the amounts by currency, and the tiers regrouped
 * from per currency to per minimum quantity (the document names a tier once, with a price in every
 * currency that has it). Tiers of several currencies starting at the same quantity become one tier,
 * named as the first currency names it (the document allows one tier per minimum quantity).
 */
export function documentPrice(currencies: Record<string, AuthoredAmount>): DocumentProductPrice {
  const price: DocumentProductPrice = documentPriceMap(currencies);
  const byQuantity = new Map<number, { name: string; tier: DocumentTier }>();
  for (const code of Object.keys(currencies).sort()) {
    const tiers = currencies[code]?.tiers ?? {};
    for (const [name, tier] of Object.entries(tiers)) {
      let grouped = byQuantity.get(tier.minimum_quantity);
      if (grouped === undefined) {
        grouped = { name, tier: { minimum_quantity: tier.minimum_quantity, price: {} } };
        byQuantity.set(tier.minimum_quantity, grouped);
      }
      grouped.tier.price[code] = {
        amount: tier.amount,
        includes_tax: currencies[code]?.includes_tax ?? false,
      };
    }
  }
  if (byQuantity.size > 0) {
    const tiers: Record<string, DocumentTier> = {};
    const names = new Set<string>();
    for (const quantity of [...byQuantity.keys()].sort((a, b) => a - b)) {
      const { name, tier } = byQuantity.get(quantity) as { name: string; tier: DocumentTier };
      // Two quantities named alike in different currencies: the second takes its quantity in its name.
      const unique = names.has(name) ? `${name}-${quantity}` : name;
      names.add(unique);
      tiers[unique] = tier;
    }
    price.tiers = tiers;
  }
  return price;
}

const MAX_TIME = Number.POSITIVE_INFINITY;

/** When a schedule starts and ends, in ms (open ends: -∞ and +∞). */
function window(sale: AuthoredSale): { from: number; to: number } {
  const from = sale.schedule?.valid_from;
  const to = sale.schedule?.valid_to;
  return {
    from: from ? Date.parse(from) : Number.NEGATIVE_INFINITY,
    to: to ? Date.parse(to) : MAX_TIME,
  };
}

/**
 * The sale a shopper is offered at `at`, as the platform chooses it: among the sales whose schedule holds
 * `at` (a sale without schedule always does), the shortest; sales limited to bundles (`bundle_ids`) price
 * the sku only inside those bundles, so they never price it alone. `expires` is the chosen sale's end.
 * A scheduled sale that starts later is not in this release: a release is a snapshot.
 */
export function activeSale(
  sales: Record<string, AuthoredSale> | undefined,
  at: Date,
): DocumentSale | undefined {
  const now = at.getTime();
  let chosen: { id: string; sale: AuthoredSale; length: number; to: number } | undefined;
  for (const [id, sale] of Object.entries(sales ?? {})) {
    if ((sale.bundle_ids ?? []).length > 0) continue;
    const { from, to } = window(sale);
    if (!(from <= now && now < to)) continue;
    const length = to - from;
    if (chosen === undefined || length < chosen.length) chosen = { id, sale, length, to };
  }
  if (chosen === undefined) return undefined;
  const expires = chosen.sale.schedule?.valid_to;
  return {
    id: chosen.id,
    expires: expires ? new Date(Date.parse(expires)).toISOString() : null,
    price: documentPriceMap(chosen.sale.currencies),
  };
}

/** A price modifier as the document's `price_modifiers` holds it (tiers are not modified by name). */
export function documentPriceModifier(modifier: AuthoredPriceModifier): DocumentPriceModifier {
  return { modifier_type: modifier.modifier_type, currencies: documentPriceMap(modifier.currencies) };
}

/** A node of a hierarchy as the export reads it. */
export interface AuthoredNode {
  id: string;
  name: string;
  slug?: string;
  description?: string;
  parent_id: string | null;
  sort_order: number | null;
  curated_products: string[];
  created_at: string;
  updated_at: string;
}

/** A hierarchy as the export reads it: the root of its nodes. */
export interface AuthoredHierarchy {
  id: string;
  name: string;
  slug?: string;
  description?: string;
  created_at: string;
  updated_at: string;
}

/** Siblings as the platform orders them: `sort_order` highest first; without one after, newest update first. */
export function bySortOrder(a: AuthoredNode, b: AuthoredNode): number {
  if (a.sort_order !== null && b.sort_order !== null) return b.sort_order - a.sort_order;
  if (a.sort_order !== null) return -1;
  if (b.sort_order !== null) return 1;
  return b.updated_at.localeCompare(a.updated_at) || a.id.localeCompare(b.id);
}

const documentNode = (
  node: Pick<AuthoredNode, 'id' | 'name' | 'slug' | 'description' | 'created_at' | 'updated_at'>,
  parent: string | null,
): DocumentNode => ({
  id: node.id,
  name: node.name,
  parent_id: parent,
  ...(node.slug ? { slug: node.slug } : {}),
  ...(node.description ? { description: node.description } : {}),
  created_at: node.created_at,
  updated_at: node.updated_at,
});

/**
 * A hierarchy and its nodes as the document's `nodes`: the hierarchy first (a root), then its nodes depth
 * first, siblings in the platform's order ({@link bySortOrder}); the document's order is the order of the
 * shopper's node lists. A node whose parent is not among them (deleted while read) is left out, with its
 * subtree.
 */
export function documentNodes(hierarchy: AuthoredHierarchy, nodes: readonly AuthoredNode[]): DocumentNode[] {
  const children = new Map<string, AuthoredNode[]>();
  for (const node of nodes) {
    const parent = node.parent_id ?? hierarchy.id;
    const siblings = children.get(parent) ?? [];
    siblings.push(node);
    children.set(parent, siblings);
  }
  const out: DocumentNode[] = [documentNode(hierarchy, null)];
  const visit = (parent: string) => {
    for (const node of (children.get(parent) ?? []).sort(bySortOrder)) {
      out.push(documentNode(node, parent));
      visit(node.id);
    }
  };
  visit(hierarchy.id);
  return out;
}

/** What an authored product record holds that the document takes. */
export type AuthoredProduct = Pick<
  ProductRecord,
  'id' | 'attributes' | 'created_at' | 'updated_at' | 'main_image' | 'files' | 'parent_id' | 'price_modifiers'
> & { child_variations?: (Pick<ChildVariation, 'id'> & { option: Pick<ChildVariation['option'], 'id'> })[] };

/** Where a product sits and what it is priced with, as the export found them. */
export interface ProductContext {
  node_ids: string[];
  curated: boolean;
  price?: AuthoredPrice;
  /** A parent's variations with their options, in link order. */
  variations?: DocumentVariation[];
  /** The price modifier names the release has: a child's others are left out. */
  modifiers: ReadonlySet<string>;
  at: Date;
}

/**
 * An authored product as a document product. Children name their parent (`base_product_id`) and the
 * option they picked of each variation; a price comes from the catalog's books by sku (a child without
 * its own takes its parent's, changed by its modifiers, when the release is derived).
 */
export function documentProduct(product: AuthoredProduct, context: ProductContext): DocumentProduct {
  const source = product.attributes;
  const attributes: Attributes = {
    name: source.name,
    ...(source.sku ? { sku: source.sku } : {}),
    status: source.status,
    ...(product.parent_id === undefined ? { commodity_type: source.commodity_type } : {}),
    ...(source.slug ? { slug: source.slug } : {}),
    ...(source.description ? { description: source.description } : {}),
    ...(source.upc_ean ? { upc_ean: source.upc_ean } : {}),
    ...(source.mpn ? { manufacturer_part_num: source.mpn } : {}),
    ...(source.external_ref ? { external_ref: source.external_ref } : {}),
    ...(source.tags?.length ? { tags: source.tags } : {}),
    ...(source.extensions ? { extensions: source.extensions } : {}),
    ...(source.custom_inputs ? { custom_inputs: source.custom_inputs as Attributes['custom_inputs'] } : {}),
    ...(source.locales ? { locales: documentLocales(source.locales) } : {}),
    ...(source.components ? { components: documentComponents(source.components) } : {}),
    ...(context.curated ? { curated_product: true } : {}),
    ...(product.parent_id === undefined ? {} : { base_product_id: product.parent_id }),
    created_at: product.created_at,
    updated_at: product.updated_at,
  };
  const modifiers = (product.price_modifiers ?? []).filter((name) => context.modifiers.has(name));
  if (modifiers.length > 0) attributes.price_modifiers = modifiers;
  if (context.price !== undefined) attributes.price = documentPrice(context.price.currencies);
  const sale = context.price === undefined ? undefined : activeSale(context.price.sales, context.at);
  const variationOptions: Record<string, string> = {};
  for (const variation of product.child_variations ?? [])
    variationOptions[variation.id] = variation.option.id;
  return {
    id: product.id,
    attributes,
    ...(context.node_ids.length > 0 ? { node_ids: context.node_ids } : {}),
    ...(product.files?.length
      ? { files: product.files.map((file) => ({ id: file.id, created_at: file.created_at })) }
      : {}),
    ...(product.main_image ? { main_image: product.main_image } : {}),
    ...(context.variations?.length ? { variations: context.variations } : {}),
    ...(Object.keys(variationOptions).length > 0 ? { variation_options: variationOptions } : {}),
    ...(sale === undefined ? {} : { sale }),
    ...(context.price?.pricebook_id === undefined ? {} : { pricebook_id: context.price.pricebook_id }),
  };
}

/** Names and descriptions by locale. */
function documentLocales(
  locales: Record<string, { name: string; description?: string }>,
): NonNullable<Attributes['locales']> {
  const out: NonNullable<Attributes['locales']> = {};
  for (const [tag, text] of Object.entries(locales)) {
    out[tag] = { name: text.name, ...(text.description ? { description: text.description } : {}) };
  }
  return out;
}

/** Bundle components: the options' product, quantity, order and default (min and max are the bundle's). */
function documentComponents(
  components: NonNullable<AuthoredProduct['attributes']['components']>,
): NonNullable<Attributes['components']> {
  const out: NonNullable<Attributes['components']> = {};
  for (const [key, component] of Object.entries(components)) {
    out[key] = {
      name: component.name,
      ...(component.min === undefined ? {} : { min: component.min }),
      ...(component.max === undefined ? {} : { max: component.max }),
      ...(component.sort_order === undefined ? {} : { sort_order: component.sort_order }),
      options: component.options.map((option) => ({
        id: option.id,
        type: 'product' as const,
        quantity: option.quantity,
        ...(option.sort_order === undefined ? {} : { sort_order: option.sort_order }),
        ...(option.default === undefined ? {} : { default: option.default }),
      })),
    };
  }
  return out;
}
