import { isUuid } from '../ids';
import type { CurrencySettings } from '../store/store-repository';
import { resolveNodePaths } from './breadcrumbs';
import type {
  CatalogFile,
  CatalogNode,
  Component,
  ComponentOption,
  CustomInput,
  LocaleText,
  ModifierType,
  PriceMap,
  PriceModifier,
  PriceTier,
  ProductAttributesInput,
  ProductInput,
  ProductPricing,
  ProductType,
  ReleaseDocument,
  ReleaseRuleInput,
  Sale,
  Variation,
  VariationOption,
} from './types';

/** One problem in a release document: where (a JSON path such as `products[12].attributes.slug`), which rule, why. */
export interface ValidationIssue {
  path: string;
  rule: string;
  message: string;
}

/** At most this many issues are reported; `total` still counts all of them. */
export const MAX_VALIDATION_ISSUES = 100;
export const MAX_CUSTOM_INPUT_LENGTH = 255;
export const MAX_RULES = 100;
export const MAX_TAGS = 100;
const MAX_TEXT = 255;
const MAX_DESCRIPTION = 65536;

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

type Json = Record<string, unknown>;

const SLUG = /^[A-Za-z0-9._-]+$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
const LOCALE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;
const CURRENCY_CODE = /^[A-Z]{3}$/;
const ISO_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
const STATUSES = ['live', 'draft'] as const;
const COMMODITY_TYPES = ['physical', 'digital'] as const;
const PRODUCT_TYPES = ['standard', 'parent', 'child', 'bundle'] as const;
const MODIFIER_TYPES = ['price_increment', 'price_decrement', 'price_equals'] as const;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const TOP_LEVEL = new Set([
  'catalog',
  'currencies',
  'rules',
  'nodes',
  'price_modifiers',
  'files',
  'products',
]);
const PRODUCT_FIELDS = new Set([
  'id',
  'attributes',
  'node_ids',
  'files',
  'main_image',
  'variations',
  'variation_options',
  'sale',
]);
const ATTRIBUTE_FIELDS = new Set([
  'name',
  'description',
  'sku',
  'slug',
  'status',
  'commodity_type',
  'base_product',
  'base_product_id',
  'curated_product',
  'upc_ean',
  'manufacturer_part_num',
  'tags',
  'price_modifiers',
  'external_ref',
  'product_types',
  'price',
  'extensions',
  'components',
  'custom_inputs',
  'published_at',
  'created_at',
  'updated_at',
  'locales',
]);

/** `path.key`, or `path["odd key"]` for keys that are not plain names. */
export function childPath(path: string, key: string): string {
  if (NAME.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Sets an own property even for keys such as `__proto__` (documents are untrusted). */
function setKey<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Collects issues up to the cap while counting all of them. */
class Issues {
  readonly list: ValidationIssue[] = [];
  total = 0;

  add(path: string, rule: string, message: string): void {
    this.total += 1;
    if (this.list.length < MAX_VALIDATION_ISSUES) this.list.push({ path, rule, message });
  }

  /** Reports fields of `value` that are not in `allowed`. */
  unknownFields(value: Json, allowed: ReadonlySet<string>, path: string): void {
    for (const key of Object.keys(value)) {
      if (!allowed.has(key)) {
        this.add(
          childPath(path, key),
          'unknown_field',
          `is not a field here; allowed: ${[...allowed].join(', ')}`,
        );
      }
    }
  }

  object(value: unknown, path: string): Json | undefined {
    if (isObject(value)) return value;
    this.add(path, 'type', `must be an object, got ${describe(value)}`);
    return undefined;
  }

  array(value: unknown, path: string): unknown[] | undefined {
    if (Array.isArray(value)) return value;
    this.add(path, 'type', `must be an array, got ${describe(value)}`);
    return undefined;
  }

  /** A string of 1..max characters (0..max when `allowEmpty`). */
  text(value: unknown, path: string, max = MAX_TEXT, allowEmpty = false): string | undefined {
    if (typeof value !== 'string') {
      this.add(path, 'type', `must be a string, got ${describe(value)}`);
      return undefined;
    }
    if (!allowEmpty && value.trim() === '') {
      this.add(path, 'required', 'must not be empty');
      return undefined;
    }
    if (value.length > max) {
      this.add(path, 'max_length', `must be at most ${max} characters, got ${value.length}`);
      return undefined;
    }
    return value;
  }

  uuid(value: unknown, path: string): string | undefined {
    if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
    this.add(
      path,
      'uuid',
      `must be a UUID, got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 64)) : describe(value)}`,
    );
    return undefined;
  }

  integer(value: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.add(
        path,
        'integer',
        `must be an integer, got ${typeof value === 'number' ? value : describe(value)}`,
      );
      return undefined;
    }
    if (value < min || value > max) {
      this.add(path, 'range', `must be from ${min} to ${max}, got ${value}`);
      return undefined;
    }
    return value;
  }

  nullableInteger(value: unknown, path: string, min: number): number | null | undefined {
    if (value === undefined || value === null) return null;
    return this.integer(value, path, min);
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (typeof value === 'boolean') return value;
    this.add(path, 'type', `must be a boolean, got ${describe(value)}`);
    return undefined;
  }

  nullableBoolean(value: unknown, path: string): boolean | null | undefined {
    if (value === undefined || value === null) return null;
    return this.boolean(value, path);
  }

  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    this.add(path, 'enum', `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value) ?? 'nothing'}`);
    return undefined;
  }

  /** An ISO 8601 date-time with a zone, normalised to UTC with milliseconds. */
  dateTime(value: unknown, path: string): string | undefined {
    if (typeof value === 'string' && DATE_TIME.test(value)) {
      const time = Date.parse(value);
      if (!Number.isNaN(time)) return new Date(time).toISOString();
    }
    this.add(path, 'date-time', 'must be an ISO 8601 date-time with a time zone, e.g. 2024-05-01T12:00:00Z');
    return undefined;
  }

  /** An array of strings checked by `item`; duplicates are an issue. */
  stringList(
    value: unknown,
    path: string,
    item: (entry: unknown, entryPath: string) => string | undefined,
  ): string[] | undefined {
    if (value === undefined) return [];
    const list = this.array(value, path);
    if (!list) return undefined;
    const result: string[] = [];
    const seen = new Set<string>();
    list.forEach((entry, index) => {
      const checked = item(entry, `${path}[${index}]`);
      if (checked === undefined) return;
      if (seen.has(checked)) {
        this.add(`${path}[${index}]`, 'unique', `${JSON.stringify(checked)} is listed twice`);
        return;
      }
      seen.add(checked);
      result.push(checked);
    });
    return result;
  }

  /** A price map: ISO 4217 codes to `{amount, includes_tax}`. `extra` keys (e.g. `tiers`) are skipped. */
  priceMap(value: unknown, path: string, extra: ReadonlySet<string> = new Set()): PriceMap | undefined {
    const map = this.object(value, path);
    if (!map) return undefined;
    const result: PriceMap = {};
    let ok = true;
    for (const [code, entry] of Object.entries(map)) {
      if (extra.has(code)) continue;
      const entryPath = childPath(path, code);
      if (!CURRENCY_CODE.test(code) || !ISO_CURRENCIES.has(code)) {
        this.add(entryPath, 'currency', `${JSON.stringify(code)} is not an ISO 4217 currency code`);
        ok = false;
        continue;
      }
      const price = this.object(entry, entryPath);
      if (!price) {
        ok = false;
        continue;
      }
      this.unknownFields(price, new Set(['amount', 'includes_tax']), entryPath);
      const amount = this.integer(price.amount, `${entryPath}.amount`, 0);
      const includesTax =
        price.includes_tax === undefined
          ? false
          : this.boolean(price.includes_tax, `${entryPath}.includes_tax`);
      if (amount === undefined || includesTax === undefined) {
        ok = false;
        continue;
      }
      setKey(result, code, { amount, includes_tax: includesTax });
    }
    return ok ? result : undefined;
  }
}

