import type { CurrencySettings } from '../store/store-repository';
import { resolveNodePaths } from './breadcrumbs';
import { documentEntryBytes, REGISTRY_ENTRY_MAX_BYTES } from './registry-size';
import type * as Input from './release-input.generated';
import { checkShape, type PathSegments, type ShapeIssue } from './release-schema';
import type {
  CatalogFile,
  CatalogNode,
  Component,
  CustomInput,
  LocaleText,
  PriceMap,
  PriceModifier,
  ProductAttributesInput,
  ProductInput,
  ProductPricing,
  ReleaseDocument,
  ReleaseRuleInput,
  Variation,
} from './types';

/** One problem in a release document: where (a JSON path such as `products[12].attributes.slug`), which rule, why. */
export interface ValidationIssue {
  path: string;
  rule: string;
  message: string;
}

/** At most this many issues are reported; `total` still counts all of them. */
export const MAX_VALIDATION_ISSUES = 100;

/** A release document that failed validation: every issue found (capped), nothing was written. */
export class ReleaseValidationError extends Error {
  override name = 'ReleaseValidationError';
  constructor(
    readonly issues: ValidationIssue[],
    readonly total: number,
  ) {
    super(`the release document has ${total} error${total === 1 ? '' : 's'}`);
  }
}

export type ValidationResult =
  | { ok: true; document: ReleaseDocument }
  | { ok: false; issues: ValidationIssue[]; total: number };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `path.key`, or `path["odd key"]` for keys that are not plain names. */
export function childPath(path: string, key: string): string {
  if (NAME.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** The printable JSON path of segments: `products[12].attributes.slug`, or `$` for the document itself. */
export function formatPath(segments: PathSegments): string {
  if (segments.length === 0) return '$';
  let path = '';
  for (const segment of segments)
    path = typeof segment === 'number' ? `${path}[${segment}]` : childPath(path, segment);
  return path;
}

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The position of a path in the document, for listing issues in document order: per segment, the array
 * index or the key's position among the object's keys (a missing key sorts after the present ones).
 */
function documentOrder(
  root: unknown,
  segments: PathSegments,
  keyOrder: WeakMap<object, Map<string, number>>,
) {
  const order: number[] = [];
  let current: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      order.push(Number(segment));
      current = current[Number(segment)];
    } else if (isObject(current)) {
      let keys = keyOrder.get(current);
      if (!keys) {
        keys = new Map(Object.keys(current).map((key, index) => [key, index]));
        keyOrder.set(current, keys);
      }
      order.push(keys.get(String(segment)) ?? keys.size);
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    } else {
      order.push(0);
      current = undefined;
    }
  }
  return order;
}

function compareOrder(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const difference = (a[i] as number) - (b[i] as number);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/** The checks the schema cannot express, collected with their paths. */
export class Issues {
  readonly list: ShapeIssue[] = [];
  /** Date-times already normalised in this document. */
  readonly times = new Map<string, string | undefined>();

  add(segments: PathSegments, rule: string, message: string): void {
    this.list.push({ segments, rule, message });
  }

  /** Reports each repeat of an entry in `values` (compared after `key`). */
  repeats(values: readonly string[], segments: PathSegments, key: (value: string) => string): void {
    const seen = new Set<string>();
    values.forEach((value, index) => {
      const normal = key(value);
      if (seen.has(normal))
        this.add([...segments, index], 'unique', `${JSON.stringify(normal)} is listed twice`);
      seen.add(normal);
    });
  }
}

const lower = (value: string) => value.toLowerCase();

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether the date part of a date-time (the schema checked its form) is a day the calendar has: not 2024-02-30. */
function onCalendar(value: string): boolean {
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number));
}

/** A date-time in UTC, to the second or the millisecond, with a month, hour, minute and second that exist. */
const UTC_SECOND = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{3})?Z$/;

/**
 * A date-time in UTC with milliseconds, or undefined for a day the calendar does not have, which
 * `Date.parse` would silently move into the next month. Documents repeat timestamps: each is worked out once.
 */
