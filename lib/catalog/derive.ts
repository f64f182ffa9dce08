import type { CurrencySettings } from '../store/store-repository';
import { breadcrumbsFor } from './breadcrumbs';
import {
  applyModifiers,
  applyModifiersToPricing,
  defaultCurrency,
  displayPrice,
  renderPricing,
} from './prices';
import type {
  CatalogFile,
  ChildIndexEntry,
  DisplayPrices,
  FileResource,
  PriceModifier,
  ProductInput,
  ProductPricing,
  ProductResource,
  ProductType,
  ReleaseDocument,
  StoredProduct,
  Variation,
} from './types';

/** Counts kept at publish time and printed by the publisher. */
export interface ReleaseCounts {
  total: number;
  live: number;
  draft: number;
  /** Base products (parents). */
  parents: number;
  children: number;
  live_children: number;
  standard: number;
  bundles: number;
}

export interface PrepareContext {
  catalogId: string;
  /** The publish time: the default for `created_at`, `updated_at` and `published_at`. */
  publishedAt: string;
  /** Currency settings for `display_price`: the document's, else the store's. */
  currencies: Record<string, CurrencySettings>;
}

/** The list route of a parent's children (relative, like the list's own links). */
export function childrenPath(productId: string): string {
  return `/catalog/products/${productId}/relationships/children`;
}

/** A release file in the platform's file shape (`type: "file"`), as `included` shows it. */
export function renderFile(file: CatalogFile): FileResource {
  return {
    type: 'file',
    id: file.id,
    file_name: file.file_name,
    mime_type: file.mime_type,
    file_size: file.file_size,
    link: { href: file.link.href },
    meta: file.meta ?? {},
  };
}

/** The default slug: the name without accents, in lower case, each run of characters other than a-z 0-9 . _ turned into one `-`. */
export function slugFromName(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? fallback : slug;
}

interface Effective {
  input: ProductInput;
  parent: ProductInput | undefined;
  pricing: ProductPricing | undefined;
  salePrice: ProductPricing['currencies'] | undefined;
  modifiers: string[];
}

function productTypes(input: ProductInput, hasChildren: boolean): ProductType[] {
  const given = input.attributes.product_types;
  if (given !== undefined) return given;
  if (input.attributes.base_product_id !== undefined) return ['child'];
  if (hasChildren || input.attributes.base_product === true) return ['parent'];
  if (input.attributes.components && Object.keys(input.attributes.components).length > 0) return ['bundle'];
  return ['standard'];
}

/** The parent's variations as a child sees them: each narrowed to the option the child picked. */
function childVariations(parentVariations: Variation[], picked: Record<string, string>): Variation[] {
  const result: Variation[] = [];
  for (const variation of parentVariations) {
    const optionId = picked[variation.id];
    const option = variation.options.find((candidate) => candidate.id === optionId);
    if (option) result.push({ ...variation, options: [option] });
  }
  return result;
}

/**
 * `meta.variation_matrix` of a parent: nested by its variations in order (option id of the first, then the
 * second, ...), leaves are live child ids; children that do not pick every variation are left out.
 */
export function variationMatrix(
  variations: Variation[],
  children: Pick<ProductInput, 'id' | 'variation_options'>[],
): Record<string, unknown> {
  const matrix: Record<string, unknown> = {};
  if (variations.length === 0) return matrix;
  for (const child of children) {
    const path = variations.map((variation) => child.variation_options[variation.id]);
    if (path.some((optionId) => optionId === undefined)) continue;
    let level = matrix;
    path.forEach((optionId, depth) => {
      const key = optionId as string;
      if (depth === path.length - 1) {
        level[key] = child.id;
        return;
      }
      level[key] ??= {};
      level = level[key] as Record<string, unknown>;
    });
  }
  return matrix;
}

/** A parent's children as the derivation of the parent needs them: how many, and the live ones in order. */
export interface FamilyFacts {
  children: number;
  liveChildren: number;
  /**
   * The live children the variation matrix takes, in document (publish) order: their ids and the options
   * they pick. Children that pick no option may be left out (the matrix leaves them out).
   */
  live: Pick<ProductInput, 'id' | 'variation_options'>[];
}

/**
 * What deriving one product needs beyond the product itself: the document's small members, its parent's
 * and its components' inputs (`product`), and, for a parent, its family. The whole-document derivation
 * answers from maps of every product; the streamed one (lib/catalog/derive-stream.ts) from what its first
 * passes kept: parents, components and families.
 */
