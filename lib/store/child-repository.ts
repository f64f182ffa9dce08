import { getDocumentClient } from './client';
import { TransactWriteCommand } from './dynamodb';
import { backoff, countItems, type PagedQuery, queryAll, queryPage, settleWorkers } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import {
  type ChildVariation,
  type ProductAttributes,
  ProductWriteConflictError,
  productKeys,
  sameSku,
} from './product-repository';
import { tableName } from './schema';
import { cancellationCodes } from './transactions';

/**
 * What a build writes: a parent's children, each a product item of its own (so every product route reads,
 * updates and deletes it) with its sku and external_ref claims, and one `PCHILD#<parent>#<options>` index
 * item per child keyed by its combination of options (docs/child-products.md; layout in
 * lib/store/product-repository.ts).
 *
 * A child, its index item and its claims are written in one transaction, together with a check that the
 * parent exists, is not being deleted and still links the variations the build read, so a parent's delete
 * (which first marks it, then looks for children) and a build can never leave children of a deleted
 * parent, and a build never writes children of variations unlinked meanwhile. Several children share a
 * transaction (at most 100 items): a child whose claim is taken, or that was edited directly since it was
 * built (`detached`), is taken out of the batch and the rest written again.
 */

/** A child's index item: which child holds a combination, and what it claims. */
export interface ChildEntry {
  child_id: string;
  /** Option ids in the parent's variation link order. */
  options: string[];
  generation: number;
  sku?: string;
  external_ref?: string;
}

/** A child as a build writes it. */
export interface ChildWrite {
  id: string;
  options: string[];
  generation: number;
  attributes: ProductAttributes;
  child_variations: ChildVariation[];
  price_modifiers: string[];
  /** What the child of this combination claimed before, when it was built already. */
  previous?: ChildEntry;
}

/** The outcome of one child's write. */
export type ChildWriteOutcome = 'written' | 'detached' | 'sku-taken' | 'external-ref-taken';

/** The parent is gone, a delete of it is under way, or its variations changed: the build stops. */
export class ParentChangedError extends Error {
  override name = 'ParentChangedError';
}

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;
type Key = { pk: string; sk: string };

const TRANSACTION_ITEMS = 100;
/** Attribute bytes per transaction: under DynamoDB's 4 MB, with room for the rest of each item. */
export const TRANSACTION_BYTES = 3_000_000;
/** A child's bytes besides its attributes: keys, variations, index item and claims. */
const ITEM_OVERHEAD_BYTES = 4_000;
const ATTEMPTS = 8;
/** Transactions a build has in flight at once. */
const WRITERS = 4;

const indexQuery = (storeId: string, parentId: string): PagedQuery => ({
  TableName: tableName('products'),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ...skPrefix(productKeys.childPrefix(parentId)) },
  ConsistentRead: true,
});

const toEntry = (item: Record<string, unknown>): ChildEntry => ({
  child_id: item.child_id as string,
  options: item.options as string[],
  generation: item.generation as number,
  ...(item.sku === undefined ? {} : { sku: item.sku as string }),
  ...(item.external_ref === undefined ? {} : { external_ref: item.external_ref as string }),
});

/** The parent exists, no delete of it is under way, and its variations are those of the build's generation. */
const parentCheck = (storeId: string, parentId: string, generation: number) => ({
  ConditionCheck: {
    TableName: tableName('products'),
    Key: productKeys.product(storeId, parentId),
    ConditionExpression:
      'attribute_exists(pk) AND attribute_not_exists(deleting) AND variations_generation = :generation',
    ExpressionAttributeValues: { ':generation': generation },
  },
});

/** Takes a claim, unless another product holds it (the child's own claim is taken again as it is). */
const claimPut = (key: Key, productId: string, value: Record<string, string>) => ({
  Put: {
    TableName: tableName('products'),
    Item: { ...key, product_id: productId, ...value },
    ConditionExpression: 'attribute_not_exists(pk) OR product_id = :id',
    ExpressionAttributeValues: { ':id': productId },
  },
});
/** Frees a claim the child holds (nothing when it is gone or another's). */
const claimDelete = (key: Key, productId: string) => ({
  Delete: {
    TableName: tableName('products'),
    Key: key,
    ConditionExpression: 'attribute_not_exists(pk) OR product_id = :id',
    ExpressionAttributeValues: { ':id': productId },
  },
});

interface Planned {
  items: TransactItems;
  /** Index in the transaction of the child's product write, its sku claim and its external_ref claim. */
  product: number;
  sku?: number;
  externalRef?: number;
}