export function utc(value: string, cache = new Map<string, string | undefined>()): string | undefined {
  // Already UTC, to the second or the millisecond (what the API and `toISOString` write): only the day is
  // checked, and the text is the normal form as it stands (with `.000` added to a whole second).
  if (UTC_SECOND.test(value)) {
    if (!onCalendar(value)) return undefined;
    return value.length === 20 ? `${value.slice(0, 19)}.000Z` : value;
  }
  if (cache.has(value)) return cache.get(value);
  const normal = onCalendar(value) ? new Date(Date.parse(value)).toISOString() : undefined;
  cache.set(value, normal);
  return normal;
}

/** Normalises a date-time in place of the issue the calendar raises; `fallback` stands in for a bad one. */
function dateTime(value: string, segments: PathSegments, issues: Issues): string {
  const normal = utc(value, issues.times);
  if (normal !== undefined) return normal;
  issues.add(segments, 'date-time', `${JSON.stringify(value)} is not a day of the calendar`);
  return value;
}

function nullableDateTime(value: string | null | undefined, segments: PathSegments, issues: Issues) {
  return value === undefined || value === null ? null : dateTime(value, segments, issues);
}

/** Builds a record from entries, defining even keys such as `__proto__` as own properties (documents are untrusted). */
function mapValues<T, U>(
  record: Record<string, T>,
  convert: (value: T, key: string) => U,
): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, convert(value, key)]));
}

function priceMap(map: Input.PriceMap): PriceMap {
  return mapValues(map, (entry) => ({ amount: entry.amount, includes_tax: entry.includes_tax ?? false }));
}

function pricing(price: Input.ProductPrice, segments: PathSegments, issues: Issues): ProductPricing {
  const { tiers = {}, ...currencies } = price;
  const starts = new Map<number, string>();
  for (const [name, tier] of Object.entries(tiers)) {
    const clash = starts.get(tier.minimum_quantity);
    if (clash !== undefined) {
      issues.add(
        [...segments, 'tiers', name, 'minimum_quantity'],
        'tier_conflict',
        `conflicts with tier ${JSON.stringify(clash)}: both start at ${tier.minimum_quantity}`,
      );
    } else starts.set(tier.minimum_quantity, name);
  }
  return {
    currencies: priceMap(currencies as Input.PriceMap),
    tiers: mapValues(tiers, (tier) => ({
      minimum_quantity: tier.minimum_quantity,
      price: priceMap(tier.price),
    })),
  };
}

function components(map: Record<string, Input.Component>, segments: PathSegments, issues: Issues) {
  return mapValues(map, (component, key): Component => {
    const min = component.min ?? null;
    const max = component.max ?? null;
    if (min !== null && max !== null && min > max) {
      issues.add([...segments, key, 'max'], 'range', `must be at least min (${min})`);
    }
    return {
      name: component.name,
      min,
      max,
      sort_order: component.sort_order ?? null,
      options: component.options.map((option) => ({
        id: lower(option.id),
        type: option.type ?? 'product',
        quantity: option.quantity,
        sort_order: option.sort_order ?? null,
        default: option.default ?? null,
      })),
    };
  });
}

function customInputs(map: Record<string, Input.CustomInput>): Record<string, CustomInput> {
  return mapValues(map, (input) => ({
    name: input.name,
    validation_rules: (input.validation_rules ?? []).map((rule) => ({
      type: rule.type ?? 'string',
      options: { max_length: rule.options.max_length },
    })),
    required: input.required ?? null,
  }));
}

function locales(map: Record<string, Input.LocaleText>): Record<string, LocaleText> {
  return mapValues(map, (text) => ({
    ...(text.name === undefined ? {} : { name: text.name }),
    ...(text.description === undefined ? {} : { description: text.description }),
  }));
}

