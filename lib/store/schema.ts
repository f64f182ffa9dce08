import { getConfig } from '../config/index';

/**
 * The four tables share one key shape: a string partition key `pk` and sort key `sk`. Token items
 * carry a numeric `ttl` attribute (epoch seconds) that DynamoDB TTL removes. Only `lib/store` knows
 * the key layout below.
 */
export const TABLE_KEY = { partitionKey: 'pk', sortKey: 'sk' } as const;
export const TTL_ATTRIBUTE = 'ttl';

export type TableRole = 'keys' | 'mappings' | 'products' | 'limits';
export const TABLE_ROLES: readonly TableRole[] = ['keys', 'mappings', 'products', 'limits'];
/**
 * Tables whose items expire through DynamoDB TTL: tokens (keys), rate-limit windows and failure counters
 * (limits), webhook delivery logs (products).
 */
export const TTL_ROLES: readonly TableRole[] = ['keys', 'products', 'limits'];

/** The configured name of a table. */
export function tableName(role: TableRole): string {
  const config = getConfig();
  if (role === 'keys') return config.keysTable;
  if (role === 'mappings') return config.mappingsTable;
  if (role === 'limits') return config.limitsTable;
  return config.productsTable;
}

/** Keys of the items in the keys table. */
export const keysTable = {
  store: (storeId: string) => ({ pk: `STORE#${storeId}`, sk: 'STORE' }),
  applicationKey: (storeId: string, keyId: string) => ({ pk: `STORE#${storeId}`, sk: `KEY#${keyId}` }),
  applicationKeyPrefix: 'KEY#',
  client: (clientId: string) => ({ pk: `CLIENT#${clientId}`, sk: 'CLIENT' }),
  token: (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
};

/** Keys of the items in the mappings table. */
export const mappingsTable = {
  mapping: (mappingId: string) => ({ pk: `MAPPING#${mappingId}`, sk: 'MAPPING' }),
  /** Reservation of a prefix, compared case-insensitively. */
  prefix: (prefix: string) => ({ pk: `PREFIX#${prefix.toLowerCase()}`, sk: 'PREFIX' }),
};

/**
 * Keys of the items in the limits table: one item per store per one-second window holding what the
 * store's containers have taken from it (docs/rate-limits.md), and one per client id, source address and
 * minute counting failed credential checks of a known client id. Both carry `ttl`.
 */
export const limitsTable = {
  window: (storeId: string, window: number) => ({ pk: `STORE#${storeId}`, sk: `W#${window}` }),
  failures: (clientId: string, source: string, minute: number) => ({
    pk: `FAIL#${clientId}#${source}`,
    sk: `M#${minute}`,
  }),
};