/** The claim keys a child's write touches (a transaction may touch each item once). */
function claimKeys(storeId: string, child: ChildWrite): string[] {
  const keys: string[] = [];
  const { sku, external_ref } = child.attributes;
  const before = child.previous;
  if (sku !== undefined) keys.push(productKeys.sku(storeId, sku).pk);
  if (before?.sku !== undefined && !sameSku(before.sku, sku))
    keys.push(productKeys.sku(storeId, before.sku).pk);
  if (external_ref !== undefined) keys.push(productKeys.externalRef(storeId, external_ref).pk);
  if (before?.external_ref !== undefined && before.external_ref !== external_ref) {
    keys.push(productKeys.externalRef(storeId, before.external_ref).pk);
  }
  return keys;
}

function plan(storeId: string, parentId: string, child: ChildWrite, from: number, at: string): Planned {
  const table = tableName('products');
  const { sku, external_ref } = child.attributes;
  const items: TransactItems = [
    {
      Update: {
        TableName: table,
        Key: productKeys.product(storeId, child.id),
        UpdateExpression:
          'SET id = :id, attributes = :attributes, created_at = if_not_exists(created_at, :at), updated_at = :at, ' +
          'parent_id = :parent, child_options = :options, child_generation = :generation, ' +
          'child_variations = :variations, price_modifiers = :prices ADD version :one',
        ConditionExpression:
          'attribute_not_exists(pk) OR (parent_id = :parent AND attribute_not_exists(detached))',
        ExpressionAttributeValues: {
          ':id': child.id,
          ':attributes': JSON.stringify(child.attributes),
          ':at': at,
          ':parent': parentId,
          ':options': child.options,
          ':generation': child.generation,
          ':variations': child.child_variations,
          ':prices': child.price_modifiers,
          ':one': 1,
        },
      },
    },
    {
      Put: {
        TableName: table,
        Item: {
          ...productKeys.child(storeId, parentId, child.options),
          child_id: child.id,
          options: child.options,
          generation: child.generation,
          ...(sku === undefined ? {} : { sku }),
          ...(external_ref === undefined ? {} : { external_ref }),
        },
      },
    },
  ];
  const planned: Planned = { items, product: from };
  const before = child.previous;
  if (sku !== undefined) {
    planned.sku = from + items.length;
    items.push(claimPut(productKeys.sku(storeId, sku), child.id, { sku }));
  }
  if (before?.sku !== undefined && !sameSku(before.sku, sku)) {
    items.push(claimDelete(productKeys.sku(storeId, before.sku), child.id));
  }
  if (external_ref !== undefined) {
    planned.externalRef = from + items.length;
    items.push(claimPut(productKeys.externalRef(storeId, external_ref), child.id, { external_ref }));
  }
  if (before?.external_ref !== undefined && before.external_ref !== external_ref) {
    items.push(claimDelete(productKeys.externalRef(storeId, before.external_ref), child.id));
  }
  return planned;
}

/** Runs one transaction: undefined when it applied, else its cancellation codes. */
async function run(items: TransactItems): Promise<string[] | undefined> {
  try {
    await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
    return undefined;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    return codes;
  }
}

/**
 * Splits children into batches that fit one transaction (the parent's check plus each child's items, at most
 * 100 items and TRANSACTION_BYTES of attributes: DynamoDB takes 4 MB a transaction) and touch no claim twice.
 */
export function transactionBatches(
  storeId: string,
  children: ChildWrite[],
  itemsOf: (child: ChildWrite) => number,
): ChildWrite[][] {
  const result: ChildWrite[][] = [];
  let batch: ChildWrite[] = [];
  let items = 1;
  let bytes = 0;
  let keys = new Set<string>();
  for (const child of children) {
    const own = claimKeys(storeId, child);
    const count = itemsOf(child);
    const weight = Buffer.byteLength(JSON.stringify(child.attributes)) + ITEM_OVERHEAD_BYTES;
    const full = items + count > TRANSACTION_ITEMS || bytes + weight > TRANSACTION_BYTES;
    if (batch.length > 0 && (full || own.some((key) => keys.has(key)))) {
      result.push(batch);
      batch = [];
      items = 1;
      bytes = 0;
      keys = new Set();
    }
    batch.push(child);
    items += count;
    bytes += weight;
    for (const key of own) keys.add(key);
  }
  if (batch.length > 0) result.push(batch);
  return result;
}

