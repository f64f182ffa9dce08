import type { IntegrationEvent, IntegrationFields } from '../validation/integration';
import type { WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from './dynamodb';
import { getRecord, queryAll, withoutKeys } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { TTL_ATTRIBUTE, tableName } from './schema';
import { rereadingWrites, transactRetrying } from './transact-retrying';

/**
 * A store's webhook integrations (`/v2/integrations`, docs/webhooks.md) and their delivery logs, in the
 * products table:
 *
 * - `STORE#<store>` / `INTEGRATION#<id>`: an integration (at most a few KB). Ids are UUIDv7, so the sort key
 *   orders them by creation, the list's order; `version` grows with every write, the condition of the next.
 * - `STORE#<store>` / `INTEGRATION_STATE`: how many integrations the store has (`integration_count`),
 *   moved in the transaction of every creation and deletion and conditioned on MAX_INTEGRATIONS_PER_STORE.
 * - `INTEGRATION_LOGS#<store>#<integration>` / `LOG#<n>`: delivery attempt number n of the integration (n
 *   from its counter `LOG_COUNT`, zero-padded, so a descending query reads the newest first), expiring
 *   LOG_TTL_DAYS after it was written (the table's `ttl`). Writing attempt n deletes attempt n - MAX_LOGS_KEPT:
 *   an integration keeps at most MAX_LOGS_KEPT logs however busy it is, and a listing reads at most those.
 *
 * Emitting an event reads the store's integrations (one query of at most 26 small items).
 */
export interface IntegrationRecord extends IntegrationFields {
  id: string;
  /** The API origin the integration was last written through: the links of the payloads it is sent. */
  origin: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/** One delivery attempt, as logged. */
export interface IntegrationLogRecord {
  id: string;
  integration_id: string;
  /** The delivery (one event to one integration) the attempt belongs to: the event id it sent. */
  job_id: string;
  trigger: IntegrationEvent;
  succeeded: boolean;
  attempt: number;
  /** The endpoint's reply, cut to MAX_LOGGED_BODY characters. */
  body: string;
  status_code: number | null;
  error_detail: string;
  /** Milliseconds from the request's start to its end. */
  processing_time: number;
  created_at: string;
}

/** Integrations a store may have. */
export const MAX_INTEGRATIONS_PER_STORE = 25;
/** Days a log is kept. */
export const LOG_TTL_DAYS = 30;
/** Most logs one integration keeps (and a listing reads): the newest. */
export const MAX_LOGS_KEPT = 1000;

export class IntegrationNotFoundError extends Error {
  override name = 'IntegrationNotFoundError';
}
export class IntegrationLimitError extends Error {
  override name = 'IntegrationLimitError';
}
/** Concurrent writes kept conflicting: nothing was written. */
export class IntegrationWriteConflictError extends Error {
  override name = 'IntegrationWriteConflictError';
}

const PK = (storeId: string) => `STORE#${storeId}`;
const INTEGRATION_PREFIX = 'INTEGRATION#';
const LOG_PREFIX = 'LOG#';
export const integrationKeys = {
  integration: (storeId: string, id: string) => ({ pk: PK(storeId), sk: `${INTEGRATION_PREFIX}${id}` }),
  state: (storeId: string) => ({ pk: PK(storeId), sk: 'INTEGRATION_STATE' }),
  logs: (storeId: string, integrationId: string) => `INTEGRATION_LOGS#${storeId}#${integrationId}`,
  log: (storeId: string, integrationId: string, n: number) => ({
    pk: integrationKeys.logs(storeId, integrationId),
    sk: `${LOG_PREFIX}${String(n).padStart(12, '0')}`,
  }),
  logCount: (storeId: string, integrationId: string) => ({
    pk: integrationKeys.logs(storeId, integrationId),
    sk: 'LOG_COUNT',
  }),
};

const TABLE = () => tableName('products');
const conflicts = (codes: string[]) => new IntegrationWriteConflictError(`conflicts: ${codes.join(', ')}`);
const keptChanging = () => new IntegrationWriteConflictError('the integration kept changing');

type Stored = Omit<IntegrationRecord, 'version'>;

export const integrationRepository = {
  /** The store's integrations, oldest first. */
  async list(storeId: string): Promise<IntegrationRecord[]> {
    const items = await queryAll({
      TableName: TABLE(),
      KeyConditionExpression: SK_PREFIX_CONDITION,
      ExpressionAttributeValues: { ':pk': PK(storeId), ...skPrefix(INTEGRATION_PREFIX) },
      ConsistentRead: true,
    });
    return items.map((item) => withoutKeys(item) as unknown as IntegrationRecord);
  },

  get(storeId: string, id: string): Promise<IntegrationRecord | undefined> {
    return getRecord<IntegrationRecord>('products', integrationKeys.integration(storeId, id), true);
  },

  /** Creates an integration in one transaction with the store's count: IntegrationLimitError past the limit. */
  async create(storeId: string, record: Stored, caller?: WriteCaller): Promise<IntegrationRecord> {
    const item = { ...record, version: 1 };
    const codes = await transactRetrying(
      [
        {
          Put: {
            TableName: TABLE(),
            Item: { ...integrationKeys.integration(storeId, record.id), ...item },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: TABLE(),
            Key: integrationKeys.state(storeId),
            UpdateExpression: 'ADD integration_count :one',
            ConditionExpression: 'attribute_not_exists(integration_count) OR integration_count < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': MAX_INTEGRATIONS_PER_STORE },
          },
        },
      ],
      caller,
      conflicts,
    );
    if (codes === undefined) return item;
    if (codes[1] === 'ConditionalCheckFailed') throw new IntegrationLimitError();
    throw new Error(`the integration could not be created (${codes.join(', ')})`);
  },

  /** Applies `apply` to the integration as read, conditioned on its version (re-read and retried). */
  async update(
    storeId: string,
    id: string,
    apply: (current: IntegrationRecord) => Stored,
    caller?: WriteCaller,
  ): Promise<IntegrationRecord> {
    return rereadingWrites(async () => {
      const current = await this.get(storeId, id);
      if (!current) throw new IntegrationNotFoundError();
      const next = { ...apply(current), id, version: current.version + 1 };
      const codes = await transactRetrying(
        [
          {
            Put: {
              TableName: TABLE(),
              Item: { ...integrationKeys.integration(storeId, id), ...next },
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': current.version },
            },
          },
        ],
        caller,
        conflicts,
      );
      return codes === undefined ? next : false;
    }, keptChanging);
  },

  /** Deletes an integration and its count in one transaction: IntegrationNotFoundError when it is gone. */
  async delete(storeId: string, id: string, caller?: WriteCaller): Promise<IntegrationRecord> {
    return rereadingWrites(async () => {
      const current = await this.get(storeId, id);
      if (!current) throw new IntegrationNotFoundError();
      const codes = await transactRetrying(
        [
          {
            Delete: {
              TableName: TABLE(),
              Key: integrationKeys.integration(storeId, id),
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': current.version },
            },
          },
          {
            Update: {
              TableName: TABLE(),
              Key: integrationKeys.state(storeId),
              UpdateExpression: 'ADD integration_count :minus',
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        ],
        caller,
        conflicts,
      );
      return codes === undefined ? current : false;
    }, keptChanging);
  },

  /** Records one delivery attempt, kept LOG_TTL_DAYS, and lets go of the one MAX_LOGS_KEPT before it. */
  async putLog(storeId: string, log: IntegrationLogRecord): Promise<void> {
    const client = getDocumentClient();
    const counted = await client.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: integrationKeys.logCount(storeId, log.integration_id),
        UpdateExpression: 'ADD log_count :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const n = Number(counted.Attributes?.log_count);
    const ttl = Math.floor(Date.parse(log.created_at) / 1000) + LOG_TTL_DAYS * 86_400;
    await client.send(
      new PutCommand({
        TableName: TABLE(),
        Item: { ...integrationKeys.log(storeId, log.integration_id, n), ...log, [TTL_ATTRIBUTE]: ttl },
      }),
    );
    if (n > MAX_LOGS_KEPT) {
      await client.send(
        new DeleteCommand({
          TableName: TABLE(),
          Key: integrationKeys.log(storeId, log.integration_id, n - MAX_LOGS_KEPT),
        }),
      );
    }
  },

  /** An integration's logs, newest first, at most MAX_LOGS_KEPT (expired ones left out). */
  async listLogs(storeId: string, integrationId: string, now = Date.now()): Promise<IntegrationLogRecord[]> {
    const result = await getDocumentClient().send(
      new QueryCommand({
        TableName: TABLE(),
        KeyConditionExpression: SK_PREFIX_CONDITION,
        ExpressionAttributeValues: {
          ':pk': integrationKeys.logs(storeId, integrationId),
          ...skPrefix(LOG_PREFIX),
        },
        ScanIndexForward: false,
        Limit: MAX_LOGS_KEPT,
      }),
    );
    // DynamoDB removes expired items within days, not at once: an expired log is not shown meanwhile.
    const cutoff = Math.floor(now / 1000);
    return (result.Items ?? [])
      .filter((item) => typeof item[TTL_ATTRIBUTE] !== 'number' || (item[TTL_ATTRIBUTE] as number) > cutoff)
      .map((item) => {
        const { [TTL_ATTRIBUTE]: _ttl, ...rest } = withoutKeys(item);
        return rest as unknown as IntegrationLogRecord;
      });
  },
};