function attributes(raw: Input.Attributes, segments: PathSegments, issues: Issues): ProductAttributesInput {
  const at = (field: string): PathSegments => [...segments, field];
  const tags = raw.tags ?? [];
  issues.repeats(tags, at('tags'), lower);
  const createdAt =
    raw.created_at === undefined ? undefined : dateTime(raw.created_at, at('created_at'), issues);
  const updatedAt =
    raw.updated_at === undefined ? undefined : dateTime(raw.updated_at, at('updated_at'), issues);
  if (createdAt !== undefined && updatedAt !== undefined && updatedAt < createdAt) {
    issues.add(at('updated_at'), 'range', 'must not be earlier than created_at');
  }
  const result: ProductAttributesInput = {
    name: raw.name,
    ...(raw.sku === undefined ? {} : { sku: raw.sku }),
    status: raw.status,
    tags: tags.map(lower),
    price_modifiers: raw.price_modifiers ?? [],
    external_ref: raw.external_ref ?? null,
  };
  if (raw.description !== undefined) result.description = raw.description;
  if (raw.slug !== undefined) result.slug = raw.slug;
  if (raw.commodity_type !== undefined) result.commodity_type = raw.commodity_type;
  if (raw.base_product !== undefined) result.base_product = raw.base_product;
  if (raw.base_product_id !== undefined) result.base_product_id = lower(raw.base_product_id);
  if (raw.curated_product !== undefined) result.curated_product = raw.curated_product;
  if (raw.upc_ean !== undefined) result.upc_ean = raw.upc_ean;
  if (raw.manufacturer_part_num !== undefined) result.manufacturer_part_num = raw.manufacturer_part_num;
  if (raw.product_types !== undefined) result.product_types = raw.product_types;
  if (raw.price !== undefined) result.price = pricing(raw.price, at('price'), issues);
  if (raw.extensions !== undefined)
    result.extensions = mapValues(raw.extensions, (values) => ({ ...values }));
  if (raw.components !== undefined) result.components = components(raw.components, at('components'), issues);
  if (raw.custom_inputs !== undefined) result.custom_inputs = customInputs(raw.custom_inputs);
  if (raw.published_at !== undefined) {
    result.published_at = nullableDateTime(raw.published_at, at('published_at'), issues);
  }
  if (createdAt !== undefined) result.created_at = createdAt;
  if (updatedAt !== undefined) result.updated_at = updatedAt;
  if (raw.locales !== undefined) result.locales = locales(raw.locales);
  return result;
}

function variations(list: Input.Variation[], segments: PathSegments, issues: Issues): Variation[] {
  const ids = new Set<string>();
  return list.map((variation, index) => {
    const id = lower(variation.id);
    if (ids.has(id)) issues.add([...segments, index, 'id'], 'unique', `variation id ${id} is used twice`);
    ids.add(id);
    const optionIds = new Set<string>();
    return {
      id,
      name: variation.name,
      sort_order: variation.sort_order ?? null,
      options: variation.options.map((option, optionIndex) => {
        const optionId = lower(option.id);
        if (optionIds.has(optionId)) {
          issues.add(
            [...segments, index, 'options', optionIndex, 'id'],
            'unique',
            `option id ${optionId} is used twice in this variation`,
          );
        }
        optionIds.add(optionId);
        return {
          id: optionId,
          name: option.name,
          sort_order: option.sort_order ?? null,
          description: option.description ?? '',
        };
      }),
    };
  });
}

/** A product's normalised form, with the issues its own values raise (dates, tiers, repeats in its lists). */
export function normaliseProduct(raw: Input.Product, index: number, issues: Issues): ProductInput {
  const path: PathSegments = ['products', index];
  const nodeIds = raw.node_ids ?? [];
  issues.repeats(nodeIds, [...path, 'node_ids'], lower);
  return {
    id: lower(raw.id),
    attributes: attributes(raw.attributes, [...path, 'attributes'], issues),
    node_ids: nodeIds.map(lower),
    files: (raw.files ?? []).map((file, fileIndex) => ({
      id: lower(file.id),
      created_at: dateTime(file.created_at, [...path, 'files', fileIndex, 'created_at'], issues),
    })),
    ...(raw.main_image === undefined ? {} : { main_image: lower(raw.main_image) }),
    variations: variations(raw.variations ?? [], [...path, 'variations'], issues),
    variation_options: Object.fromEntries(
      Object.entries(raw.variation_options ?? {}).map(([variation, option]) => [
        lower(variation),
        lower(option),
      ]),
    ),
    ...(raw.pricebook_id == null ? {} : { pricebook_id: raw.pricebook_id }),
    ...(raw.sale === undefined
      ? {}
      : {
          sale: {
            id: raw.sale.id,
            expires: nullableDateTime(raw.sale.expires, [...path, 'sale', 'expires'], issues),
            price: priceMap(raw.sale.price),
          },
        }),
  };
}

