import type { ModifierAttributes } from '../validation/variation';
import { transactAsCaller, type WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { BatchWriteCommand, GetCommand, type TransactWriteCommand } from './dynamodb';
import { backoff, queryAll, settleAll, withoutKeys } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';

/**
 * The platform's variations (`/pcm/variations`, docs/variations.md), in the products table, one item each:
 *
 * - `STORE#<store>` / `VARIATION#<variation>`: a variation (`kind: "variation"`): name, sort_order, and
 *   `links`, how many products link it (a delete is conditioned on none).
 * - `STORE#<store>` / `VARIATION#<variation>#OPTION#<option>`: an option (`kind: "option"`).
 * - `STORE#<store>` / `VARIATION#<variation>#OPTION#<option>#MODIFIER#<modifier>`: a modifier
 *   (`kind: "modifier"`).
 *
 * Options and modifiers are items of their own, not lists inside their parent: the platform states no
 * limit on options per variation or modifiers per option, so a parent item holding them could outgrow
 * DynamoDB's 400 KB, and two concurrent creates would have to rewrite the same item. A variation with its
 * options is one Query (the key range of `VARIATION#<variation>`); a create of an option or modifier is a
 * transaction that checks its parents exist, so nothing is added under a deleted parent. Deleting a
 * variation (or option) deletes its item first, conditioned on its existence, then sweeps the items under
 * it; readers always go through the parent, so a sweep cut short leaves nothing reachable.
 */
export interface Variation {
  id: string;
  name: string;
  sort_order?: number;
  created_at: string;
  updated_at: string;
}
export interface VariationOption {
  id: string;
  variation_id: string;
  name: string;
  description: string;
  sort_order?: number;
  created_at: string;
  updated_at: string;
}
export interface VariationModifier extends ModifierAttributes {
  id: string;
  variation_id: string;
  option_id: string;
  created_at: string;
  updated_at: string;
}
export interface VariationWithOptions {
  variation: Variation;
  options: VariationOption[];
}

/** The variation is linked to products (`links` of them): it cannot be deleted. */
export class VariationInUseError extends Error {
  override name = 'VariationInUseError';
  constructor(readonly links: number) {
    super(`the variation is linked to ${links} product(s)`);
  }
}

/** The variation, option or modifier named does not exist (or its parent does not). */
export class VariationNotFoundError extends Error {
  override name = 'VariationNotFoundError';
}

const PREFIX = 'VARIATION#';
export const variationKeys = {
  variation: (storeId: string, variationId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${PREFIX}${variationId}`,
  }),
  option: (storeId: string, variationId: string, optionId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${PREFIX}${variationId}#OPTION#${optionId}`,
  }),
  modifier: (storeId: string, variationId: string, optionId: string, modifierId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${PREFIX}${variationId}#OPTION#${optionId}#MODIFIER#${modifierId}`,
  }),
};

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;

const transact = transactAsCaller;

/** Runs `items`; a failed condition is VariationNotFoundError (every condition here is an existence). */
async function write(items: TransactItems, caller: WriteCaller | undefined, what: string): Promise<void> {
  const codes = await transact(items, caller);
  if (codes === undefined) return;
  if (codes.includes('ConditionalCheckFailed')) throw new VariationNotFoundError(`${what} not found`);
  throw new Error(`the ${what} could not be written (${codes.join(', ')})`);
}

const exists = (key: { pk: string; sk: string }) => ({
  ConditionCheck: { TableName: tableName('products'), Key: key, ConditionExpression: 'attribute_exists(pk)' },
});

/** Items of the store whose sort key starts with `prefix`, strongly consistent. */
function itemsUnder(storeId: string, prefix: string): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: tableName('products'),
    KeyConditionExpression: SK_PREFIX_CONDITION,
    ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ...skPrefix(prefix) },
    ConsistentRead: true,
  });
}

/** Deletes every item of the store under `prefix` (what a deleted variation or option leaves). */
async function sweep(storeId: string, prefix: string): Promise<void> {
  const table = tableName('products');
  const keys = (await itemsUnder(storeId, prefix)).map((item) => ({ pk: item.pk, sk: item.sk }));
  for (let start = 0; start < keys.length; start += 25) {
    let pending = keys.slice(start, start + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt >= 10) throw new Error(`DynamoDB kept ${pending.length} deletions unprocessed`);
      if (attempt > 0) await backoff(attempt);
      const result = await getDocumentClient().send(
        new BatchWriteCommand({ RequestItems: { [table]: pending } }),
      );
      pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
    }
  }
}

async function get<T>(key: { pk: string; sk: string }): Promise<T | undefined> {
  const found = await getDocumentClient().send(
    new GetCommand({ TableName: tableName('products'), Key: key, ConsistentRead: true }),
  );
  return found.Item ? (strip(found.Item) as T) : undefined;
}

function strip(item: Record<string, unknown>): Record<string, unknown> {
  const { kind: _kind, ...rest } = withoutKeys(item);
  return rest;
}

