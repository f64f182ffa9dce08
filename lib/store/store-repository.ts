import { uuidv4, uuidv7 } from '../ids';
import { getDocumentClient } from './client';
import { TransactWriteCommand, UpdateCommand } from './dynamodb';
import { getRecord, withoutKeys } from './items';
import { keysTable, mappingsTable, tableName } from './schema';

/** How a currency is shown in `display_price`. */
export interface CurrencySettings {
  format: string;
  decimal_point: string;
  thousand_separator: string;
  decimal_places: number;
  default: boolean;
}

export interface StoreRecord {
  id: string;
  name: string;
  /** Requests per second the store may use; keys' reserved rate limits sum to at most this. */
  rate_limit: number;
  /** Default page size of the catalog list (1-100). */
  page_length: number;
  currencies: Record<string, CurrencySettings>;
  default_locale: string;
  /**
   * Whether catalog reads need the channel header (absent: true). False lets a request without one match
   * the catalog rules that name no channel.
   */
  channel_required?: boolean;
  mapping_id: string;
  /** Number of application keys, kept by the writes that add and remove keys. */
  key_count: number;
  /** Sum of the keys' reserved rate limits, kept by the same writes. */
  reserved_rate_limit_total: number;
  created_at: string;
  updated_at: string;
}

export const DEFAULT_CURRENCIES: Record<string, CurrencySettings> = {
  USD: { format: '${price}', decimal_point: '.', thousand_separator: ',', decimal_places: 2, default: true },
};

export interface NewStore {
  name: string;
  rate_limit?: number;
  page_length?: number;
  currencies?: Record<string, CurrencySettings>;
  default_locale?: string;
  /** Fixed ids for idempotent seeds; generated when absent. */
  id?: string;
  mapping_id?: string;
}

/** Stores live in the keys table; each store's merchant realm mapping lives in the mappings table. */
export const storeRepository = {
  /** Creates a store and its merchant realm mapping (prefix null) in one transaction. */
  async create(input: NewStore): Promise<StoreRecord> {
    const now = new Date().toISOString();
    const store: StoreRecord = {
      id: input.id ?? uuidv7(),
      name: input.name,
      rate_limit: input.rate_limit ?? 100,
      page_length: input.page_length ?? 25,
      currencies: input.currencies ?? DEFAULT_CURRENCIES,
      default_locale: input.default_locale ?? 'en-US',
      mapping_id: input.mapping_id ?? uuidv4(),
      key_count: 0,
      reserved_rate_limit_total: 0,
      created_at: now,
      updated_at: now,
    };
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName('keys'),
              Item: { ...keysTable.store(store.id), ...store },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName('mappings'),
              Item: {
                ...mappingsTable.mapping(store.mapping_id),
                id: store.mapping_id,
                store_id: store.id,
                realm_id: uuidv4(),
                prefix: null,
                version: 0,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return store;
  },

  /** The store, or undefined when it does not exist. */
  get(storeId: string, consistent = false): Promise<StoreRecord | undefined> {
    return getRecord<StoreRecord>('keys', keysTable.store(storeId), consistent);
  },

  /**
   * Sets the store's rate limit, unless its keys reserve more than the new limit together (the
   * reservation writes condition on the limit they read, so neither side can slip past the other).
   * `not-found` when there is no such store; `over-reserved` with the reserved total otherwise.
   */
  async setRateLimit(
    storeId: string,
    rateLimit: number,
  ): Promise<
    { ok: true; store: StoreRecord } | { ok: false; reason: 'not-found' | 'over-reserved'; reserved?: number }
  > {
    try {
      const result = await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('keys'),
          Key: keysTable.store(storeId),
          UpdateExpression: 'SET rate_limit = :limit, updated_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND reserved_rate_limit_total <= :limit',
          ExpressionAttributeValues: { ':limit': rateLimit, ':now': new Date().toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { ok: true, store: withoutKeys(result.Attributes ?? {}) as unknown as StoreRecord };
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const store = await this.get(storeId, true);
      return store
        ? { ok: false, reason: 'over-reserved', reserved: store.reserved_rate_limit_total }
        : { ok: false, reason: 'not-found' };
    }
  },

  /** Sets whether catalog reads need the channel header; undefined when there is no such store. */
  async setChannelRequired(storeId: string, required: boolean): Promise<StoreRecord | undefined> {
    try {
      const result = await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('keys'),
          Key: keysTable.store(storeId),
          UpdateExpression: 'SET channel_required = :required, updated_at = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':required': required, ':now': new Date().toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return withoutKeys(result.Attributes ?? {}) as unknown as StoreRecord;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      return undefined;
    }
  },

  /**
   * The transaction item that replaces the store's currency settings (a catalog publish whose release
   * document carries `currencies` sets them in the same transaction that activates the release).
   */
  currenciesUpdate(storeId: string, currencies: Record<string, CurrencySettings>) {
    return {
      Update: {
        TableName: tableName('keys'),
        Key: keysTable.store(storeId),
        UpdateExpression: 'SET currencies = :currencies, updated_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':currencies': currencies, ':now': new Date().toISOString() },
      },
    };
  },
};