function rules(list: Input.Rule[], valid: (index: number) => boolean, issues: Issues): ReleaseRuleInput[] {
  const ids = new Set<string>();
  const result: ReleaseRuleInput[] = [];
  list.forEach((rule, index) => {
    if (!valid(index)) return;
    const path: PathSegments = ['rules', index];
    const id = rule.id === undefined ? undefined : lower(rule.id);
    if (id !== undefined) {
      if (ids.has(id)) issues.add([...path, 'id'], 'unique', `rule id ${id} is used twice`);
      ids.add(id);
    }
    const tags = rule.tags ?? [];
    issues.repeats(tags, [...path, 'tags'], lower);
    const schedules = (rule.schedules ?? []).map((schedule, scheduleIndex) => {
      const at = [...path, 'schedules', scheduleIndex];
      const from = nullableDateTime(schedule.valid_from, [...at, 'valid_from'], issues);
      const to = nullableDateTime(schedule.valid_to, [...at, 'valid_to'], issues);
      if (from !== null && to !== null && from >= to) {
        issues.add([...at, 'valid_to'], 'range', 'must be later than valid_from');
      }
      return { valid_from: from, valid_to: to };
    });
    result.push({
      ...(id === undefined ? {} : { id }),
      name: rule.name,
      channels: rule.channels ?? [],
      tags: tags.map(lower),
      schedules,
    });
  });
  return result;
}

function nodes(list: Input.Node[], valid: (index: number) => boolean, issues: Issues): CatalogNode[] {
  const result: CatalogNode[] = [];
  const indexes: number[] = [];
  const ids = new Set<string>();
  list.forEach((node, index) => {
    if (!valid(index)) return;
    const id = lower(node.id);
    if (ids.has(id)) {
      issues.add(['nodes', index, 'id'], 'unique', `node id ${id} is used twice`);
      return;
    }
    ids.add(id);
    result.push({
      id,
      name: node.name,
      parent_id: node.parent_id ? lower(node.parent_id) : null,
      ...(node.slug === undefined ? {} : { slug: node.slug }),
      description: node.description ?? '',
      ...(node.created_at === undefined
        ? {}
        : { created_at: dateTime(node.created_at, ['nodes', index, 'created_at'], issues) }),
      ...(node.updated_at === undefined
        ? {}
        : { updated_at: dateTime(node.updated_at, ['nodes', index, 'updated_at'], issues) }),
    });
    indexes.push(index);
  });
  for (const problem of resolveNodePaths(result).problems) {
    const index = indexes[problem.index] ?? problem.index;
    issues.add(
      problem.rule === 'reference' ? ['nodes', index, 'parent_id'] : ['nodes', index],
      problem.rule,
      problem.message,
    );
  }
  return result;
}

/** The document's files, normalised: ids unique, and each `href` a URL (the schema checked its scheme and host). */
function files(list: Input.File[], valid: (index: number) => boolean, issues: Issues): CatalogFile[] {
  const result: CatalogFile[] = [];
  const ids = new Map<string, number>();
  list.forEach((file, index) => {
    if (!valid(index)) return;
    const id = lower(file.id);
    const earlier = ids.get(id);
    if (earlier !== undefined) {
      issues.add(['files', index, 'id'], 'unique', `file id ${id} is also used by files[${earlier}]`);
    } else ids.set(id, index);
    if (!URL.canParse(file.link.href)) {
      issues.add(['files', index, 'link', 'href'], 'href', 'is not a URL');
    }
    const meta = file.meta;
    const createdAt = meta?.timestamps?.created_at;
    result.push({
      id,
      file_name: file.file_name,
      mime_type: file.mime_type,
      file_size: file.file_size,
      link: { href: file.link.href },
      ...(meta === undefined
        ? {}
        : {
            meta: {
              ...(meta.dimensions === undefined
                ? {}
                : { dimensions: { width: meta.dimensions.width, height: meta.dimensions.height } }),
              ...(createdAt === undefined
                ? {}
                : {
                    timestamps: {
                      created_at: dateTime(
                        createdAt,
                        ['files', index, 'meta', 'timestamps', 'created_at'],
                        issues,
                      ),
                    },
                  }),
            },
          }),
    });
  });
  return result;
}