export interface DeriveScope {
  document: Pick<ReleaseDocument, 'price_modifiers' | 'catalog'>;
  paths: Map<string, string[]>;
  context: PrepareContext;
  /** A product's input: at least every parent and every bundle component. */
  product(id: string): ProductInput | undefined;
  /** The family of a product that has children (undefined: none). */
  family(id: string): FamilyFacts | undefined;
}

/** A scope's effective prices, computed once per product asked for. */
function effectiveOf(input: ProductInput, scope: DeriveScope, cache?: Map<string, Effective>): Effective {
  const cached = cache?.get(input.id);
  if (cached) return cached;
  const parentId = input.attributes.base_product_id;
  const parent = parentId === undefined ? undefined : scope.product(parentId);
  const modifiers = input.attributes.price_modifiers ?? [];
  const modifiersOf = (names: string[]): PriceModifier[] =>
    names.flatMap((name) => {
      const modifier = scope.document.price_modifiers[name];
      return modifier ? [modifier] : [];
    });
  const basePricing = input.attributes.price ?? parent?.attributes.price;
  const sale = input.sale ?? parent?.sale;
  const facts: Effective = {
    input,
    parent,
    pricing: basePricing && applyModifiersToPricing(basePricing, modifiersOf(modifiers)),
    salePrice: sale && applyModifiers(sale.price, modifiersOf(modifiers)),
    modifiers,
  };
  // Kept only for products the scope holds (parents and components, asked for again and again): a streamed
  // derivation must not keep every product it reads.
  if (scope.product(input.id) === input) cache?.set(input.id, facts);
  return facts;
}

/** One product derived: what is stored, and what the counts and the child index need of it. */
export interface DerivedProduct {
  stored: StoredProduct;
  types: ProductType[];
  isBase: boolean;
  hasParent: boolean;
}

/**
 * Derives one product of a validated document (see `prepareRelease`): its parent's inheritance, its prices
 * with modifiers, display prices, breadcrumbs, variations, its variation matrix (a parent) and its bundle's
 * component prices.
 */
