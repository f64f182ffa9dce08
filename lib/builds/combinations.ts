import type { ChildVariation, ProductAttributes } from '../store/product-repository';
import type { Variation, VariationModifier, VariationOption } from '../store/variation-repository';

/**
 * The pure part of a child-products build (docs/child-products.md): the combinations of a parent's linked
 * variations' options, which of them `build_rules` keep, and each child's attributes (the parent's, then
 * each option's modifiers in variation link order).
 */

/** At most this many combinations of options per product (the platform's limit). */
export const MAX_COMBINATIONS = 10_000;

/** The platform's message for build rules that cannot decide a combination. */
export const AMBIGUOUS_RULES =
  'could not determine whether to include or exclude a child product due to ambiguous rules';

export interface BuildOption {
  option: VariationOption;
  modifiers: VariationModifier[];
}
/** A linked variation as a build reads it: its options in creation order, each with its modifiers. */
export interface BuildVariation {
  variation: Variation;
  options: BuildOption[];
}
/** One option of each linked variation, in link order. */
export type Combination = { variation: Variation; option: BuildOption }[];

/** How many combinations the variations make (stops counting past MAX_COMBINATIONS). */
export function combinationCount(variations: BuildVariation[]): number {
  let count = 1;
  for (const { options } of variations) {
    count *= options.length;
    if (count > MAX_COMBINATIONS) return count;
  }
  return count;
}

/** Every combination, the first variation's options varying slowest. */
export function* combinations(variations: BuildVariation[]): Generator<Combination> {
  if (variations.length === 0 || variations.some((v) => v.options.length === 0)) return;
  const at = variations.map(() => 0);
  while (true) {
    yield variations.map((v, index) => ({
      variation: v.variation,
      option: v.options[at[index] as number] as BuildOption,
    }));
    let position = variations.length - 1;
    while (position >= 0) {
      const next = (at[position] as number) + 1;
      if (next < (variations[position] as BuildVariation).options.length) {
        at[position] = next;
        break;
      }
      at[position] = 0;
      position -= 1;
    }
    if (position < 0) return;
  }
}

export type RuleDecision = 'include' | 'exclude' | 'ambiguous';

/**
 * Decides a combination by the parent's `build_rules`: the rules (arrays of option ids) all of whose options
 * the combination has match it; the most specific (most options) matching rules win; when both an include
 * and an exclude are the most specific, the rules are ambiguous. No matching rule: `default`. A rule naming
 * two options of one variation, or an option not linked, matches nothing.
 */
export function ruleDecider(
  rules: ProductAttributes['build_rules'],
): (optionIds: readonly string[]) => RuleDecision {
  if (rules === undefined) return () => 'include';
  const sets = (list: string[][] | undefined) =>
    (list ?? []).map((rule) => new Set(rule.map((id) => id.toLowerCase())));
  const include = sets(rules.include);
  const exclude = sets(rules.exclude);
  const specificity = (list: Set<string>[], ids: Set<string>) => {
    let best = -1;
    for (const rule of list) {
      if (rule.size > best && [...rule].every((id) => ids.has(id))) best = rule.size;
    }
    return best;
  };
  return (optionIds) => {
    const ids = new Set(optionIds.map((id) => id.toLowerCase()));
    const included = specificity(include, ids);
    const excluded = specificity(exclude, ids);
    if (included < 0 && excluded < 0) return rules.default;
    if (included === excluded) return 'ambiguous';
    return included > excluded ? 'include' : 'exclude';
  };
}

/** A child's attributes, the price modifiers it names and its `child_variations`. */
export interface ChildDraft {
  attributes: ProductAttributes;
  price_modifiers: string[];
  child_variations: ChildVariation[];
}

/** Attributes a child does not take from its parent: its own rules, components, and the unique import key. */
const NOT_INHERITED = ['build_rules', 'components', 'external_ref'] as const;

const text = (value: VariationModifier['value']) => (typeof value === 'string' ? value : '');
const object = <T>(value: VariationModifier['value']) => value as unknown as T;

/** Applies one modifier to the child's attributes (`price` modifiers are collected instead). */
function apply(attributes: ProductAttributes, modifier: VariationModifier, prices: string[]): void {
  const a = attributes as unknown as Record<string, unknown>;
  const value = text(modifier.value);
  const edit = (field: 'name' | 'description' | 'sku' | 'slug', how: 'append' | 'prepend' | 'equals') => {
    const current = (a[field] as string | undefined) ?? '';
    a[field] = how === 'append' ? current + value : how === 'prepend' ? value + current : value;
  };
  const build = (field: 'sku' | 'slug') => {
    const current = (a[field] as string | undefined) ?? '';
    a[field] = current.split(modifier.seek ?? '').join(modifier.set ?? '');
  };
  switch (modifier.type) {
    case 'name_append':
    case 'name_prepend':
    case 'name_equals':
    case 'description_append':
    case 'description_prepend':
    case 'description_equals':
    case 'sku_append':
    case 'sku_prepend':
    case 'sku_equals':
    case 'slug_append':
    case 'slug_prepend':
    case 'slug_equals': {
      const [field, how] = modifier.type.split('_') as [
        'name' | 'description' | 'sku' | 'slug',
        'append' | 'prepend' | 'equals',
      ];
      edit(field, how);
      return;
    }
    case 'sku_builder':
      build('sku');
      return;
    case 'slug_builder':
      build('slug');
      return;
    case 'commodity_type':
      a.commodity_type = value;
      return;
    case 'status':
      a.status = value;
      return;
    case 'upc_ean_equals':
      a.upc_ean = value;
      return;
    case 'mpn_equals':
      a.mpn = value;
      return;
    case 'external_ref_equals':
      a.external_ref = value;
      return;
    case 'custom_inputs_equals':
      a.custom_inputs = object(modifier.value);
      return;
    case 'build_rules_equals':
      a.build_rules = object(modifier.value);
      return;
    case 'locales_equals':
      a.locales = object(modifier.value);
      return;
    case 'price':
      if (modifier.reference_name !== undefined) prices.push(modifier.reference_name);
      return;
  }
}

/**
 * A child of `parent` for a combination: the parent's attributes (but build_rules, components and
 * external_ref), then each option's modifiers, options in variation link order and an option's modifiers
 * in creation order. A combination none of whose options has a sku modifier (`sku_*`) gets the option names
 * appended to the parent's sku, without separator, in link order (when the parent has a sku); likewise the
 * slug without slug modifiers (`slug_*`).
 */
export function childDraft(parent: ProductAttributes, combination: Combination): ChildDraft {
  const attributes = structuredClone(parent) as ProductAttributes;
  for (const field of NOT_INHERITED) delete attributes[field];
  const prices: string[] = [];
  const modifiers = combination.flatMap(({ option }) => option.modifiers);
  for (const modifier of modifiers) apply(attributes, modifier, prices);
  const names = combination.map(({ option }) => option.option.name).join('');
  if (!modifiers.some((m) => m.type.startsWith('sku_')) && attributes.sku !== undefined) {
    attributes.sku += names;
  }
  if (!modifiers.some((m) => m.type.startsWith('slug_'))) attributes.slug = (attributes.slug ?? '') + names;
  return {
    attributes,
    price_modifiers: prices,
    child_variations: combination.map(({ variation, option }) => ({
      id: variation.id,
      name: variation.name,
      ...(variation.sort_order === undefined ? {} : { sort_order: variation.sort_order }),
      options: null,
      option: { id: option.option.id, name: option.option.name, description: option.option.description },
    })),
  };
}
