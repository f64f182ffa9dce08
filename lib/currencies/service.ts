import { ApiError, BadRequestError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import type { WriteCaller } from '../store/caller-check';
import {
  type Currency,
  CurrencyCodeTakenError,
  CurrencyDefaultError,
  CurrencyLimitError,
  CurrencyNotFoundError,
  CurrencyWriteConflictError,
  currencyRepository,
  MAX_CURRENCIES_PER_STORE,
} from '../store/currency-repository';
import type { CurrencyFields } from '../validation/currency';

/**
 * The platform's currencies (docs/currencies.md): at most MAX_CURRENCIES_PER_STORE a store, codes unique
 * without regard to case, exactly one default (enabled, never deleted).
 */

const DEFAULT_RULES: Record<CurrencyDefaultError['rule'], [string, string]> = {
  'first-disabled': [
    "the store's first currency is its default, and the default currency must be enabled",
    'data.enabled',
  ],
  'disable-default': ['the default currency must be enabled', 'data.enabled'],
  'unset-default': [
    'a store has exactly one default currency: make another currency the default instead (default: true on it)',
    'data.default',
  ],
  'delete-default': [
    'the default currency cannot be deleted: make another currency the default first',
    'currency_id',
  ],
};

function defaultRuleError(rule: CurrencyDefaultError['rule']): ApiError {
  const [detail, source] = DEFAULT_RULES[rule];
  return new ApiError(422, detail, { source });
}

/** Runs a repository call, its refusals becoming the platform's answers. */
async function answered<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof CurrencyNotFoundError) throw new NotFoundError('currency not found');
    // The platform answers a duplicate code 400 "Currency already exists".
    if (error instanceof CurrencyCodeTakenError) {
      throw new BadRequestError(
        `Currency already exists: the store has a currency with code ${error.code.toUpperCase()} (codes compare without regard to case)`,
        'data.code',
      );
    }
    if (error instanceof CurrencyLimitError) {
      throw new ApiError(
        422,
        `Currency limit reached: a store has at most ${MAX_CURRENCIES_PER_STORE} currencies`,
      );
    }
    if (error instanceof CurrencyDefaultError) throw defaultRuleError(error.rule);
    if (error instanceof CurrencyWriteConflictError) throw new ConflictError(WRITE_CONFLICT);
    throw error;
  }
}

export async function currencyOf(storeId: string, currencyId: string): Promise<Currency> {
  const currency = await currencyRepository.get(storeId, currencyId);
  if (!currency) throw new NotFoundError('currency not found');
  return currency;
}

export async function createCurrency(
  storeId: string,
  fields: CurrencyFields,
  caller: WriteCaller,
): Promise<Currency> {
  const { default: makeDefault, ...rest } = fields;
  if (makeDefault && !rest.enabled) throw defaultRuleError('disable-default');
  const at = new Date().toISOString();
  const record = { id: uuidv7(), ...rest, created_at: at, updated_at: at };
  await answered(currencyRepository.create(storeId, record, makeDefault, caller));
  return currencyOf(storeId, record.id);
}

export function updateCurrency(
  storeId: string,
  currencyId: string,
  changes: Partial<CurrencyFields>,
  caller: WriteCaller,
): Promise<Currency> {
  const { default: wantsDefault, ...fields } = changes;
  // Nothing sent, nothing changed (not even updated_at).
  if (Object.keys(changes).length === 0) return currencyOf(storeId, currencyId);
  const at = new Date().toISOString();
  return answered(
    currencyRepository.update(
      storeId,
      currencyId,
      ({ version: _version, default: _default, ...current }) => ({
        record: { ...current, ...fields, updated_at: at },
        makeDefault: wantsDefault === true,
        unsetDefault: wantsDefault === false,
      }),
      caller,
    ),
  );
}

export function deleteCurrency(storeId: string, currencyId: string, caller: WriteCaller): Promise<void> {
  return answered(currencyRepository.delete(storeId, currencyId, caller));
}