function validateCatalog(value: unknown, issues: Issues): ReleaseDocument['catalog'] | undefined {
  if (value === undefined) {
    issues.add('catalog', 'required', 'is required: {"name": "..."}');
    return undefined;
  }
  const catalog = issues.object(value, 'catalog');
  if (!catalog) return undefined;
  issues.unknownFields(catalog, new Set(['id', 'name', 'description', 'pricebook_id']), 'catalog');
  const id = catalog.id === undefined ? undefined : issues.uuid(catalog.id, 'catalog.id');
  const name = issues.text(catalog.name, 'catalog.name');
  const description =
    catalog.description === undefined
      ? ''
      : issues.text(catalog.description, 'catalog.description', MAX_DESCRIPTION, true);
  const pricebookId =
    catalog.pricebook_id === undefined || catalog.pricebook_id === null
      ? null
      : issues.text(catalog.pricebook_id, 'catalog.pricebook_id');
  if (name === undefined || description === undefined || pricebookId === undefined) return undefined;
  if (catalog.id !== undefined && id === undefined) return undefined;
  return { ...(id === undefined ? {} : { id }), name, description, pricebook_id: pricebookId };
}

function validateCurrencies(value: unknown, issues: Issues): Record<string, CurrencySettings> | undefined {
  const map = issues.object(value, 'currencies');
  if (!map) return undefined;
  const result: Record<string, CurrencySettings> = {};
  const fields = new Set(['format', 'decimal_point', 'thousand_separator', 'decimal_places', 'default']);
  let defaults = 0;
  for (const [code, entry] of Object.entries(map)) {
    const path = childPath('currencies', code);
    if (!CURRENCY_CODE.test(code) || !ISO_CURRENCIES.has(code)) {
      issues.add(path, 'currency', `${JSON.stringify(code)} is not an ISO 4217 currency code`);
      continue;
    }
    const settings = issues.object(entry, path);
    if (!settings) continue;
    issues.unknownFields(settings, fields, path);
    const format = issues.text(settings.format, `${path}.format`, 64);
    if (format !== undefined && !format.includes('{price}')) {
      issues.add(`${path}.format`, 'format', 'must contain {price}, e.g. "${price}"');
    }
    const decimalPoint = issues.text(settings.decimal_point, `${path}.decimal_point`, 8, true);
    const thousandSeparator = issues.text(settings.thousand_separator, `${path}.thousand_separator`, 8, true);
    const decimalPlaces = issues.integer(settings.decimal_places, `${path}.decimal_places`, 0, 6);
    const isDefault =
      settings.default === undefined ? false : issues.boolean(settings.default, `${path}.default`);
    if (isDefault) defaults += 1;
    if (
      format === undefined ||
      decimalPoint === undefined ||
      thousandSeparator === undefined ||
      decimalPlaces === undefined ||
      isDefault === undefined
    ) {
      continue;
    }
    setKey(result, code, {
      format,
      decimal_point: decimalPoint,
      thousand_separator: thousandSeparator,
      decimal_places: decimalPlaces,
      default: isDefault,
    });
  }
  if (Object.keys(map).length === 0) issues.add('currencies', 'required', 'must hold at least one currency');
  else if (defaults !== 1) {
    issues.add(
      'currencies',
      'default_currency',
      `exactly one currency must have "default": true, found ${defaults}`,
    );
  }
  return result;
}

function validateRules(value: unknown, issues: Issues): ReleaseRuleInput[] {
  if (value === undefined) return [];
  const list = issues.array(value, 'rules');
  if (!list) return [];
  if (list.length > MAX_RULES)
    issues.add('rules', 'max_items', `at most ${MAX_RULES} rules, got ${list.length}`);
  const ids = new Set<string>();
  const rules: ReleaseRuleInput[] = [];
  list.slice(0, MAX_RULES).forEach((entry, index) => {
    const path = `rules[${index}]`;
    const rule = issues.object(entry, path);
    if (!rule) return;
    issues.unknownFields(rule, new Set(['id', 'name', 'channels', 'tags', 'schedules']), path);
    const id = rule.id === undefined ? undefined : issues.uuid(rule.id, `${path}.id`);
    if (id !== undefined) {
      if (ids.has(id)) issues.add(`${path}.id`, 'unique', `rule id ${id} is used twice`);
      ids.add(id);
    }
    const name = issues.text(rule.name, `${path}.name`);
    const channels = issues.stringList(rule.channels, `${path}.channels`, (item, itemPath) =>
      issues.text(item, itemPath),
    );
    const tags = issues.stringList(rule.tags, `${path}.tags`, (item, itemPath) =>
      issues.text(item, itemPath)?.toLowerCase(),
    );
    const schedules: ReleaseRuleInput['schedules'] = [];
    const rawSchedules =
      rule.schedules === undefined ? [] : issues.array(rule.schedules, `${path}.schedules`);
    rawSchedules?.forEach((rawSchedule, scheduleIndex) => {
      const schedulePath = `${path}.schedules[${scheduleIndex}]`;
      const schedule = issues.object(rawSchedule, schedulePath);
      if (!schedule) return;
      issues.unknownFields(schedule, new Set(['valid_from', 'valid_to']), schedulePath);
      const from =
        schedule.valid_from === undefined || schedule.valid_from === null
          ? null
          : issues.dateTime(schedule.valid_from, `${schedulePath}.valid_from`);
      const to =
        schedule.valid_to === undefined || schedule.valid_to === null
          ? null
          : issues.dateTime(schedule.valid_to, `${schedulePath}.valid_to`);
      if (from === undefined || to === undefined) return;
      if (from !== null && to !== null && from >= to) {
        issues.add(`${schedulePath}.valid_to`, 'range', 'must be later than valid_from');
        return;
      }
      schedules.push({ valid_from: from, valid_to: to });
    });
    if (name === undefined || channels === undefined || tags === undefined) return;
    rules.push({ ...(id === undefined ? {} : { id }), name, channels, tags, schedules });
  });
  return rules;
}