export const childRepository = {
  /** Every index entry of the parent, in combination order. */
  async entries(storeId: string, parentId: string): Promise<ChildEntry[]> {
    return (await queryAll(indexQuery(storeId, parentId))).map(toEntry);
  },

  /** One page of the parent's children (index entries, in combination order) and how many it has. */
  async page(
    storeId: string,
    parentId: string,
    page: { limit: number; offset: number },
  ): Promise<{ entries: ChildEntry[]; total: number }> {
    const [total, items] = await Promise.all([
      countItems(indexQuery(storeId, parentId)),
      queryPage(indexQuery(storeId, parentId), page),
    ]);
    return { entries: items.map(toEntry), total };
  },

  /** True when the parent has a child (detached or not). */
  async hasChildren(storeId: string, parentId: string): Promise<boolean> {
    return (await queryPage(indexQuery(storeId, parentId), { limit: 1, offset: 0 })).length > 0;
  },

  /**
   * Writes the children of the parent's variations `generation` (creating or rewriting each, keeping its
   * `created_at`), in transactions of up to 100 items; the outcome of each by id. ParentChangedError when
   * the parent is gone, being deleted, or its variations changed since.
   */
  async write(
    storeId: string,
    parentId: string,
    generation: number,
    children: ChildWrite[],
  ): Promise<Map<string, ChildWriteOutcome>> {
    const outcomes = new Map<string, ChildWriteOutcome>();
    const at = new Date().toISOString();
    const itemsOf = (child: ChildWrite) => plan(storeId, parentId, child, 0, at).items.length;
    const queue = transactionBatches(storeId, children, itemsOf);
    await settleWorkers(WRITERS, async (stop) => {
      for (let batch = queue.shift(); batch !== undefined && !stop.failed; batch = queue.shift()) {
        await writeBatch(batch);
      }
    });
    return outcomes;

    async function writeBatch(batch: ChildWrite[]): Promise<void> {
      let pending = batch;
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        const items: TransactItems = [parentCheck(storeId, parentId, generation)];
        const plans = pending.map((child) => {
          const planned = plan(storeId, parentId, child, items.length, at);
          items.push(...planned.items);
          return planned;
        });
        const codes = await run(items);
        if (codes === undefined) {
          for (const child of pending) outcomes.set(child.id, 'written');
          return;
        }
        if (codes[0] === 'ConditionalCheckFailed') throw new ParentChangedError();
        const refused = (index: number | undefined) =>
          index !== undefined && codes[index] === 'ConditionalCheckFailed';
        const next: ChildWrite[] = [];
        pending.forEach((child, index) => {
          const planned = plans[index] as Planned;
          if (refused(planned.product)) outcomes.set(child.id, 'detached');
          else if (refused(planned.sku)) outcomes.set(child.id, 'sku-taken');
          else if (refused(planned.externalRef)) outcomes.set(child.id, 'external-ref-taken');
          else next.push(child);
        });
        if (next.length === pending.length) {
          // Only lost to concurrent transactions: try again after a while.
          if (attempt >= ATTEMPTS) throw new ProductWriteConflictError();
          await backoff(attempt);
        }
        pending = next;
      }
    }
  },

  /**
   * Deletes the children of these entries with their claims and index items, in transactions of up to 100
   * items; a child edited directly (`detached`) is left as it is. The ids of those left.
   */
  async remove(storeId: string, parentId: string, entries: ChildEntry[]): Promise<Set<string>> {
    const table = tableName('products');
    const kept = new Set<string>();
    const itemsOf = (entry: ChildEntry) => {
      const items: TransactItems = [
        {
          Delete: {
            TableName: table,
            Key: productKeys.product(storeId, entry.child_id),
            ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(detached)',
          },
        },
        { Delete: { TableName: table, Key: productKeys.child(storeId, parentId, entry.options) } },
      ];
      if (entry.sku !== undefined)
        items.push(claimDelete(productKeys.sku(storeId, entry.sku), entry.child_id));
      if (entry.external_ref !== undefined) {
        items.push(claimDelete(productKeys.externalRef(storeId, entry.external_ref), entry.child_id));
      }
      return items;
    };
    let batch: ChildEntry[] = [];
    const flush = async () => {
      let pending = batch;
      batch = [];
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        const starts: number[] = [];
        const items: TransactItems = [];
        for (const entry of pending) {
          starts.push(items.length);
          items.push(...itemsOf(entry));
        }
        const codes = await run(items);
        if (codes === undefined) return;
        const next = pending.filter((entry, index) => {
          if (codes[starts[index] as number] !== 'ConditionalCheckFailed') return true;
          kept.add(entry.child_id);
          return false;
        });
        if (next.length === pending.length) {
          if (attempt >= ATTEMPTS) throw new ProductWriteConflictError();
          await backoff(attempt);
        }
        pending = next;
      }
    };
    let count = 0;
    for (const entry of entries) {
      const items = itemsOf(entry).length;
      if (count + items > TRANSACTION_ITEMS) {
        await flush();
        count = 0;
      }
      batch.push(entry);
      count += items;
    }
    await flush();
    return kept;
  },
};
