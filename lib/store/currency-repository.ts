import type { transactAsCaller, WriteCaller } from './caller-check';
import { queryAll, withoutKeys } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';
import { movedClaim, rereadingWrites, transactRetrying } from './transact-retrying';

/**
 * A store's currencies (`/v2/currencies`, docs/currencies.md), in the products table, all in the store's
 * partition:
 *
 * - `STORE#<store>` / `CURRENCY#<currency>`: a currency (about 300 bytes). Ids are UUIDv7, so the sort key
 *   orders them by creation, the list's order. `version` grows with every write, the condition of the next.
 * - `STORE#<store>` / `CURRENCY_CODE#<code in lower case>`: the claim of a code (`currency_id`), written in
 *   the same transaction as the currency that takes it and deleted with it: two currencies of one code can
 *   never both commit, whatever runs concurrently, and `usd` and `USD` claim the same item.
 * - `STORE#<store>` / `CURRENCY_STATE`: how many currencies the store has (`currency_count`, conditioned on
 *   MAX_CURRENCIES_PER_STORE) and which one is the default (`default_id`). Every creation and deletion moves
 *   it and every change of the default sets it, in the transaction of the currency: the store has exactly
 *   one default from its first currency on, and the default is never deleted or disabled.
 *
 * Reads query `sk` under the prefix `CURRENCY` (key-prefix.ts): the store's at most 10 currencies, their 10 claims and the state,
 * 21 small items, about 8 KB (2 read units, one round trip), for the list and for one currency alike. No
 * other item of the table has a sort key starting `CURRENCY`.
 */
export interface CurrencyRecord {
  id: string;
  code: string;
  exchange_rate: number;
  format: string;
  decimal_point: string;
  thousand_separator: string;
  decimal_places: number;
  enabled: boolean;
  created_at: string;
  updated_at: string;
  version: number;
}

/** A currency as read: its record and whether it is the store's default. */
export type Currency = Omit<CurrencyRecord, 'version'> & { default: boolean; version: number };

/** Currencies a store may have: the platform's limit. */
export const MAX_CURRENCIES_PER_STORE = 10;

export class CurrencyNotFoundError extends Error {
  override name = 'CurrencyNotFoundError';
}
/** Another currency of the store has the code (compared without regard to case). */
export class CurrencyCodeTakenError extends Error {
  override name = 'CurrencyCodeTakenError';
  constructor(readonly code: string) {
    super(`the store already has a currency with code ${code}`);
  }
}
export class CurrencyLimitError extends Error {
  override name = 'CurrencyLimitError';
}
/** The write would leave the store without an enabled default, or delete the default. */
export class CurrencyDefaultError extends Error {
  override name = 'CurrencyDefaultError';
  constructor(readonly rule: 'first-disabled' | 'delete-default' | 'unset-default' | 'disable-default') {
    super(rule);
  }
}
/** Concurrent writes kept conflicting: nothing was written. */
export class CurrencyWriteConflictError extends Error {
  override name = 'CurrencyWriteConflictError';
}

const PK = (storeId: string) => `STORE#${storeId}`;
const CURRENCY_PREFIX = 'CURRENCY#';
const CODE_PREFIX = 'CURRENCY_CODE#';
export const currencyKeys = {
  currency: (storeId: string, id: string) => ({ pk: PK(storeId), sk: `${CURRENCY_PREFIX}${id}` }),
  code: (storeId: string, code: string) => ({ pk: PK(storeId), sk: `${CODE_PREFIX}${code.toLowerCase()}` }),
  state: (storeId: string) => ({ pk: PK(storeId), sk: 'CURRENCY_STATE' }),
};

const conflicts = (codes: string[]) => new CurrencyWriteConflictError(`conflicts: ${codes.join(', ')}`);
const keptChanging = () => new CurrencyWriteConflictError('the currency kept changing');

/** What the store's items say: its currencies in creation order, the default's id. */
interface CurrencyState {
  currencies: Currency[];
  defaultId: string | undefined;
}

async function readState(storeId: string): Promise<CurrencyState> {
  const items = await queryAll({
    TableName: tableName('products'),
    KeyConditionExpression: SK_PREFIX_CONDITION,
    ExpressionAttributeValues: { ':pk': PK(storeId), ...skPrefix('CURRENCY') },
    ConsistentRead: true,
  });
  const state = items.find((item) => item.sk === 'CURRENCY_STATE');
  const defaultId = state?.default_id as string | undefined;
  const currencies = items
    .filter((item) => (item.sk as string).startsWith(CURRENCY_PREFIX))
    .map((item) => {
      const record = withoutKeys(item) as unknown as CurrencyRecord;
      return { ...record, default: record.id === defaultId };
    });
  return { currencies, defaultId };
}

const TABLE = () => tableName('products');

/** The fields a write stores (all but the keys, `version` and `default`). */
type Stored = Omit<CurrencyRecord, 'version'>;

