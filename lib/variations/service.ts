import { NotFoundError, UnprocessableEntityError } from '../http/errors';
import { uuidv7 } from '../ids';
import type { WriteCaller } from '../store/caller-check';
import {
  type Variation,
  VariationInUseError,
  type VariationModifier,
  VariationNotFoundError,
  type VariationOption,
  type VariationWithOptions,
  variationRepository,
} from '../store/variation-repository';
import type { ModifierAttributes, OptionAttributes, VariationAttributes } from '../validation/variation';

/** The platform's variations, options and modifiers (docs/variations.md): 404 for anything not there. */

/** Runs a repository write, a missing variation, option or modifier becoming a 404. */
async function found<T>(write: Promise<T>, what: string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof VariationNotFoundError) throw new NotFoundError(`${what} not found`);
    throw error;
  }
}

export async function variationOf(storeId: string, variationId: string): Promise<VariationWithOptions> {
  const variation = await variationRepository.getVariation(storeId, variationId);
  if (!variation) throw new NotFoundError('variation not found');
  return variation;
}

export async function createVariation(
  storeId: string,
  attributes: VariationAttributes & { name: string },
  caller: WriteCaller,
): Promise<VariationWithOptions> {
  const at = new Date().toISOString();
  const variation: Variation = {
    id: uuidv7(),
    name: attributes.name,
    ...(typeof attributes.sort_order === 'number' ? { sort_order: attributes.sort_order } : {}),
    created_at: at,
    updated_at: at,
  };
  await variationRepository.createVariation(storeId, variation, caller);
  return { variation, options: [] };
}

export async function updateVariation(
  storeId: string,
  variationId: string,
  changes: VariationAttributes,
  caller: WriteCaller,
): Promise<VariationWithOptions> {
  await found(
    variationRepository.updateVariation(storeId, variationId, changes, new Date().toISOString(), caller),
    'variation',
  );
  return variationOf(storeId, variationId);
}

/** Deletes the variation: 422 while products link it (unlink it from them first). */
export async function deleteVariation(
  storeId: string,
  variationId: string,
  caller: WriteCaller,
): Promise<void> {
  try {
    await found(variationRepository.deleteVariation(storeId, variationId, caller), 'variation');
  } catch (error) {
    if (!(error instanceof VariationInUseError)) throw error;
    throw new UnprocessableEntityError(
      `One or more variations are currently in use: the variation is linked to ${error.links} product(s); unlink it from them (DELETE /pcm/products/{product_id}/relationships/variations) first`,
    );
  }
}

/** The option's modifiers (404 when the option or its variation does not exist). */
export async function modifiersOf(
  storeId: string,
  variationId: string,
  optionId: string,
): Promise<VariationModifier[]> {
  return (await optionWithModifiers(storeId, variationId, optionId)).modifiers;
}

/**
 * The variation's options, each with its modifiers, in creation order: the one Query of the variation's key
 * range, which holds them all (not a read of each option's modifiers: two requests an option).
 */
export async function optionsOf(
  storeId: string,
  variationId: string,
): Promise<{ option: VariationOption; modifiers: VariationModifier[] }[]> {
  const tree = await variationRepository.getVariationTree(storeId, variationId);
  if (!tree) throw new NotFoundError('variation not found');
  return tree.options;
}

export async function createOption(
  storeId: string,
  variationId: string,
  attributes: OptionAttributes & { name: string },
  caller: WriteCaller,
): Promise<VariationOption> {
  const at = new Date().toISOString();
  const option: VariationOption = {
    id: uuidv7(),
    variation_id: variationId,
    name: attributes.name,
    description: attributes.description ?? '',
    ...(typeof attributes.sort_order === 'number' ? { sort_order: attributes.sort_order } : {}),
    created_at: at,
    updated_at: at,
  };
  await found(variationRepository.createOption(storeId, option, caller), 'variation');
  return option;
}

export async function updateOption(
  storeId: string,
  variationId: string,
  optionId: string,
  changes: OptionAttributes,
  caller: WriteCaller,
): Promise<void> {
  await found(
    variationRepository.updateOption(
      storeId,
      variationId,
      optionId,
      changes,
      new Date().toISOString(),
      caller,
    ),
    'option',
  );
}

/** The option and its modifiers, in one round trip (404 when the option or its variation does not exist). */
export async function optionWithModifiers(
  storeId: string,
  variationId: string,
  optionId: string,
): Promise<{ option: VariationOption; modifiers: VariationModifier[] }> {
  const tree = await variationRepository.getOptionTree(storeId, variationId, optionId);
  if (!tree) throw new NotFoundError('option not found');
  return tree;
}

export function deleteOption(
  storeId: string,
  variationId: string,
  optionId: string,
  caller: WriteCaller,
): Promise<void> {
  return found(variationRepository.deleteOption(storeId, variationId, optionId, caller), 'option');
}

export async function modifierOf(
  storeId: string,
  variationId: string,
  optionId: string,
  modifierId: string,
): Promise<VariationModifier> {
  const modifier = await variationRepository.getModifier(storeId, variationId, optionId, modifierId);
  if (!modifier) throw new NotFoundError('modifier not found');
  return modifier;
}

export async function createModifier(
  storeId: string,
  variationId: string,
  optionId: string,
  definition: ModifierAttributes,
  caller: WriteCaller,
): Promise<VariationModifier> {
  const at = new Date().toISOString();
  const modifier: VariationModifier = {
    ...definition,
    id: uuidv7(),
    variation_id: variationId,
    option_id: optionId,
    created_at: at,
    updated_at: at,
  };
  await found(variationRepository.createModifier(storeId, modifier, caller), 'option');
  return modifier;
}

export async function updateModifier(
  storeId: string,
  key: { variationId: string; optionId: string; modifierId: string },
  definition: ModifierAttributes,
  caller: WriteCaller,
): Promise<VariationModifier> {
  await found(
    variationRepository.replaceModifier(storeId, key, definition, new Date().toISOString(), caller),
    'modifier',
  );
  return modifierOf(storeId, key.variationId, key.optionId, key.modifierId);
}

export function deleteModifier(
  storeId: string,
  key: { variationId: string; optionId: string; modifierId: string },
  caller: WriteCaller,
): Promise<void> {
  return found(
    variationRepository.deleteModifier(storeId, key.variationId, key.optionId, key.modifierId, caller),
    'modifier',
  );
}
