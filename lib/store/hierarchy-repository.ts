import { createHash } from 'node:crypto';
import type { HierarchyAttributes } from '../validation/hierarchy';
import { transactAsCaller, type WriteCaller } from './caller-check';
import type { TransactWriteCommand } from './dynamodb';
import { backoff, countItems, getRecord, queryPage } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';

/**
 * The hierarchies merchants author through the platform's hierarchy API (`/pcm/hierarchies`,
 * docs/hierarchies.md), in the products table beside the products and variations:
 *
 * - `STORE#<store>` / `HIERARCHY#<id>`: a hierarchy (`kind: "hierarchy"`): name, description, slug,
 *   locales, `created_at`, `updated_at` and a `version` every write moves. Updates and deletes are
 *   conditioned on the version they read, so a write never frees or moves a slug claim the hierarchy no
 *   longer holds, and two concurrent partial updates never lose each other's attributes (the later one
 *   reads again and re-applies its own).
 *   A delete first sets `deleting` (moving the version): from then on the hierarchy reads as gone (404, left out
 *   of lists), takes no new nodes, and keeps its slug until its nodes are deleted and it goes with its
 *   claim; a delete cut short is finished by the next DELETE of it (lib/hierarchies/service.ts).
 * - `PHSLUG#<store>#<sha256 of the slug in lower case>` / `CLAIM`: the hierarchy that holds a slug (its
 *   `hierarchy_id`). Slugs are unique per store without regard to case (a change of case alone keeps the
 *   claim); the hash bounds the key.
 *
 * A claim is written (`attribute_not_exists`) or freed in the same transaction as the hierarchy that takes
 * or gives it up, so two hierarchies can never hold one slug whatever runs concurrently, and a deleted
 * hierarchy's slug is free at once.
 *
 * Partitions and costs: a store's hierarchies share the store's partition key with its products and
 * variations (distinct sort key prefixes), so the list is one Query of `sk` under the prefix `HIERARCHY#` (key-prefix.ts) in
 * id order (ids are UUID v7: creation order) and its total a COUNT Query of the same range (read units grow
 * with the store's hierarchies; no items are transferred). A create, update or delete is one transaction of
 * at most three items (the hierarchy and up to two claims) plus the caller's checks. Each claim is a
 * partition of its own, so uniqueness checks add no load to the store's partition.
 */
export interface Hierarchy extends HierarchyAttributes {
  id: string;
  description: string;
  created_at: string;
  updated_at: string;
  version: number;
  /** Set when a delete began: the hierarchy reads as gone, takes no nodes, and a delete finishes it. */
  deleting?: boolean;
}

/** The slug belongs to another hierarchy of the store. */
export class HierarchySlugTakenError extends Error {
  override name = 'HierarchySlugTakenError';
}
/** The hierarchy is gone. */
export class HierarchyNotFoundError extends Error {
  override name = 'HierarchyNotFoundError';
}
/** The hierarchy changed since it was read (the caller reads it again). */
export class HierarchyChangedError extends Error {
  override name = 'HierarchyChangedError';
}

const PREFIX = 'HIERARCHY#';
const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const hierarchyKeys = {
  hierarchy: (storeId: string, hierarchyId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${PREFIX}${hierarchyId}`,
  }),
  slug: (storeId: string, slug: string) => ({
    pk: `PHSLUG#${storeId}#${hash(slug.toLowerCase())}`,
    sk: 'CLAIM',
  }),
};

/** True when two slugs are the same claim (they compare without regard to case). */
const sameSlug = (a: string | undefined, b: string | undefined) => a?.toLowerCase() === b?.toLowerCase();

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;

const ATTEMPTS = 8;

const hierarchiesQuery = (storeId: string) => ({
  TableName: tableName('products'),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  // A hierarchy being deleted is gone to every reader.
  FilterExpression: 'attribute_not_exists(deleting)',
  ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ...skPrefix(PREFIX) },
  ConsistentRead: true,
});

/** A hierarchy as stored, without its keys. */
export function toHierarchy(item: Record<string, unknown>): Hierarchy {
  const { pk: _pk, sk: _sk, kind: _kind, ...rest } = item;
  return rest as unknown as Hierarchy;
}