function validateNodes(value: unknown, issues: Issues): CatalogNode[] {
  if (value === undefined) return [];
  const list = issues.array(value, 'nodes');
  if (!list) return [];
  const nodes: CatalogNode[] = [];
  const indexes: number[] = [];
  const ids = new Set<string>();
  list.forEach((entry, index) => {
    const path = `nodes[${index}]`;
    const node = issues.object(entry, path);
    if (!node) return;
    issues.unknownFields(node, new Set(['id', 'name', 'parent_id']), path);
    const id = issues.uuid(node.id, `${path}.id`);
    const name = issues.text(node.name, `${path}.name`);
    const parentId =
      node.parent_id === undefined || node.parent_id === null
        ? null
        : issues.uuid(node.parent_id, `${path}.parent_id`);
    if (id === undefined || name === undefined || parentId === undefined) return;
    if (ids.has(id)) {
      issues.add(`${path}.id`, 'unique', `node id ${id} is used twice`);
      return;
    }
    ids.add(id);
    nodes.push({ id, name, parent_id: parentId });
    indexes.push(index);
  });
  const { problems } = resolveNodePaths(nodes);
  for (const problem of problems) {
    const index = indexes[problem.index] ?? problem.index;
    issues.add(
      problem.rule === 'reference' ? `nodes[${index}].parent_id` : `nodes[${index}]`,
      problem.rule,
      problem.message,
    );
  }
  return nodes;
}

function validatePriceModifiers(value: unknown, issues: Issues): Record<string, PriceModifier> {
  const result: Record<string, PriceModifier> = {};
  if (value === undefined) return result;
  const map = issues.object(value, 'price_modifiers');
  if (!map) return result;
  for (const [name, entry] of Object.entries(map)) {
    const path = childPath('price_modifiers', name);
    if (name.trim() === '' || name.length > MAX_TEXT) {
      issues.add(path, 'name', `modifier names must be 1 to ${MAX_TEXT} characters`);
      continue;
    }
    const modifier = issues.object(entry, path);
    if (!modifier) continue;
    issues.unknownFields(modifier, new Set(['modifier_type', 'currencies']), path);
    const type = issues.oneOf<ModifierType>(modifier.modifier_type, `${path}.modifier_type`, MODIFIER_TYPES);
    const currencies = issues.priceMap(modifier.currencies, `${path}.currencies`);
    if (currencies !== undefined && Object.keys(currencies).length === 0) {
      issues.add(`${path}.currencies`, 'required', 'must hold at least one currency');
      continue;
    }
    if (type === undefined || currencies === undefined) continue;
    setKey(result, name, { modifier_type: type, currencies });
  }
  return result;
}

function validatePricing(value: unknown, path: string, issues: Issues): ProductPricing | undefined {
  const currencies = issues.priceMap(value, path, new Set(['tiers']));
  if (currencies === undefined) return undefined;
  const tiers: Record<string, PriceTier> = {};
  const raw = (value as Json).tiers;
  if (raw === undefined) return { currencies, tiers };
  const map = issues.object(raw, `${path}.tiers`);
  if (!map) return undefined;
  const minimums = new Map<number, string>();
  let ok = true;
  for (const [name, entry] of Object.entries(map)) {
    const tierPath = childPath(`${path}.tiers`, name);
    const tier = issues.object(entry, tierPath);
    if (!tier) {
      ok = false;
      continue;
    }
    issues.unknownFields(tier, new Set(['minimum_quantity', 'price']), tierPath);
    if (tier.minimum_quantity === undefined) {
      issues.add(`${tierPath}.minimum_quantity`, 'required', 'is required (an integer, 1 or more)');
      ok = false;
      continue;
    }
    const minimum = issues.integer(tier.minimum_quantity, `${tierPath}.minimum_quantity`, 1);
    const price = issues.priceMap(tier.price, `${tierPath}.price`);
    if (minimum === undefined || price === undefined) {
      ok = false;
      continue;
    }
    const clash = minimums.get(minimum);
    if (clash !== undefined) {
      issues.add(
        `${tierPath}.minimum_quantity`,
        'tier_conflict',
        `conflicts with tier ${JSON.stringify(clash)}: both start at ${minimum}`,
      );
      ok = false;
      continue;
    }
    minimums.set(minimum, name);
    setKey(tiers, name, { minimum_quantity: minimum, price });
  }
  return ok ? { currencies, tiers } : undefined;
}

