import { type WriteCaller, withCallerChecks } from './caller-check';
import { getDocumentClient } from './client';
import { TransactWriteCommand } from './dynamodb';
import { getRecord } from './items';
import { mappingsTable, tableName } from './schema';
import { cancellationCodes, throttledCancellation } from './transactions';

/** A store's merchant realm mapping; `version` grows by one with every prefix change. */
export interface MappingRecord {
  id: string;
  store_id: string;
  realm_id: string;
  /** The prefix as the merchant last wrote it (case kept); null until first set. */
  prefix: string | null;
  version: number;
}

/** The item that reserves a prefix (case-insensitively) for one mapping. */
export interface PrefixReservation {
  /** The prefix in the case its holder wrote it. */
  prefix: string;
  mapping_id: string;
  store_id: string;
  claimed_at: string;
}

/**
 * How a prefix change ended: `changed`; `prefix-taken` (another mapping holds the prefix);
 * `stale` (the mapping changed since it was read); `contended` (a concurrent transaction touched the
 * same items); `throttled` (DynamoDB refused for capacity); `revoked` (the caller's token or key was gone).
 */
export type PrefixChangeOutcome =
  | 'changed'
  | 'prefix-taken'
  | 'stale'
  | 'contended'
  | 'throttled'
  | 'revoked';

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;

/** Index of each part of the prefix-change transaction, used to read its cancellation reasons. */
const MAPPING_ITEM = 0;
const CLAIM_ITEM = 1;
const RELEASE_ITEM = 2;

/**
 * The items of the transaction that moves `mapping` from its prefix (as read) to `prefix`: update the
 * mapping if its version is still the one read, claim the new prefix unless another mapping holds it,
 * and release the old prefix if it is ours. A case-only change (`Shop` -> `shop`) keeps the same
 * reservation key, so it rewrites the reservation instead of claiming one and deleting the other
 * (a transaction may touch an item only once).
 */
export function prefixChangeItems(mapping: MappingRecord, prefix: string, now = new Date()): TransactItems {
  const mappings = tableName('mappings');
  const newKey = mappingsTable.prefix(prefix);
  const reservation: PrefixReservation = {
    prefix,
    mapping_id: mapping.id,
    store_id: mapping.store_id,
    claimed_at: now.toISOString(),
  };
  const items: TransactItems = [
    {
      Update: {
        TableName: mappings,
        Key: mappingsTable.mapping(mapping.id),
        UpdateExpression: 'SET prefix = :prefix, version = :next',
        ConditionExpression: 'version = :read',
        ExpressionAttributeValues: {
          ':prefix': prefix,
          ':read': mapping.version,
          ':next': mapping.version + 1,
        },
      },
    },
    {
      Put: {
        TableName: mappings,
        Item: { ...newKey, ...reservation },
        ConditionExpression: 'attribute_not_exists(pk) OR mapping_id = :mapping',
        ExpressionAttributeValues: { ':mapping': mapping.id },
      },
    },
  ];
  if (mapping.prefix !== null) {
    const oldKey = mappingsTable.prefix(mapping.prefix);
    if (oldKey.pk !== newKey.pk) {
      items.push({
        Delete: {
          TableName: mappings,
          Key: oldKey,
          // Never release a reservation another mapping holds; a missing one has nothing to release.
          ConditionExpression: 'attribute_not_exists(pk) OR mapping_id = :mapping',
          ExpressionAttributeValues: { ':mapping': mapping.id },
        },
      });
    }
  }
  return items;
}

/**
 * Reads the outcome of a cancelled prefix-change transaction from its per-item reasons; undefined
 * when the reasons are none of the expected ones.
 */
export function prefixChangeOutcome(
  codes: string[],
): Exclude<PrefixChangeOutcome, 'changed' | 'revoked'> | undefined {
  // A stale version wins: after a re-read the same request may be a no-op or hold the prefix already.
  if (codes[MAPPING_ITEM] === 'ConditionalCheckFailed') return 'stale';
  if (codes[CLAIM_ITEM] === 'ConditionalCheckFailed') return 'prefix-taken';
  // The old reservation is held by another mapping: only a changed mapping explains that, so re-read.
  if (codes[RELEASE_ITEM] === 'ConditionalCheckFailed') return 'stale';
  if (codes.includes('TransactionConflict')) return 'contended';
  if (throttledCancellation(codes)) return 'throttled';
  return undefined;
}

/** Merchant realm mappings and their prefix reservations, in the mappings table. */
export const mappingRepository = {
  /** The mapping, or undefined when it does not exist. */
  get(mappingId: string, consistent = true): Promise<MappingRecord | undefined> {
    return getRecord<MappingRecord>('mappings', mappingsTable.mapping(mappingId), consistent);
  },

  /** Who holds a prefix (compared case-insensitively), or undefined when it is free. */
  getReservation(prefix: string): Promise<PrefixReservation | undefined> {
    return getRecord<PrefixReservation>('mappings', mappingsTable.prefix(prefix), true);
  },

  /**
   * Moves the mapping (as read, with its version) to `prefix` in one transaction, which with a `caller`
   * also checks the caller's token and key (`revoked` when gone: nothing written).
   */
  async changePrefix(
    mapping: MappingRecord,
    prefix: string,
    caller?: WriteCaller,
  ): Promise<PrefixChangeOutcome> {
    const change = prefixChangeItems(mapping, prefix);
    const { items, revoked } = withCallerChecks(change, caller);
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return 'changed';
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes && !throttledCancellation(codes) && revoked(codes)) return 'revoked';
      const outcome = codes && prefixChangeOutcome(codes.slice(0, change.length));
      if (!outcome) throw error;
      return outcome;
    }
  },
};