function currencies(
  map: Record<string, Input.CurrencySettings>,
  issues: Issues,
): Record<string, CurrencySettings> {
  const result = mapValues(map, (settings) => ({
    format: settings.format,
    decimal_point: settings.decimal_point,
    thousand_separator: settings.thousand_separator,
    decimal_places: settings.decimal_places,
    default: settings.default ?? false,
  }));
  const defaults = Object.values(result).filter((settings) => settings.default).length;
  if (defaults !== 1) {
    issues.add(
      ['currencies'],
      'default_currency',
      `exactly one currency must have "default": true, found ${defaults}`,
    );
  }
  return result;
}

/** What the checks of a child against its parent read of it. */
export interface ChildDraft {
  index: number;
  product: {
    id: string;
    attributes: Pick<ProductAttributesInput, 'base_product_id'>;
    variation_options: Record<string, string>;
  };
}

/** A product that passed its own checks, with its index in the document. */
export interface ProductDraft {
  index: number;
  product: ProductInput;
}

/** The ids (lower-case) and names a product may refer to besides other products. */
export interface DeclaredLists {
  nodes: ReadonlySet<string>;
  files: ReadonlySet<string>;
  modifiers: ReadonlySet<string>;
}

/**
 * The rules a product must keep that need no other product: how its product types, base_product,
 * variations, variation options, commodity type and components fit whether it names a parent.
 */
export function productRules({ product, index }: ProductDraft, issues: Issues): void {
  const path: PathSegments = ['products', index];
  const attributes = product.attributes;
  const types = attributes.product_types;
  if (attributes.base_product_id !== undefined) {
    if (types !== undefined && !types.includes('child')) {
      issues.add(
        [...path, 'attributes', 'product_types'],
        'product_types',
        'a product with base_product_id must be a child',
      );
    }
    if (attributes.base_product === true) {
      issues.add([...path, 'attributes', 'base_product'], 'base_product', 'a child cannot be a base product');
    }
    if (product.variations.length > 0) {
      issues.add(
        [...path, 'variations'],
        'variations',
        'only parent products have variations; children pick variation_options',
      );
    }
  } else {
    if (types?.includes('child')) {
      issues.add(
        [...path, 'attributes', 'product_types'],
        'product_types',
        'a child must name its parent in base_product_id',
      );
    }
    if (attributes.commodity_type === undefined) {
      issues.add(
        [...path, 'attributes', 'commodity_type'],
        'required',
        'is required: physical or digital (children inherit it)',
      );
    }
    if (Object.keys(product.variation_options).length > 0) {
      issues.add(
        [...path, 'variation_options'],
        'variations',
        'only children (with base_product_id) pick variation options',
      );
    }
  }
  const bundle = attributes.components !== undefined && Object.keys(attributes.components).length > 0;
  if (types?.includes('bundle') && !bundle) {
    issues.add([...path, 'attributes', 'components'], 'required', 'a bundle must have components');
  }
}

/** What the reference checks read of a product. */
export interface ReferencingDraft {
  index: number;
  product: Pick<ProductInput, 'node_ids' | 'main_image' | 'files'> & {
    attributes: Pick<ProductAttributesInput, 'price_modifiers'>;
  };
}

/** What the component checks read of a bundle. */
export interface BundleDraft {
  index: number;
  product: Pick<ProductInput, 'id'> & { attributes: Pick<ProductAttributesInput, 'components'> };
}