function validateComponents(
  value: unknown,
  path: string,
  issues: Issues,
): Record<string, Component> | undefined {
  const map = issues.object(value, path);
  if (!map) return undefined;
  const result: Record<string, Component> = {};
  for (const [key, entry] of Object.entries(map)) {
    const componentPath = childPath(path, key);
    const component = issues.object(entry, componentPath);
    if (!component) continue;
    issues.unknownFields(component, new Set(['name', 'min', 'max', 'sort_order', 'options']), componentPath);
    const name = issues.text(component.name, `${componentPath}.name`);
    const min = issues.nullableInteger(component.min, `${componentPath}.min`, 0);
    const max = issues.nullableInteger(component.max, `${componentPath}.max`, 0);
    if (typeof min === 'number' && typeof max === 'number' && min > max) {
      issues.add(`${componentPath}.max`, 'range', `must be at least min (${min})`);
    }
    const sortOrder = issues.nullableInteger(
      component.sort_order,
      `${componentPath}.sort_order`,
      Number.MIN_SAFE_INTEGER,
    );
    const rawOptions = issues.array(component.options, `${componentPath}.options`);
    const options: ComponentOption[] = [];
    if (rawOptions?.length === 0)
      issues.add(`${componentPath}.options`, 'required', 'must list at least one option');
    rawOptions?.forEach((rawOption, index) => {
      const optionPath = `${componentPath}.options[${index}]`;
      const option = issues.object(rawOption, optionPath);
      if (!option) return;
      issues.unknownFields(option, new Set(['id', 'type', 'quantity', 'sort_order', 'default']), optionPath);
      const id = issues.uuid(option.id, `${optionPath}.id`);
      const type =
        option.type === undefined ? 'product' : issues.oneOf(option.type, `${optionPath}.type`, ['product']);
      const quantity = issues.integer(option.quantity, `${optionPath}.quantity`, 1);
      const optionSort = issues.nullableInteger(
        option.sort_order,
        `${optionPath}.sort_order`,
        Number.MIN_SAFE_INTEGER,
      );
      const isDefault = issues.nullableBoolean(option.default, `${optionPath}.default`);
      if (
        id === undefined ||
        type === undefined ||
        quantity === undefined ||
        optionSort === undefined ||
        isDefault === undefined
      ) {
        return;
      }
      options.push({ id, type, quantity, sort_order: optionSort, default: isDefault });
    });
    if (name === undefined || min === undefined || max === undefined || sortOrder === undefined) continue;
    setKey(result, key, { name, min, max, sort_order: sortOrder, options });
  }
  return result;
}

function validateCustomInputs(
  value: unknown,
  path: string,
  issues: Issues,
): Record<string, CustomInput> | undefined {
  const map = issues.object(value, path);
  if (!map) return undefined;
  const result: Record<string, CustomInput> = {};
  for (const [key, entry] of Object.entries(map)) {
    const inputPath = childPath(path, key);
    const input = issues.object(entry, inputPath);
    if (!input) continue;
    issues.unknownFields(input, new Set(['name', 'validation_rules', 'required']), inputPath);
    const name = issues.text(input.name, `${inputPath}.name`);
    const required = issues.nullableBoolean(input.required, `${inputPath}.required`);
    const rules: CustomInput['validation_rules'] = [];
    const rawRules =
      input.validation_rules === undefined
        ? []
        : issues.array(input.validation_rules, `${inputPath}.validation_rules`);
    rawRules?.forEach((rawRule, index) => {
      const rulePath = `${inputPath}.validation_rules[${index}]`;
      const rule = issues.object(rawRule, rulePath);
      if (!rule) return;
      issues.unknownFields(rule, new Set(['type', 'options']), rulePath);
      const type =
        rule.type === undefined ? 'string' : issues.oneOf(rule.type, `${rulePath}.type`, ['string']);
      const options = issues.object(rule.options, `${rulePath}.options`);
      if (!options) return;
      issues.unknownFields(options, new Set(['max_length']), `${rulePath}.options`);
      let maxLength = issues.integer(options.max_length, `${rulePath}.options.max_length`, 1);
      if (maxLength !== undefined && maxLength > MAX_CUSTOM_INPUT_LENGTH) {
        issues.add(
          `${rulePath}.options.max_length`,
          'max_length',
          `must be at most ${MAX_CUSTOM_INPUT_LENGTH}, got ${maxLength}`,
        );
        maxLength = undefined;
      }
      if (type === undefined || maxLength === undefined) return;
      rules.push({ type, options: { max_length: maxLength } });
    });
    if (name === undefined || required === undefined) continue;
    setKey(result, key, { name, validation_rules: rules, required });
  }
  return result;
}

function validateExtensions(
  value: unknown,
  path: string,
  issues: Issues,
): Record<string, Record<string, unknown>> | undefined {
  const map = issues.object(value, path);
  if (!map) return undefined;
  const result: Record<string, Record<string, unknown>> = {};
  for (const [template, entry] of Object.entries(map)) {
    const templatePath = childPath(path, template);
    const attributes = issues.object(entry, templatePath);
    if (!attributes) continue;
    const copy: Record<string, unknown> = {};
    for (const [name, attribute] of Object.entries(attributes)) {
      const scalar = attribute === null || ['string', 'number', 'boolean'].includes(typeof attribute);
      if (!scalar || (typeof attribute === 'number' && !Number.isFinite(attribute))) {
        issues.add(childPath(templatePath, name), 'type', 'must be a string, number, boolean or null');
        continue;
      }
      setKey(copy, name, attribute);
    }
    setKey(result, template, copy);
  }
  return result;
}

function validateLocales(
  value: unknown,
  path: string,
  issues: Issues,
): Record<string, LocaleText> | undefined {
  const map = issues.object(value, path);
  if (!map) return undefined;
  const result: Record<string, LocaleText> = {};
  for (const [tag, entry] of Object.entries(map)) {
    const localePath = childPath(path, tag);
    if (!LOCALE_TAG.test(tag)) {
      issues.add(localePath, 'locale', `${JSON.stringify(tag)} is not a language tag such as fr or fr-FR`);
      continue;
    }
    const text = issues.object(entry, localePath);
    if (!text) continue;
    issues.unknownFields(text, new Set(['name', 'description']), localePath);
    const localized: LocaleText = {};
    if (text.name !== undefined) {
      const name = issues.text(text.name, `${localePath}.name`);
      if (name !== undefined) localized.name = name;
    }
    if (text.description !== undefined) {
      const description = issues.text(text.description, `${localePath}.description`, MAX_DESCRIPTION, true);
      if (description !== undefined) localized.description = description;
    }
    setKey(result, tag, localized);
  }
  return result;
}

function validateTag(value: unknown, path: string, issues: Issues): string | undefined {
  const tag = issues.text(value, path);
  if (tag === undefined) return undefined;
  if (tag.includes(',')) {
    issues.add(path, 'tags', 'tags must not contain commas');
    return undefined;
  }
  if (/[<>\p{Cc}]/u.test(tag)) {
    issues.add(path, 'tags', 'tags must not contain <, > or control characters');
    return undefined;
  }
  return tag.toLowerCase();
}

