import { getConfig } from '../config/index';

/**
 * The three tables share one key shape: a string partition key `pk` and sort key `sk`. Token items
 * carry a numeric `ttl` attribute (epoch seconds) that DynamoDB TTL removes. Only `lib/store` knows
 * the key layout below.
 */
export const TABLE_KEY = { partitionKey: 'pk', sortKey: 'sk' } as const;
export const TTL_ATTRIBUTE = 'ttl';

export type TableRole = 'keys' | 'mappings' | 'products';
export const TABLE_ROLES: readonly TableRole[] = ['keys', 'mappings', 'products'];

/** The configured name of a table. */
export function tableName(role: TableRole): string {
  const config = getConfig();
  if (role === 'keys') return config.keysTable;
  if (role === 'mappings') return config.mappingsTable;
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