/** A product's references to the document's nodes, files and price modifiers. */
export function listReferences(
  { product, index }: ReferencingDraft,
  declared: DeclaredLists,
  issues: Issues,
): void {
  const path: PathSegments = ['products', index];
  product.node_ids.forEach((nodeId, nodeIndex) => {
    if (!declared.nodes.has(nodeId)) {
      issues.add([...path, 'node_ids', nodeIndex], 'reference', `${nodeId} is not a node of this release`);
    }
  });
  if (product.main_image !== undefined && !declared.files.has(product.main_image)) {
    issues.add(
      [...path, 'main_image'],
      'reference',
      `${product.main_image} is not one of the release's files`,
    );
  }
  product.files.forEach((file, fileIndex) => {
    if (!declared.files.has(file.id)) {
      issues.add(
        [...path, 'files', fileIndex, 'id'],
        'reference',
        `${file.id} is not one of the release's files`,
      );
    }
  });
  product.attributes.price_modifiers?.forEach((name, modifierIndex) => {
    if (!declared.modifiers.has(name)) {
      issues.add(
        [...path, 'attributes', 'price_modifiers', modifierIndex],
        'reference',
        `${JSON.stringify(name)} is not one of the release's price_modifiers`,
      );
    }
  });
}

/** A bundle's references to its component products; `declared` says whether the document lists a product id. */
export function componentReferences(
  { product, index }: BundleDraft,
  declared: (productId: string) => boolean,
  issues: Issues,
): void {
  for (const [key, component] of Object.entries(product.attributes.components ?? {})) {
    component.options.forEach((option, optionIndex) => {
      const optionPath = ['products', index, 'attributes', 'components', key, 'options', optionIndex, 'id'];
      if (option.id === product.id) issues.add(optionPath, 'reference', 'a bundle cannot contain itself');
      else if (!declared(option.id))
        issues.add(optionPath, 'reference', `${option.id} is not a product of this release`);
    });
  }
}

/**
 * A child's parent: `parent` is the first valid product with its id (index, and whether it names a parent
 * itself), `declared` whether the document lists the id at all. True when the child joins its parent's
 * family (which `checkFamily` then checks); the reason otherwise is an issue, unless the parent has errors
 * of its own (reported there, not again here).
 */
export function parentReference(
  { product, index }: ChildDraft,
  parent: { index: number; child: boolean } | undefined,
  declared: (productId: string) => boolean,
  issues: Issues,
): boolean {
  const parentId = product.attributes.base_product_id;
  if (parentId === undefined) return false;
  const parentPath = ['products', index, 'attributes', 'base_product_id'];
  if (parentId === product.id) issues.add(parentPath, 'reference', 'a product cannot be its own parent');
  else if (!parent) {
    if (!declared(parentId))
      issues.add(parentPath, 'reference', `${parentId} is not a product of this release`);
  } else if (parent.child) {
    issues.add(
      parentPath,
      'reference',
      `products[${parent.index}] is itself a child; children cannot have children`,
    );
  } else return true;
  return false;
}

/** What a family check reads of a parent. */
export interface FamilyParent {
  index: number;
  product: {
    attributes: Pick<ProductAttributesInput, 'base_product' | 'product_types'>;
    variations: Variation[];
  };
}

/** What a family check reads of a child. */
export interface FamilyChild {
  index: number;
  product: Pick<ProductInput, 'variation_options'>;
}

/**
 * A parent and its children agree: the parent may be one, and each child picks a distinct combination of
 * its options. `children` (at least one, in document order) is read once, so it may make each child as it
 * goes: a family of a million children need not be held.
 */