function validateAttributes(
  value: unknown,
  path: string,
  issues: Issues,
): ProductAttributesInput | undefined {
  const raw = issues.object(value, path);
  if (!raw) return undefined;
  issues.unknownFields(raw, ATTRIBUTE_FIELDS, path);
  const at = (field: string) => `${path}.${field}`;
  const optional = <T>(field: string, check: (entry: unknown, entryPath: string) => T | undefined) =>
    raw[field] === undefined ? undefined : check(raw[field], at(field));
  let ok = true;
  const need = <T>(checked: T | undefined, present: boolean): T | undefined => {
    if (present && checked === undefined) ok = false;
    return checked;
  };

  const name = need(issues.text(raw.name, at('name')), true);
  const sku = need(issues.text(raw.sku, at('sku')), true);
  const status = need(issues.oneOf(raw.status, at('status'), STATUSES), true);
  const description = need(
    optional('description', (entry, entryPath) => issues.text(entry, entryPath, MAX_DESCRIPTION, true)),
    raw.description !== undefined,
  );
  const slug = need(
    optional('slug', (entry, entryPath) => {
      const text = issues.text(entry, entryPath);
      if (text !== undefined && !SLUG.test(text)) {
        issues.add(entryPath, 'slug', 'may only contain A-Z, a-z, 0-9, hyphen, underscore and period');
        return undefined;
      }
      return text;
    }),
    raw.slug !== undefined,
  );
  const commodityType = need(
    optional('commodity_type', (entry, entryPath) => issues.oneOf(entry, entryPath, COMMODITY_TYPES)),
    raw.commodity_type !== undefined,
  );
  const baseProduct = need(
    optional('base_product', (entry, p) => issues.boolean(entry, p)),
    raw.base_product !== undefined,
  );
  const baseProductId = need(
    optional('base_product_id', (entry, p) => issues.uuid(entry, p)),
    raw.base_product_id !== undefined,
  );
  const curated = need(
    optional('curated_product', (entry, p) => issues.boolean(entry, p)),
    raw.curated_product !== undefined,
  );
  const upcEan = need(
    optional('upc_ean', (entry, p) => issues.text(entry, p)),
    raw.upc_ean !== undefined,
  );
  const mpn = need(
    optional('manufacturer_part_num', (entry, p) => issues.text(entry, p)),
    raw.manufacturer_part_num !== undefined,
  );
  const tags = need(
    issues.stringList(raw.tags, at('tags'), (entry, entryPath) => validateTag(entry, entryPath, issues)),
    true,
  );
  if (Array.isArray(raw.tags) && raw.tags.length > MAX_TAGS) {
    issues.add(at('tags'), 'max_items', `at most ${MAX_TAGS} tags, got ${raw.tags.length}`);
    ok = false;
  }
  const modifiers = need(
    issues.stringList(raw.price_modifiers, at('price_modifiers'), (entry, entryPath) =>
      issues.text(entry, entryPath),
    ),
    true,
  );
  const externalRef =
    raw.external_ref === undefined || raw.external_ref === null
      ? null
      : need(issues.text(raw.external_ref, at('external_ref')), true);
  const productTypes = need(
    raw.product_types === undefined
      ? undefined
      : issues.stringList(raw.product_types, at('product_types'), (entry, entryPath) =>
          issues.oneOf(entry, entryPath, PRODUCT_TYPES),
        ),
    raw.product_types !== undefined,
  );
  if (productTypes !== undefined && productTypes.length === 0) {
    issues.add(at('product_types'), 'required', 'must list at least one product type');
    ok = false;
  }
  const price = need(
    optional('price', (entry, p) => validatePricing(entry, p, issues)),
    raw.price !== undefined,
  );
  const extensions = need(
    optional('extensions', (entry, p) => validateExtensions(entry, p, issues)),
    raw.extensions !== undefined,
  );
  const components = need(
    optional('components', (entry, p) => validateComponents(entry, p, issues)),
    raw.components !== undefined,
  );
  const customInputs = need(
    optional('custom_inputs', (entry, p) => validateCustomInputs(entry, p, issues)),
    raw.custom_inputs !== undefined,
  );
  const publishedAt =
    raw.published_at === undefined || raw.published_at === null
      ? raw.published_at
      : need(issues.dateTime(raw.published_at, at('published_at')), true);
  const createdAt = need(
    optional('created_at', (entry, p) => issues.dateTime(entry, p)),
    raw.created_at !== undefined,
  );
  const updatedAt = need(
    optional('updated_at', (entry, p) => issues.dateTime(entry, p)),
    raw.updated_at !== undefined,
  );
  const locales = need(
    optional('locales', (entry, p) => validateLocales(entry, p, issues)),
    raw.locales !== undefined,
  );
  if (createdAt !== undefined && updatedAt !== undefined && updatedAt < createdAt) {
    issues.add(at('updated_at'), 'range', 'must not be earlier than created_at');
    ok = false;
  }

  if (
    !ok ||
    name === undefined ||
    sku === undefined ||
    status === undefined ||
    tags === undefined ||
    modifiers === undefined
  ) {
    return undefined;
  }
  const attributes: ProductAttributesInput = {
    name,
    sku,
    status,
    tags,
    price_modifiers: modifiers,
    external_ref: externalRef,
  };
  if (description !== undefined) attributes.description = description;
  if (slug !== undefined) attributes.slug = slug;
  if (commodityType !== undefined) attributes.commodity_type = commodityType;
  if (baseProduct !== undefined) attributes.base_product = baseProduct;
  if (baseProductId !== undefined) attributes.base_product_id = baseProductId;
  if (curated !== undefined) attributes.curated_product = curated;
  if (upcEan !== undefined) attributes.upc_ean = upcEan;
  if (mpn !== undefined) attributes.manufacturer_part_num = mpn;
  if (productTypes !== undefined) attributes.product_types = productTypes as ProductType[];
  if (price !== undefined) attributes.price = price;
  if (extensions !== undefined) attributes.extensions = extensions;
  if (components !== undefined) attributes.components = components;
  if (customInputs !== undefined) attributes.custom_inputs = customInputs;
  if (publishedAt !== undefined) attributes.published_at = publishedAt as string | null;
  if (createdAt !== undefined) attributes.created_at = createdAt;
  if (updatedAt !== undefined) attributes.updated_at = updatedAt;
  if (locales !== undefined) attributes.locales = locales;
  return attributes;
}