/** `SET`s and `REMOVE`s for the fields given (null removes, undefined leaves alone). */
function updateOf(fields: Record<string, unknown>, updatedAt: string) {
  const names: Record<string, string> = { '#updated_at': 'updated_at' };
  const values: Record<string, unknown> = { ':updated_at': updatedAt };
  const set = ['#updated_at = :updated_at'];
  const remove: string[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    if (value === null) remove.push(`#${field}`);
    else {
      values[`:${field}`] = value;
      set.push(`#${field} = :${field}`);
    }
  }
  return {
    UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ConditionExpression: 'attribute_exists(pk)',
  };
}

/** Groups a Query's variations and options (modifiers left out), in key (creation) order. */
function grouped(items: Record<string, unknown>[]): VariationWithOptions[] {
  const byId = new Map<string, VariationWithOptions>();
  for (const item of items) {
    if (item.kind === 'variation') {
      byId.set(item.id as string, { variation: strip(item) as unknown as Variation, options: [] });
    }
  }
  for (const item of items) {
    if (item.kind !== 'option') continue;
    byId.get(item.variation_id as string)?.options.push(strip(item) as unknown as VariationOption);
  }
  return [...byId.values()];
}

export const variationRepository = {
  async createVariation(storeId: string, variation: Variation, caller?: WriteCaller): Promise<void> {
    await write(
      [
        {
          Put: {
            TableName: tableName('products'),
            Item: { ...variationKeys.variation(storeId, variation.id), kind: 'variation', ...variation },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      caller,
      'variation',
    );
  },

  /** Every variation of the store with its options, in creation order. */
  async listVariations(storeId: string): Promise<VariationWithOptions[]> {
    return grouped(await itemsUnder(storeId, PREFIX));
  },

  /** The variation with its options, or undefined. */
  async getVariation(storeId: string, variationId: string): Promise<VariationWithOptions | undefined> {
    return grouped(await itemsUnder(storeId, variationKeys.variation(storeId, variationId).sk))[0];
  },

  async updateVariation(
    storeId: string,
    variationId: string,
    changes: { name?: string; sort_order?: number | null },
    updatedAt: string,
    caller?: WriteCaller,
  ): Promise<void> {
    await write(
      [
        {
          Update: {
            TableName: tableName('products'),
            Key: variationKeys.variation(storeId, variationId),
            ...updateOf(changes, updatedAt),
          },
        },
      ],
      caller,
      'variation',
    );
  },

  /**
   * Deletes the variation, on condition that no product links it (its `links` count is zero), then its
   * options and modifiers: VariationNotFoundError when it is gone, VariationInUseError while linked.
   */
  async deleteVariation(storeId: string, variationId: string, caller?: WriteCaller): Promise<void> {
    const key = variationKeys.variation(storeId, variationId);
    const codes = await transact(
      [
        {
          Delete: {
            TableName: tableName('products'),
            Key: key,
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(links) OR links = :none)',
            ExpressionAttributeValues: { ':none': 0 },
          },
        },
      ],
      caller,
    );
    if (codes !== undefined) {
      if (codes[0] !== 'ConditionalCheckFailed') {
        throw new Error(`the variation could not be deleted (${codes.join(', ')})`);
      }
      const found = await get<{ links?: number }>(key);
      if (!found) throw new VariationNotFoundError('variation not found');
      throw new VariationInUseError(found.links ?? 0);
    }
    await sweep(storeId, `${key.sk}#`);
  },

  /**
   * The variation with its options and each option's modifiers (one Query), or undefined: what a build
   * reads of each linked variation.
   */
  async getVariationTree(
    storeId: string,
    variationId: string,
  ): Promise<
    | { variation: Variation; options: { option: VariationOption; modifiers: VariationModifier[] }[] }
    | undefined
  > {
    const items = await itemsUnder(storeId, variationKeys.variation(storeId, variationId).sk);
    const variation = items.find((item) => item.kind === 'variation' && item.id === variationId);
    if (!variation) return undefined;
    const options = new Map<string, { option: VariationOption; modifiers: VariationModifier[] }>();
    for (const item of items) {
      if (item.kind === 'option' && item.variation_id === variationId) {
        options.set(item.id as string, { option: strip(item) as unknown as VariationOption, modifiers: [] });
      }
    }
    for (const item of items) {
      if (item.kind !== 'modifier' || item.variation_id !== variationId) continue;
      options.get(item.option_id as string)?.modifiers.push(strip(item) as unknown as VariationModifier);
    }
    const { links: _links, ...fields } = strip(variation);
    return { variation: fields as unknown as Variation, options: [...options.values()] };
  },

  /** Adds an option, only while its variation exists. */
  async createOption(storeId: string, option: VariationOption, caller?: WriteCaller): Promise<void> {
    await write(
      [
        exists(variationKeys.variation(storeId, option.variation_id)),
        {
          Put: {
            TableName: tableName('products'),
            Item: {
              ...variationKeys.option(storeId, option.variation_id, option.id),
              kind: 'option',
              ...option,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      caller,
      'variation',
    );
  },

  /** The option, when it and its variation exist. */
  async getOption(
    storeId: string,
    variationId: string,
    optionId: string,
  ): Promise<VariationOption | undefined> {
    const [variation, option] = await Promise.all([
      get<Variation>(variationKeys.variation(storeId, variationId)),
      get<VariationOption>(variationKeys.option(storeId, variationId, optionId)),
    ]);
    return variation ? option : undefined;
  },

  async updateOption(
    storeId: string,
    variationId: string,
    optionId: string,
    changes: { name?: string; description?: string; sort_order?: number | null },
    updatedAt: string,
    caller?: WriteCaller,
  ): Promise<void> {
    await write(
      [
        exists(variationKeys.variation(storeId, variationId)),
        {
          Update: {
            TableName: tableName('products'),
            Key: variationKeys.option(storeId, variationId, optionId),
            ...updateOf(changes, updatedAt),
          },
        },
      ],
      caller,
      'option',
    );
  },

  /** Deletes the option (while its variation exists), then its modifiers. */
  async deleteOption(
    storeId: string,
    variationId: string,
    optionId: string,
    caller?: WriteCaller,
  ): Promise<void> {
    const key = variationKeys.option(storeId, variationId, optionId);
    await write(
      [
        exists(variationKeys.variation(storeId, variationId)),
        {
          Delete: { TableName: tableName('products'), Key: key, ConditionExpression: 'attribute_exists(pk)' },
        },
      ],
      caller,
      'option',
    );
    await sweep(storeId, `${key.sk}#`);
  },

  /** Adds a modifier, only while its option and variation exist. */
  async createModifier(storeId: string, modifier: VariationModifier, caller?: WriteCaller): Promise<void> {
    const { variation_id: variationId, option_id: optionId } = modifier;
    await write(
      [
        exists(variationKeys.variation(storeId, variationId)),
        exists(variationKeys.option(storeId, variationId, optionId)),
        {
          Put: {
            TableName: tableName('products'),
            Item: {
              ...variationKeys.modifier(storeId, variationId, optionId, modifier.id),
              kind: 'modifier',
              ...modifier,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      caller,
      'option',
    );
  },

  /**
   * The option with its modifiers in creation order, or undefined when the option or its variation does not
   * exist: the variation's item and the option's key range (the option, then its modifiers: ids are of one
   * length, so no other option's key starts with this one's) read at once.
   */
  async getOptionTree(
    storeId: string,
    variationId: string,
    optionId: string,
  ): Promise<{ option: VariationOption; modifiers: VariationModifier[] } | undefined> {
    const variation = get<Variation>(variationKeys.variation(storeId, variationId));
    const items = itemsUnder(storeId, variationKeys.option(storeId, variationId, optionId).sk);
    await settleAll([variation, items]);
    const option = (await items).find((item) => item.kind === 'option' && item.id === optionId);
    if (!(await variation) || !option) return undefined;
    const modifiers = (await items).filter((item) => item.kind === 'modifier' && item.option_id === optionId);
    return {
      option: strip(option) as unknown as VariationOption,
      modifiers: modifiers.map((item) => strip(item) as unknown as VariationModifier),
    };
  },

  async getModifier(
    storeId: string,
    variationId: string,
    optionId: string,
    modifierId: string,
  ): Promise<VariationModifier | undefined> {
    const [option, modifier] = await Promise.all([
      this.getOption(storeId, variationId, optionId),
      get<VariationModifier>(variationKeys.modifier(storeId, variationId, optionId, modifierId)),
    ]);
    return option ? modifier : undefined;
  },

  /** Replaces the modifier's definition (its type and value fields), while it and its parents exist. */
  async replaceModifier(
    storeId: string,
    key: { variationId: string; optionId: string; modifierId: string },
    definition: ModifierAttributes,
    updatedAt: string,
    caller?: WriteCaller,
  ): Promise<void> {
    const { variationId, optionId, modifierId } = key;
    const fields = {
      type: definition.type,
      value: definition.value ?? null,
      seek: definition.seek ?? null,
      set: definition.set ?? null,
      reference_name: definition.reference_name ?? null,
    };
    await write(
      [
        exists(variationKeys.variation(storeId, variationId)),
        exists(variationKeys.option(storeId, variationId, optionId)),
        {
          Update: {
            TableName: tableName('products'),
            Key: variationKeys.modifier(storeId, variationId, optionId, modifierId),
            ...updateOf(fields, updatedAt),
          },
        },
      ],
      caller,
      'modifier',
    );
  },

  async deleteModifier(
    storeId: string,
    variationId: string,
    optionId: string,
    modifierId: string,
    caller?: WriteCaller,
  ): Promise<void> {
    await write(
      [
        exists(variationKeys.variation(storeId, variationId)),
        exists(variationKeys.option(storeId, variationId, optionId)),
        {
          Delete: {
            TableName: tableName('products'),
            Key: variationKeys.modifier(storeId, variationId, optionId, modifierId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
      caller,
      'modifier',
    );
  },
};