export function checkFamily(parent: FamilyParent, children: Iterable<FamilyChild>, issues: Issues): void {
  const parentTypes = parent.product.attributes.product_types;
  if (parentTypes !== undefined && !parentTypes.includes('parent')) {
    issues.add(
      ['products', parent.index, 'attributes', 'product_types'],
      'product_types',
      'a product with children must be a parent',
    );
  }
  const variationsOfParent = parent.product.variations;
  const combinations = new Map<string, number>();
  let first: number | undefined;
  for (const { product, index } of children) {
    first ??= index;
    const path: PathSegments = ['products', index, 'variation_options'];
    let complete = variationsOfParent.length > 0;
    for (const [variationId, optionId] of Object.entries(product.variation_options)) {
      const variation = variationsOfParent.find((candidate) => candidate.id === variationId);
      if (!variation) {
        issues.add(
          [...path, variationId],
          'reference',
          `not a variation of the parent products[${parent.index}]`,
        );
        complete = false;
      } else if (!variation.options.some((option) => option.id === optionId)) {
        issues.add(
          [...path, variationId],
          'reference',
          `${optionId} is not an option of variation ${variation.name}`,
        );
        complete = false;
      }
    }
    if (
      !complete ||
      variationsOfParent.some((variation) => product.variation_options[variation.id] === undefined)
    )
      continue;
    const key = variationsOfParent.map((variation) => product.variation_options[variation.id]).join('/');
    const other = combinations.get(key);
    if (other !== undefined) {
      issues.add(path, 'unique', `products[${other}] already has this combination of variation options`);
    } else combinations.set(key, index);
  }
  if (parent.product.attributes.base_product === false) {
    issues.add(
      ['products', parent.index, 'attributes', 'base_product'],
      'base_product',
      `must not be false: products[${first}] names this product as its base_product_id`,
    );
  }
}

/** The entities (a product, a node, the catalog...) that broke a schema rule: the semantic checks skip them. */
export function brokenEntities(shapeIssues: readonly ShapeIssue[]): Set<string> {
  const broken = new Set<string>();
  for (const { segments } of shapeIssues) {
    const [top, entry] = segments;
    if (top === undefined) continue;
    broken.add(
      entry === undefined || top === 'catalog' || top === 'currencies' ? String(top) : `${top}/${entry}`,
    );
  }
  return broken;
}

/** A release document's members but its products, normalised. */
export type ReleaseHead = Omit<ReleaseDocument, 'products'>;

export type HeadValidation =
  | { ok: true; head: ReleaseHead }
  | { ok: false; issues: ValidationIssue[]; total: number };

/** Whether entry `index` of the document's `part` passed the schema (see `brokenEntities`). */
export function entryValid(broken: ReadonlySet<string>, part: string): (index: number | string) => boolean {
  return (index) => !broken.has(part) && !broken.has(`${part}/${index}`);
}

/**
 * The document's members but its products, normalised (defaults filled, ids lower-case, timestamps in UTC)
 * with the issues of the checks the schema cannot make, skipping the entries the schema broke
 * (`broken`); `catalog` is undefined when it is missing or broken.
 */
export function normaliseHead(
  input: Record<string, unknown>,
  broken: ReadonlySet<string>,
  issues: Issues,
): Omit<ReleaseHead, 'catalog'> & { catalog: ReleaseHead['catalog'] | undefined } {
  const whole = (part: string) => input[part] !== undefined && !broken.has(part);
  const valid = (part: string) => entryValid(broken, part);
  const raw = input as unknown as Input.ReleaseDocumentInput;
  return {
    catalog: whole('catalog')
      ? {
          ...(raw.catalog.id === undefined ? {} : { id: lower(raw.catalog.id) }),
          name: raw.catalog.name,
          description: raw.catalog.description ?? '',
          pricebook_id: raw.catalog.pricebook_id ?? null,
        }
      : undefined,
    ...(whole('currencies') && raw.currencies ? { currencies: currencies(raw.currencies, issues) } : {}),
    rules: Array.isArray(raw.rules) ? rules(raw.rules, valid('rules'), issues) : [],
    nodes: Array.isArray(raw.nodes) ? nodes(raw.nodes, valid('nodes'), issues) : [],
    price_modifiers: Object.fromEntries(
      Object.entries(isObject(raw.price_modifiers) ? raw.price_modifiers : {})
        .filter(([name]) => valid('price_modifiers')(name))
        .map(([name, modifier]): [string, PriceModifier] => [
          name,
          { modifier_type: modifier.modifier_type, currencies: priceMap(modifier.currencies) },
        ]),
    ),
    files: Array.isArray(raw.files) ? files(raw.files, valid('files'), issues) : [],
  };
}