function claimPut(storeId: string, slug: string, hierarchyId: string) {
  return {
    Put: {
      TableName: tableName('products'),
      Item: { ...hierarchyKeys.slug(storeId, slug), hierarchy_id: hierarchyId, slug },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Frees a claim the hierarchy holds (conditioned on it holding it, so another's claim is never freed). */
function claimDelete(storeId: string, slug: string, hierarchyId: string) {
  return {
    Delete: {
      TableName: tableName('products'),
      Key: hierarchyKeys.slug(storeId, slug),
      ConditionExpression: 'hierarchy_id = :id',
      ExpressionAttributeValues: { ':id': hierarchyId },
    },
  };
}

/**
 * Runs the transaction, retrying while it only lost to concurrent transactions. A failed condition at 0
 * (the hierarchy) is HierarchyChangedError, whatever else failed; at `claimIndex` HierarchySlugTakenError.
 */
async function transact(items: TransactItems, claimIndex: number | undefined, caller?: WriteCaller) {
  for (let attempt = 1; ; attempt += 1) {
    const codes = await transactAsCaller(items, caller);
    if (codes === undefined) return;
    // The hierarchy itself first: one deleted or changed meanwhile is read again before its slug's claim
    // is judged (a 404 whoever holds the slug by then; the claim may be a concurrent update's of itself).
    if (codes[0] === 'ConditionalCheckFailed') throw new HierarchyChangedError();
    if (claimIndex !== undefined && codes[claimIndex] === 'ConditionalCheckFailed')
      throw new HierarchySlugTakenError();
    const conflictOnly = codes.every((code) => code === 'None' || code === 'TransactionConflict');
    if (!conflictOnly || attempt >= ATTEMPTS)
      throw new Error(`the hierarchy could not be written (${codes.join(', ')})`);
    await backoff(attempt);
  }
}

const versioned = (version: number) => ({
  ConditionExpression: 'attribute_exists(pk) AND version = :version',
  ExpressionAttributeValues: { ':version': version },
});

export const hierarchyRepository = {
  /** Creates the hierarchy with its slug claim: HierarchySlugTakenError when another holds the slug. */
  async create(storeId: string, hierarchy: Hierarchy, caller?: WriteCaller): Promise<void> {
    const items: TransactItems = [
      {
        Put: {
          TableName: tableName('products'),
          Item: { ...hierarchyKeys.hierarchy(storeId, hierarchy.id), kind: 'hierarchy', ...hierarchy },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    if (hierarchy.slug !== undefined) items.push(claimPut(storeId, hierarchy.slug, hierarchy.id));
    await transact(items, hierarchy.slug === undefined ? undefined : 1, caller);
  },

  /** The hierarchy (strongly consistent), or undefined. */
  get(storeId: string, hierarchyId: string): Promise<Hierarchy | undefined> {
    return getRecord<Record<string, unknown>>(
      'products',
      hierarchyKeys.hierarchy(storeId, hierarchyId),
      true,
    ).then((item) => (item ? toHierarchy(item) : undefined));
  },

  /** A page of the store's hierarchies in creation order, with the store's total. */
  async page(
    storeId: string,
    page: { limit: number; offset: number },
  ): Promise<{ hierarchies: Hierarchy[]; total: number }> {
    const [total, items] = await Promise.all([
      countItems(hierarchiesQuery(storeId)),
      queryPage(hierarchiesQuery(storeId), page),
    ]);
    return { hierarchies: items.map(toHierarchy), total };
  },

  /**
   * Replaces `before` (as read: its version) by `after`, moving the slug claim when the slug changed, in one
   * transaction. HierarchyChangedError when it changed (or went) since it was read, HierarchySlugTakenError.
   */
  async replace(storeId: string, before: Hierarchy, after: Hierarchy, caller?: WriteCaller): Promise<void> {
    const items: TransactItems = [
      {
        Put: {
          TableName: tableName('products'),
          Item: { ...hierarchyKeys.hierarchy(storeId, after.id), kind: 'hierarchy', ...after },
          ...versioned(before.version),
        },
      },
    ];
    let claimIndex: number | undefined;
    if (!sameSlug(before.slug, after.slug)) {
      if (before.slug !== undefined) items.push(claimDelete(storeId, before.slug, before.id));
      if (after.slug !== undefined) {
        claimIndex = items.length;
        items.push(claimPut(storeId, after.slug, after.id));
      }
    }
    await transact(items, claimIndex, caller);
  },

  /** Deletes the hierarchy as read (its version) and frees its slug: HierarchyChangedError when it changed. */
  async delete(storeId: string, hierarchy: Hierarchy, caller?: WriteCaller): Promise<void> {
    const items: TransactItems = [
      {
        Delete: {
          TableName: tableName('products'),
          Key: hierarchyKeys.hierarchy(storeId, hierarchy.id),
          ...versioned(hierarchy.version),
        },
      },
    ];
    if (hierarchy.slug !== undefined) items.push(claimDelete(storeId, hierarchy.slug, hierarchy.id));
    await transact(items, undefined, caller);
  },

  /** The hierarchy id holding the slug (any case), if any. */
  async idOfSlug(storeId: string, slug: string): Promise<string | undefined> {
    const claim = await getRecord<{ hierarchy_id: string }>(
      'products',
      hierarchyKeys.slug(storeId, slug),
      true,
    );
    return claim?.hierarchy_id;
  },
};