function validateVariations(value: unknown, path: string, issues: Issues): Variation[] | undefined {
  if (value === undefined) return [];
  const list = issues.array(value, path);
  if (!list) return undefined;
  const variations: Variation[] = [];
  const variationIds = new Set<string>();
  let ok = true;
  list.forEach((entry, index) => {
    const variationPath = `${path}[${index}]`;
    const variation = issues.object(entry, variationPath);
    if (!variation) {
      ok = false;
      return;
    }
    issues.unknownFields(variation, new Set(['id', 'name', 'sort_order', 'options']), variationPath);
    const id = issues.uuid(variation.id, `${variationPath}.id`);
    const name = issues.text(variation.name, `${variationPath}.name`);
    const sortOrder = issues.nullableInteger(
      variation.sort_order,
      `${variationPath}.sort_order`,
      Number.MIN_SAFE_INTEGER,
    );
    const rawOptions = issues.array(variation.options, `${variationPath}.options`);
    if (rawOptions?.length === 0)
      issues.add(`${variationPath}.options`, 'required', 'must list at least one option');
    const options: VariationOption[] = [];
    const optionIds = new Set<string>();
    rawOptions?.forEach((rawOption, optionIndex) => {
      const optionPath = `${variationPath}.options[${optionIndex}]`;
      const option = issues.object(rawOption, optionPath);
      if (!option) return;
      issues.unknownFields(option, new Set(['id', 'name', 'sort_order', 'description']), optionPath);
      const optionId = issues.uuid(option.id, `${optionPath}.id`);
      const optionName = issues.text(option.name, `${optionPath}.name`);
      const optionSort = issues.nullableInteger(
        option.sort_order,
        `${optionPath}.sort_order`,
        Number.MIN_SAFE_INTEGER,
      );
      const description =
        option.description === undefined
          ? ''
          : issues.text(option.description, `${optionPath}.description`, MAX_DESCRIPTION, true);
      if (
        optionId === undefined ||
        optionName === undefined ||
        optionSort === undefined ||
        description === undefined
      ) {
        return;
      }
      if (optionIds.has(optionId)) {
        issues.add(`${optionPath}.id`, 'unique', `option id ${optionId} is used twice in this variation`);
        return;
      }
      optionIds.add(optionId);
      options.push({ id: optionId, name: optionName, sort_order: optionSort, description });
    });
    if (
      id === undefined ||
      name === undefined ||
      sortOrder === undefined ||
      !rawOptions ||
      rawOptions.length === 0
    ) {
      ok = false;
      return;
    }
    if (variationIds.has(id)) {
      issues.add(`${variationPath}.id`, 'unique', `variation id ${id} is used twice`);
      ok = false;
      return;
    }
    variationIds.add(id);
    variations.push({ id, name, sort_order: sortOrder, options });
  });
  return ok ? variations : undefined;
}

function validateSale(value: unknown, path: string, issues: Issues): Sale | undefined {
  const sale = issues.object(value, path);
  if (!sale) return undefined;
  issues.unknownFields(sale, new Set(['id', 'expires', 'price']), path);
  const id = issues.text(sale.id, `${path}.id`);
  const expires =
    sale.expires === undefined || sale.expires === null
      ? null
      : issues.dateTime(sale.expires, `${path}.expires`);
  const price = issues.priceMap(sale.price, `${path}.price`);
  if (id === undefined || expires === undefined || price === undefined) return undefined;
  return { id, expires, price };
}

const FILE_FIELDS = new Set(['id', 'file_name', 'mime_type', 'file_size', 'link', 'meta']);

/**
 * The top-level `files[]`: file objects of the platform's shape, which products name by id. Only what the
 * publisher needs to store and render them is checked here (types, UUID ids, each id once).
 */
function validateFiles(value: unknown, issues: Issues): CatalogFile[] {
  const files: CatalogFile[] = [];
  const seen = new Set<string>();
  issues.array(value, 'files')?.forEach((entry, index) => {
    const path = `files[${index}]`;
    const raw = issues.object(entry, path);
    if (!raw) return;
    issues.unknownFields(raw, FILE_FIELDS, path);
    const id = issues.uuid(raw.id, `${path}.id`);
    const fileName = issues.text(raw.file_name, `${path}.file_name`, MAX_DESCRIPTION);
    const mimeType = issues.text(raw.mime_type, `${path}.mime_type`);
    const fileSize = issues.integer(raw.file_size, `${path}.file_size`, 0);
    const link = issues.object(raw.link, `${path}.link`);
    if (link) issues.unknownFields(link, new Set(['href']), `${path}.link`);
    const href = link ? issues.text(link.href, `${path}.link.href`, MAX_DESCRIPTION) : undefined;
    const meta = raw.meta === undefined ? undefined : validateFileMeta(raw.meta, `${path}.meta`, issues);
    if (
      id === undefined ||
      fileName === undefined ||
      mimeType === undefined ||
      fileSize === undefined ||
      href === undefined ||
      (raw.meta !== undefined && meta === undefined)
    ) {
      return;
    }
    if (seen.has(id)) {
      issues.add(`${path}.id`, 'unique', `file id ${id} is listed twice`);
      return;
    }
    seen.add(id);
    files.push({
      id,
      file_name: fileName,
      mime_type: mimeType,
      file_size: fileSize,
      link: { href },
      ...(meta === undefined ? {} : { meta }),
    });
  });
  return files;
}

function validateFileMeta(value: unknown, path: string, issues: Issues): CatalogFile['meta'] | undefined {
  const raw = issues.object(value, path);
  if (!raw) return undefined;
  issues.unknownFields(raw, new Set(['dimensions', 'timestamps']), path);
  const meta: NonNullable<CatalogFile['meta']> = {};
  let ok = true;
  if (raw.dimensions !== undefined) {
    const dimensions = issues.object(raw.dimensions, `${path}.dimensions`);
    if (dimensions) issues.unknownFields(dimensions, new Set(['width', 'height']), `${path}.dimensions`);
    const width = dimensions ? issues.integer(dimensions.width, `${path}.dimensions.width`, 0) : undefined;
    const height = dimensions ? issues.integer(dimensions.height, `${path}.dimensions.height`, 0) : undefined;
    if (width === undefined || height === undefined) ok = false;
    else meta.dimensions = { width, height };
  }
  if (raw.timestamps !== undefined) {
    const timestamps = issues.object(raw.timestamps, `${path}.timestamps`);
    if (timestamps) issues.unknownFields(timestamps, new Set(['created_at']), `${path}.timestamps`);
    const createdAt = timestamps
      ? issues.dateTime(timestamps.created_at, `${path}.timestamps.created_at`)
      : undefined;
    if (createdAt === undefined) ok = false;
    else meta.timestamps = { created_at: createdAt };
  }
  return ok ? meta : undefined;
}

