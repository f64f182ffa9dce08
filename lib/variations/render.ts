import type { VariationModifier, VariationOption, VariationWithOptions } from '../store/variation-repository';

/**
 * The platform's variation resources as its SDK reads them (`PCMVariations`): a variation lists its options
 * in `meta.options`; an option lists its modifiers in `meta.modifiers` as `{<type>: value}` objects.
 */

/** `sort_order` only when set (`null` on the platform removes it, and then it is absent). */
const sortOrder = (value: number | undefined) => (value === undefined ? {} : { sort_order: value });

export function renderVariation({ variation, options }: VariationWithOptions): Record<string, unknown> {
  return {
    id: variation.id,
    type: 'product-variation',
    attributes: { name: variation.name, ...sortOrder(variation.sort_order) },
    meta: {
      options: options.map((option) => ({
        id: option.id,
        name: option.name,
        description: option.description,
        ...sortOrder(option.sort_order),
        created_at: option.created_at,
        updated_at: option.updated_at,
      })),
      owner: 'store',
      created_at: variation.created_at,
      updated_at: variation.updated_at,
    },
  };
}

/** A modifier as an option's `meta.modifiers` shows it: `{sku_builder: {seek, set}}`, `{name_append: "x"}`. */
function modifierEntry(modifier: VariationModifier): Record<string, unknown> {
  if (modifier.seek !== undefined) return { [modifier.type]: { seek: modifier.seek, set: modifier.set } };
  if (modifier.type === 'price') return { [modifier.type]: modifier.reference_name };
  return { [modifier.type]: modifier.value };
}

export function renderOption(
  option: VariationOption,
  modifiers: VariationModifier[],
): Record<string, unknown> {
  return {
    id: option.id,
    type: 'product-variation-option',
    attributes: {
      name: option.name,
      description: option.description,
      ...sortOrder(option.sort_order),
    },
    meta: {
      owner: 'store',
      modifiers: modifiers.map(modifierEntry),
      created_at: option.created_at,
      updated_at: option.updated_at,
    },
  };
}

export function renderModifier(modifier: VariationModifier): Record<string, unknown> {
  const attributes: Record<string, unknown> = { type: modifier.type };
  for (const field of ['value', 'seek', 'set', 'reference_name'] as const) {
    if (modifier[field] !== undefined) attributes[field] = modifier[field];
  }
  return {
    id: modifier.id,
    type: 'product-variation-modifier',
    attributes,
    meta: { owner: 'store' },
  };
}