export function deriveProduct(
  input: ProductInput,
  scope: DeriveScope,
  cache: Map<string, Effective> = new Map(),
): DerivedProduct {
  const { context, document, paths } = scope;
  const effectiveFor = (id: string): Effective | undefined => {
    const product = scope.product(id);
    return product && effectiveOf(product, scope, cache);
  };
  const facts = effectiveOf(input, scope, cache);
  const { parent } = facts;
  const a = input.attributes;
  const family = scope.family(input.id);
  const childCount = family?.children ?? 0;
  const isBase = a.base_product === true || childCount > 0;
  const types = productTypes(input, childCount > 0);
  const created = a.created_at ?? context.publishedAt;
  const attributes: Record<string, unknown> = {
    published_at: a.published_at === undefined ? context.publishedAt : a.published_at,
    created_at: created,
    updated_at: a.updated_at ?? context.publishedAt,
    name: a.name,
    description: a.description ?? parent?.attributes.description ?? '',
    sku: a.sku,
    slug: a.slug ?? slugFromName(a.name, input.id),
    status: a.status,
    commodity_type: a.commodity_type ?? parent?.attributes.commodity_type ?? 'physical',
    base_product: isBase,
  };
  if (a.base_product_id !== undefined) attributes.base_product_id = a.base_product_id;
  if (a.curated_product === true) attributes.curated_product = true;
  if (a.upc_ean !== undefined) attributes.upc_ean = a.upc_ean;
  if (a.manufacturer_part_num !== undefined) attributes.manufacturer_part_num = a.manufacturer_part_num;
  attributes.tags = a.tags ?? [];
  attributes.price_modifiers = facts.modifiers;
  attributes.external_ref = a.external_ref ?? null;
  attributes.product_types = types;
  if (facts.pricing) attributes.price = renderPricing(facts.pricing);
  const extensions = a.extensions ?? parent?.attributes.extensions;
  if (extensions && Object.keys(extensions).length > 0) attributes.extensions = extensions;
  if (a.components && Object.keys(a.components).length > 0) attributes.components = a.components;
  const customInputs = a.custom_inputs ?? parent?.attributes.custom_inputs;
  if (customInputs && Object.keys(customInputs).length > 0) attributes.custom_inputs = customInputs;

  const relationships: Record<string, unknown> = {};
  if (parent) relationships.parent = { data: { id: parent.id, type: 'product' } };
  if (isBase) relationships.children = { links: { self: childrenPath(input.id) } };
  const files = input.files.length > 0 ? input.files : (parent?.files ?? []);
  if (files.length > 0) {
    relationships.files = {
      data: files.map((file) => ({ type: 'file', id: file.id, created_at: file.created_at })),
    };
  }
  const mainImage = input.main_image ?? parent?.main_image;
  if (mainImage !== undefined) relationships.main_image = { data: { type: 'main_image', id: mainImage } };
  const componentIds = [
    ...new Set(
      Object.values(a.components ?? {}).flatMap((component) => component.options.map((option) => option.id)),
    ),
  ];
  if (componentIds.length > 0) {
    relationships.component_products = {
      data: componentIds.map((id) => ({ id, type: 'product' })),
      links: { self: `/catalog/products/${input.id}/relationships/component_products` },
    };
  }

  const meta: Record<string, unknown> = {
    catalog_id: context.catalogId,
    catalog_source: 'pim',
    pricebook_id: input.pricebook_id ?? parent?.pricebook_id ?? document.catalog.pricebook_id,
  };
  const nodeIds = input.node_ids.length > 0 ? input.node_ids : (parent?.node_ids ?? []);
  if (nodeIds.length > 0) Object.assign(meta, breadcrumbsFor(nodeIds, paths));
  Object.assign(meta, priceMeta(facts, context.currencies, input.sale ?? parent?.sale));
  if (facts.modifiers.length > 0) meta.price_modifiers = modifierMap(facts.modifiers, document);
  if (componentIds.length > 0 && a.components) {
    const componentProducts: Record<string, unknown> = {};
    for (const id of componentIds) {
      const component = effectiveFor(id);
      if (component) componentProducts[id] = componentMeta(component, context.currencies, document);
    }
    meta.component_products = componentProducts;
    const selected: Record<string, Record<string, number>> = {};
    for (const [key, component] of Object.entries(a.components)) {
      const defaults: Record<string, number> = {};
      for (const option of component.options)
        if (option.default === true) defaults[option.id] = option.quantity;
      Object.defineProperty(selected, key, { value: defaults, enumerable: true });
    }
    meta.bundle_configuration = { selected_options: selected };
  }
  const variations = parent ? childVariations(parent.variations, input.variation_options) : input.variations;
  meta.variation_matrix = parent ? {} : variationMatrix(input.variations, family?.live ?? []);
  if (variations.length > 0) meta.variations = variations;

  const resource: ProductResource = { id: input.id, type: 'product', attributes, relationships, meta };
  const live = a.status === 'live';
  const shownIn = defaultCurrency(context.currencies);
  const display: Record<string, DisplayPrices> = {};
  for (const code of Object.keys(context.currencies)) {
    if (code === shownIn) continue;
    display[code] = displayPricesIn(
      code,
      facts,
      componentIds,
      effectiveFor,
      context.currencies,
      a.components,
    );
  }
  const stored: StoredProduct = {
    resource,
    ...(shownIn === undefined ? {} : { currency: shownIn }),
    ...(Object.keys(display).length > 0 ? { display } : {}),
    locales: a.locales ?? {},
    live,
    base_product: isBase,
    live_children: isBase ? (family?.liveChildren ?? 0) : 0,
  };
  return { stored, types, isBase, hasParent: parent !== undefined };
}

/** Empty counts, to add products to with `countProduct`. */
export function emptyCounts(): ReleaseCounts {
  return { total: 0, live: 0, draft: 0, parents: 0, children: 0, live_children: 0, standard: 0, bundles: 0 };
}

/** Adds a derived product to the release's counts. */
export function countProduct(counts: ReleaseCounts, derived: DerivedProduct): void {
  counts.total += 1;
  if (derived.stored.live) counts.live += 1;
  else counts.draft += 1;
  if (derived.isBase) {
    counts.parents += 1;
    counts.live_children += derived.stored.live_children;
  }
  if (derived.hasParent) counts.children += 1;
  if (derived.types.includes('standard')) counts.standard += 1;
  if (derived.types.includes('bundle')) counts.bundles += 1;
}

/** `meta.price_modifiers`: the named modifiers of the release, keyed by name. */
function modifierMap(
  names: string[],
  document: Pick<ReleaseDocument, 'price_modifiers'>,
): Record<string, PriceModifier> {
  const map: Record<string, PriceModifier> = {};
  for (const name of names) {
    const modifier = document.price_modifiers[name];
    if (modifier) Object.defineProperty(map, name, { value: modifier, enumerable: true });
  }
  return map;
}