interface ProductDraft {
  index: number;
  product: ProductInput;
}

function validateProduct(entry: unknown, index: number, issues: Issues): ProductInput | undefined {
  const path = `products[${index}]`;
  const raw = issues.object(entry, path);
  if (!raw) return undefined;
  issues.unknownFields(raw, PRODUCT_FIELDS, path);
  const id = issues.uuid(raw.id, `${path}.id`);
  const attributes = validateAttributes(raw.attributes, `${path}.attributes`, issues);
  const nodeIds = issues.stringList(raw.node_ids, `${path}.node_ids`, (item, itemPath) =>
    issues.uuid(item, itemPath),
  );
  const files: ProductInput['files'] = [];
  const rawFiles = raw.files === undefined ? [] : issues.array(raw.files, `${path}.files`);
  rawFiles?.forEach((rawFile, fileIndex) => {
    const filePath = `${path}.files[${fileIndex}]`;
    const file = issues.object(rawFile, filePath);
    if (!file) return;
    issues.unknownFields(file, new Set(['id', 'created_at']), filePath);
    const fileId = issues.uuid(file.id, `${filePath}.id`);
    const createdAt = issues.dateTime(file.created_at, `${filePath}.created_at`);
    if (fileId !== undefined && createdAt !== undefined) files.push({ id: fileId, created_at: createdAt });
  });
  const mainImage =
    raw.main_image === undefined ? undefined : issues.uuid(raw.main_image, `${path}.main_image`);
  const variations = validateVariations(raw.variations, `${path}.variations`, issues);
  const variationOptions: Record<string, string> = {};
  if (raw.variation_options !== undefined) {
    const map = issues.object(raw.variation_options, `${path}.variation_options`);
    for (const [variationId, optionId] of Object.entries(map ?? {})) {
      const optionPath = childPath(`${path}.variation_options`, variationId);
      if (!isUuid(variationId)) {
        issues.add(optionPath, 'uuid', 'keys must be variation ids (UUIDs)');
        continue;
      }
      const option = issues.uuid(optionId, optionPath);
      if (option !== undefined) variationOptions[variationId.toLowerCase()] = option;
    }
  }
  const sale = raw.sale === undefined ? undefined : validateSale(raw.sale, `${path}.sale`, issues);
  if (
    id === undefined ||
    attributes === undefined ||
    nodeIds === undefined ||
    variations === undefined ||
    (raw.main_image !== undefined && mainImage === undefined) ||
    (raw.sale !== undefined && sale === undefined)
  ) {
    return undefined;
  }
  return {
    id,
    attributes,
    node_ids: nodeIds,
    files,
    ...(mainImage === undefined ? {} : { main_image: mainImage }),
    variations,
    variation_options: variationOptions,
    ...(sale === undefined ? {} : { sale }),
  };
}