export const currencyRepository = {
  /** The store's currencies, oldest first, each marked `default` or not. */
  async list(storeId: string): Promise<Currency[]> {
    return (await readState(storeId)).currencies;
  },

  async get(storeId: string, id: string): Promise<Currency | undefined> {
    return (await readState(storeId)).currencies.find((currency) => currency.id === id);
  },

  /**
   * Creates a currency in one transaction with its code's claim and the store's count: CurrencyCodeTakenError,
   * CurrencyLimitError (MAX_CURRENCIES_PER_STORE), CurrencyDefaultError('first-disabled') when it would be
   * the store's first (so its default) but is disabled. The first currency is the default whatever
   * `makeDefault` says; `makeDefault` makes a later one the default, unsetting the previous one.
   */
  async create(storeId: string, record: Stored, makeDefault: boolean, caller?: WriteCaller): Promise<void> {
    const conditions = ['(attribute_not_exists(currency_count) OR currency_count < :max)'];
    // A disabled currency can only join a store that already has its (enabled) default.
    if (!record.enabled) conditions.push('attribute_exists(default_id)');
    const codes = await transactRetrying(
      [
        {
          Put: {
            TableName: TABLE(),
            Item: { ...currencyKeys.currency(storeId, record.id), ...record, version: 1 },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: TABLE(),
            Item: { ...currencyKeys.code(storeId, record.code), currency_id: record.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: TABLE(),
            Key: currencyKeys.state(storeId),
            UpdateExpression: makeDefault
              ? 'ADD currency_count :one SET default_id = :id'
              : 'ADD currency_count :one SET default_id = if_not_exists(default_id, :id)',
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeValues: { ':one': 1, ':max': MAX_CURRENCIES_PER_STORE, ':id': record.id },
          },
        },
      ],
      caller,
      conflicts,
    );
    if (codes === undefined) return;
    if (codes[1] === 'ConditionalCheckFailed') throw new CurrencyCodeTakenError(record.code);
    if (codes[2] === 'ConditionalCheckFailed') {
      const { currencies } = await readState(storeId);
      if (currencies.length >= MAX_CURRENCIES_PER_STORE) throw new CurrencyLimitError();
      if (!record.enabled && currencies.length === 0) throw new CurrencyDefaultError('first-disabled');
      // The store changed between the refusal and the read: the caller may try again.
      throw new CurrencyWriteConflictError('the store changed');
    }
    throw new Error(`the currency could not be created (${codes.join(', ')})`);
  },

  /**
   * Applies `changes` to a currency: re-read and retried while another write moved its `version`. A new code
   * moves the claim in the same transaction; `default: true` makes it the default (an enabled one only);
   * `default: false` on the default, and disabling it, are refused (CurrencyDefaultError), checked against
   * the state item in the same transaction.
   */
  async update(
    storeId: string,
    id: string,
    apply: (current: Currency) => { record: Stored; makeDefault: boolean; unsetDefault: boolean },
    caller?: WriteCaller,
  ): Promise<Currency> {
    return rereadingWrites(async () => {
      const current = await this.get(storeId, id);
      if (!current) throw new CurrencyNotFoundError();
      const { record, makeDefault, unsetDefault } = apply(current);
      if (unsetDefault && current.default) throw new CurrencyDefaultError('unset-default');
      if (!record.enabled && (current.default || makeDefault))
        throw new CurrencyDefaultError('disable-default');
      const { version: _v, default: _d, ...kept } = current;
      const items: Parameters<typeof transactAsCaller>[0] = [
        {
          Put: {
            TableName: TABLE(),
            Item: { ...currencyKeys.currency(storeId, id), ...kept, ...record, version: current.version + 1 },
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
      ];
      // Stays the default, or stays not the default, as read: the state item decides, in the transaction.
      items.push(
        makeDefault
          ? {
              Update: {
                TableName: TABLE(),
                Key: currencyKeys.state(storeId),
                UpdateExpression: 'SET default_id = :id',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':id': id },
              },
            }
          : {
              ConditionCheck: {
                TableName: TABLE(),
                Key: currencyKeys.state(storeId),
                ConditionExpression: current.default ? 'default_id = :id' : 'default_id <> :id',
                ExpressionAttributeValues: { ':id': id },
              },
            },
      );
      const codeMoves = record.code.toLowerCase() !== current.code.toLowerCase();
      if (codeMoves) {
        items.push(
          ...movedClaim(
            currencyKeys.code(storeId, record.code),
            currencyKeys.code(storeId, current.code),
            'currency_id',
            id,
          ),
        );
      }
      const codes = await transactRetrying(items, caller, conflicts);
      if (codes === undefined) {
        return { ...kept, ...record, version: current.version + 1, default: current.default || makeDefault };
      }
      // The currency changed or went since it was read: read it again before judging the code's claim (a
      // 404 once it is gone, whoever holds the code; a concurrent update of it may hold the code itself).
      if (codes[0] === 'ConditionalCheckFailed') return false;
      if (codeMoves && codes[2] === 'ConditionalCheckFailed') throw new CurrencyCodeTakenError(record.code);
      // The default changed since it was read: read again and re-apply.
      return false;
    }, keptChanging);
  },

  /**
   * Deletes a currency, its code's claim and its count, in one transaction that applies only while it is not
   * the default: CurrencyNotFoundError, CurrencyDefaultError('delete-default').
   */
  async delete(storeId: string, id: string, caller?: WriteCaller): Promise<void> {
    return rereadingWrites(async () => {
      const current = await this.get(storeId, id);
      if (!current) throw new CurrencyNotFoundError();
      if (current.default) throw new CurrencyDefaultError('delete-default');
      const codes = await transactRetrying(
        [
          {
            Delete: {
              TableName: TABLE(),
              Key: currencyKeys.currency(storeId, id),
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': current.version },
            },
          },
          {
            Delete: {
              TableName: TABLE(),
              Key: currencyKeys.code(storeId, current.code),
              ConditionExpression: 'currency_id = :id',
              ExpressionAttributeValues: { ':id': id },
            },
          },
          {
            Update: {
              TableName: TABLE(),
              Key: currencyKeys.state(storeId),
              UpdateExpression: 'ADD currency_count :minus',
              ConditionExpression: 'default_id <> :id',
              ExpressionAttributeValues: { ':minus': -1, ':id': id },
            },
          },
        ],
        caller,
        conflicts,
      );
      // Changed, deleted or made the default since it was read: read again.
      return codes === undefined ? undefined : false;
    }, keptChanging);
  },
};