/**
 * Validates what a release document holds besides its products (the shape by
 * `catalog/release.schema.json`, the rest here) and returns it normalised, or every issue in document
 * order (capped at MAX_VALIDATION_ISSUES; `total` counts them all). The products are the streamed
 * validation's (lib/catalog/validate-stream.ts): one at a time by `validateProduct`, then across each other.
 * `products` is given as an empty array, or as the value that is not an array, which the schema words.
 */
export function validateReleaseHead(input: unknown): HeadValidation {
  const shape = checkShape(input);
  if (!isObject(input)) return orderedIssues(input, shape, []);
  const issues = new Issues();
  const broken = brokenEntities(shape);
  const { catalog, ...rest } = normaliseHead(input, broken, issues);
  if (
    catalog !== undefined &&
    !broken.has('rules') &&
    !shape.some(({ segments }) => segments[0] === 'rules')
  ) {
    const bytes = documentEntryBytes({ catalog, rules: rest.rules });
    if (bytes > REGISTRY_ENTRY_MAX_BYTES) {
      issues.add(
        ['rules'],
        'registry_size',
        `the catalog's name and rules take ${bytes} bytes in the store's catalog registry, where a catalog has ${REGISTRY_ENTRY_MAX_BYTES}: fewer rules, channels, tags or schedules, or shorter names`,
      );
    }
  }
  if (shape.length > 0 || issues.list.length > 0 || catalog === undefined)
    return orderedIssues(input, shape, issues.list);
  return { ok: true, head: { catalog, ...rest } };
}

/** A product checked on its own: normalised, or its issues (paths as in the whole document). */
export type ProductValidation =
  | { ok: true; product: ProductInput }
  /** `product` when only rules the schema cannot express were broken: the checks across products still take it. */
  | { ok: false; issues: ValidationIssue[]; total: number; product?: ProductInput };

/**
 * The checks `products[index]` takes without the rest of the document: the schema, the per-product rules
 * (dates, prices, variations, components) and how its fields fit whether it names a parent. What needs
 * other products or the document's node, file and modifier lists (uniqueness, references, families) is
 * left to the caller. The same issues, at the same paths, as the whole document would give for that
 * product, so a streamed document can be validated one product at a time.
 */
export function validateProduct(raw: unknown, index: number): ProductValidation {
  // The product alone in the smallest valid document, so the schema checks it where it stands.
  const alone = { catalog: { name: 'product' }, products: [raw] };
  const shape = checkShape(alone);
  const issues = new Issues();
  let draft: ProductDraft | undefined;
  if (shape.length === 0) {
    draft = { index: 0, product: normaliseProduct(raw as Input.Product, 0, issues) };
    productRules(draft, issues);
  }
  if (draft && issues.list.length === 0) return { ok: true, product: draft.product };
  const failed = orderedIssues(alone, shape, issues.list);
  const at = (path: string) =>
    path.startsWith('products[0]') ? `products[${index}]${path.slice(11)}` : path;
  return {
    ok: false,
    issues: failed.issues.map((issue) => ({ ...issue, path: at(issue.path) })),
    total: failed.total,
    ...(draft ? { product: draft.product } : {}),
  };
}

/** The failed result: schema and semantic issues in document order, capped. */
export function orderedIssues(
  input: unknown,
  shape: ShapeIssue[],
  semantic: ShapeIssue[],
): { ok: false; issues: ValidationIssue[]; total: number } {
  // The schema may word one problem twice (a value breaking two keywords): the first says it.
  const seen = new Set<string>();
  const distinct = shape.filter((issue) => {
    const path = formatPath(issue.segments);
    if (seen.has(path)) return false;
    seen.add(path);
    return true;
  });
  const keyOrder = new WeakMap<object, Map<string, number>>();
  const ordered = [...distinct, ...semantic]
    .map((issue, position) => ({ issue, position, order: documentOrder(input, issue.segments, keyOrder) }))
    .sort((a, b) => compareOrder(a.order, b.order) || a.position - b.position)
    .map(({ issue }) => ({ path: formatPath(issue.segments), rule: issue.rule, message: issue.message }));
  return { ok: false, issues: ordered.slice(0, MAX_VALIDATION_ISSUES), total: ordered.length };
}