/** Checks that need the whole document: uniqueness, references between products, nodes and modifiers. */
function crossCheck(
  drafts: ProductDraft[],
  declaredIds: ReadonlySet<string>,
  nodes: CatalogNode[],
  modifiers: Record<string, PriceModifier>,
  fileIds: ReadonlySet<string>,
  issues: Issues,
): void {
  const byId = new Map<string, ProductDraft>();
  const skus = new Map<string, number>();
  const externalRefs = new Map<string, number>();
  for (const draft of drafts) {
    const { product, index } = draft;
    const path = `products[${index}]`;
    const earlier = byId.get(product.id);
    if (earlier)
      issues.add(
        `${path}.id`,
        'unique',
        `product id ${product.id} is also used by products[${earlier.index}]`,
      );
    else byId.set(product.id, draft);
    const sku = product.attributes.sku;
    const skuIndex = skus.get(sku);
    if (skuIndex !== undefined) {
      issues.add(
        `${path}.attributes.sku`,
        'unique',
        `sku ${JSON.stringify(sku)} is also used by products[${skuIndex}]`,
      );
    } else skus.set(sku, index);
    const ref = product.attributes.external_ref;
    if (typeof ref === 'string') {
      const refIndex = externalRefs.get(ref);
      if (refIndex !== undefined) {
        issues.add(
          `${path}.attributes.external_ref`,
          'unique',
          `external_ref ${JSON.stringify(ref)} is also used by products[${refIndex}]`,
        );
      } else externalRefs.set(ref, index);
    }
  }
  const nodeIds = new Set(nodes.map((node) => node.id));
  const childrenOf = new Map<string, ProductDraft[]>();
  for (const draft of drafts) {
    const { product, index } = draft;
    const path = `products[${index}]`;
    const attributes = product.attributes;
    product.node_ids.forEach((nodeId, nodeIndex) => {
      if (!nodeIds.has(nodeId)) {
        issues.add(`${path}.node_ids[${nodeIndex}]`, 'reference', `${nodeId} is not a node of this release`);
      }
    });
    if (product.main_image !== undefined && !fileIds.has(product.main_image)) {
      issues.add(
        `${path}.main_image`,
        'reference',
        `${product.main_image} is not one of the release's files`,
      );
    }
    product.files.forEach((file, fileIndex) => {
      if (!fileIds.has(file.id)) {
        issues.add(
          `${path}.files[${fileIndex}].id`,
          'reference',
          `${file.id} is not one of the release's files`,
        );
      }
    });
    attributes.price_modifiers?.forEach((name, modifierIndex) => {
      if (!Object.hasOwn(modifiers, name)) {
        issues.add(
          `${path}.attributes.price_modifiers[${modifierIndex}]`,
          'reference',
          `${JSON.stringify(name)} is not one of the release's price_modifiers`,
        );
      }
    });
    for (const [key, component] of Object.entries(attributes.components ?? {})) {
      component.options.forEach((option, optionIndex) => {
        const optionPath = `${childPath(`${path}.attributes.components`, key)}.options[${optionIndex}].id`;
        if (option.id === product.id) issues.add(optionPath, 'reference', 'a bundle cannot contain itself');
        else if (!declaredIds.has(option.id)) {
          issues.add(optionPath, 'reference', `${option.id} is not a product of this release`);
        }
      });
    }
    const types = attributes.product_types;
    const parentId = attributes.base_product_id;
    if (parentId !== undefined) {
      const parent = byId.get(parentId);
      const parentPath = `${path}.attributes.base_product_id`;
      if (parentId === product.id) issues.add(parentPath, 'reference', 'a product cannot be its own parent');
      else if (!parent) {
        // A declared parent with errors of its own is reported there, not again here.
        if (!declaredIds.has(parentId))
          issues.add(parentPath, 'reference', `${parentId} is not a product of this release`);
      } else if (parent.product.attributes.base_product_id !== undefined) {
        issues.add(
          parentPath,
          'reference',
          `products[${parent.index}] is itself a child; children cannot have children`,
        );
      } else {
        const siblings = childrenOf.get(parentId);
        if (siblings) siblings.push(draft);
        else childrenOf.set(parentId, [draft]);
      }
      if (types !== undefined && !types.includes('child')) {
        issues.add(
          `${path}.attributes.product_types`,
          'product_types',
          'a product with base_product_id must be a child',
        );
      }
      if (attributes.base_product === true) {
        issues.add(`${path}.attributes.base_product`, 'base_product', 'a child cannot be a base product');
      }
      if (product.variations.length > 0) {
        issues.add(
          `${path}.variations`,
          'variations',
          'only parent products have variations; children pick variation_options',
        );
      }
    } else {
      if (types?.includes('child')) {
        issues.add(
          `${path}.attributes.product_types`,
          'product_types',
          'a child must name its parent in base_product_id',
        );
      }
      if (attributes.commodity_type === undefined) {
        issues.add(
          `${path}.attributes.commodity_type`,
          'required',
          'is required: physical or digital (children inherit it)',
        );
      }
      if (Object.keys(product.variation_options).length > 0) {
        issues.add(
          `${path}.variation_options`,
          'variations',
          'only children (with base_product_id) pick variation options',
        );
      }
    }
    const bundle = attributes.components !== undefined && Object.keys(attributes.components).length > 0;
    if (types?.includes('bundle') && !bundle) {
      issues.add(`${path}.attributes.components`, 'required', 'a bundle must have components');
    }
  }
  for (const [parentId, children] of childrenOf) {
    const parent = byId.get(parentId);
    if (!parent) continue;
    if (parent.product.attributes.base_product === false) {
      issues.add(
        `products[${parent.index}].attributes.base_product`,
        'base_product',
        `must not be false: products[${children[0]?.index}] names this product as its base_product_id`,
      );
    }
    const parentTypes = parent.product.attributes.product_types;
    if (parentTypes !== undefined && !parentTypes.includes('parent')) {
      issues.add(
        `products[${parent.index}].attributes.product_types`,
        'product_types',
        'a product with children must be a parent',
      );
    }
    const variations = parent.product.variations;
    const combinations = new Map<string, number>();
    for (const { product, index } of children) {
      const path = `products[${index}].variation_options`;
      let complete = variations.length > 0;
      for (const [variationId, optionId] of Object.entries(product.variation_options)) {
        const variation = variations.find((candidate) => candidate.id === variationId);
        if (!variation) {
          issues.add(
            childPath(path, variationId),
            'reference',
            `not a variation of the parent products[${parent.index}]`,
          );
          complete = false;
        } else if (!variation.options.some((option) => option.id === optionId)) {
          issues.add(
            childPath(path, variationId),
            'reference',
            `${optionId} is not an option of variation ${variation.name}`,
          );
          complete = false;
        }
      }
      if (!complete || variations.some((variation) => product.variation_options[variation.id] === undefined))
        continue;
      const key = variations.map((variation) => product.variation_options[variation.id]).join('/');
      const other = combinations.get(key);
      if (other !== undefined) {
        issues.add(path, 'unique', `products[${other}] already has this combination of variation options`);
      } else combinations.set(key, index);
    }
  }
}

/**
 * Validates a whole release document (DESIGN.md section 9) and returns it normalised (defaults filled,
 * ids lower-case, timestamps in UTC), or every issue found, each naming its JSON path and rule (capped at
 * MAX_VALIDATION_ISSUES; `total` counts them all).
 */
export function validateReleaseDocument(input: unknown): ValidationResult {
  const issues = new Issues();
  const root = issues.object(input, '$');
  if (!root) return { ok: false, issues: issues.list, total: issues.total };
  issues.unknownFields(root, TOP_LEVEL, '');
  const catalog = validateCatalog(root.catalog, issues);
  const currencies = root.currencies === undefined ? undefined : validateCurrencies(root.currencies, issues);
  const rules = validateRules(root.rules, issues);
  const nodes = validateNodes(root.nodes, issues);
  const priceModifiers = validatePriceModifiers(root.price_modifiers, issues);
  const files = root.files === undefined ? [] : validateFiles(root.files, issues);
  // Ids of every well-formed file entry, so a file with another error is not reported again by products.
  const fileIds = new Set<string>(
    Array.isArray(root.files)
      ? root.files.flatMap((entry) =>
          isObject(entry) && typeof entry.id === 'string' && isUuid(entry.id) ? [entry.id.toLowerCase()] : [],
        )
      : [],
  );
  const drafts: ProductDraft[] = [];
  const declaredIds = new Set<string>();
  if (root.products === undefined) issues.add('products', 'required', 'is required: an array of products');
  else {
    issues.array(root.products, 'products')?.forEach((entry, index) => {
      const id = isObject(entry) ? entry.id : undefined;
      if (typeof id === 'string' && isUuid(id)) declaredIds.add(id.toLowerCase());
      const product = validateProduct(entry, index, issues);
      if (product) drafts.push({ index, product });
    });
  }
  crossCheck(drafts, declaredIds, nodes, priceModifiers, fileIds, issues);
  if (issues.total > 0 || catalog === undefined) {
    return { ok: false, issues: issues.list, total: issues.total };
  }
  return {
    ok: true,
    document: {
      catalog,
      ...(currencies === undefined ? {} : { currencies }),
      rules,
      nodes,
      price_modifiers: priceModifiers,
      files,
      products: drafts.map((draft) => draft.product),
    },
  };
}