function priceMeta(
  facts: Effective,
  currencies: Record<string, CurrencySettings>,
  sale: ProductInput['sale'],
  code?: string,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const list = facts.pricing?.currencies;
  if (sale && facts.salePrice) {
    const shown = displayPrice(facts.salePrice, currencies, code);
    if (shown) meta.display_price = shown;
    if (list) {
      meta.original_price = list;
      const original = displayPrice(list, currencies, code);
      if (original) meta.original_display_price = original;
    }
    meta.sale_id = sale.id;
    meta.sale_expires = sale.expires;
    return meta;
  }
  if (list) {
    const shown = displayPrice(list, currencies, code);
    if (shown) meta.display_price = shown;
  }
  return meta;
}

/** The currency-dependent part of `meta` (see `DisplayPrices`) in `code`. */
function displayPricesIn(
  code: string,
  facts: Effective,
  componentIds: string[],
  effective: (id: string) => Effective | undefined,
  currencies: Record<string, CurrencySettings>,
  components: ProductInput['attributes']['components'],
): DisplayPrices {
  // The product's own display prices are those of a component, without the tiers.
  const { tiers: _tiers, ...prices }: DisplayPrices & { tiers?: unknown } = componentDisplay(
    facts,
    currencies,
    code,
  );
  if (componentIds.length > 0 && components) {
    const componentPrices: NonNullable<DisplayPrices['component_products']> = {};
    for (const id of componentIds) {
      const component = effective(id);
      if (!component) continue;
      componentPrices[id] = componentDisplay(component, currencies, code);
    }
    prices.component_products = componentPrices;
  }
  return prices;
}

/** A bundle's `meta.component_products` entry for one component product. */
function componentMeta(
  facts: Effective,
  currencies: Record<string, CurrencySettings>,
  document: Pick<ReleaseDocument, 'price_modifiers' | 'catalog'>,
): Record<string, unknown> {
  const sale = facts.input.sale ?? facts.parent?.sale;
  const entry: Record<string, unknown> = {
    ...(sale ? { sale_id: sale.id, sale_expires: sale.expires } : {}),
    price: facts.pricing?.currencies ?? {},
    ...priceMeta(facts, currencies, sale),
    pricebook_id: facts.input.pricebook_id ?? facts.parent?.pricebook_id ?? document.catalog.pricebook_id,
    price_modifiers: modifierMap(facts.modifiers, document),
  };
  const shown = componentDisplay(facts, currencies);
  const tiers: Record<string, unknown> = {};
  for (const [name, tier] of Object.entries(shown.tiers)) {
    Object.defineProperty(tiers, name, {
      value: { ...(sale ? { sale_id: sale.id, sale_expires: sale.expires } : {}), ...tier },
      enumerable: true,
    });
  }
  entry.tiers = tiers;
  return entry;
}

type ComponentDisplay = NonNullable<DisplayPrices['component_products']>[string];

/** A bundle component's display prices in `code` (default: the default currency), tiers included. */
function componentDisplay(
  facts: Effective,
  currencies: Record<string, CurrencySettings>,
  code?: string,
): ComponentDisplay {
  const sale = facts.input.sale ?? facts.parent?.sale;
  const { display_price, original_display_price } = priceMeta(facts, currencies, sale, code) as DisplayPrices;
  const tiers: ComponentDisplay['tiers'] = {};
  for (const [name, tier] of Object.entries(facts.pricing?.tiers ?? {})) {
    const shown = displayPrice(tier.price, currencies, code);
    Object.defineProperty(tiers, name, { value: shown ? { display_price: shown } : {}, enumerable: true });
  }
  return {
    ...(display_price ? { display_price } : {}),
    ...(original_display_price ? { original_display_price } : {}),
    tiers,
  };
}

/** A live child's entry in its parent's child index. */
export function indexEntry(child: ProductInput, publishedAt: string): ChildIndexEntry {
  const a = child.attributes;
  return {
    id: child.id,
    name: a.name,
    sku: a.sku ?? '',
    slug: a.slug ?? slugFromName(a.name, child.id),
    manufacturer_part_num: a.manufacturer_part_num ?? '',
    upc_ean: a.upc_ean ?? '',
    product_types: a.product_types ?? ['child'],
    tags: a.tags ?? [],
    updated_at: a.updated_at ?? publishedAt,
  };
}
