import { ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { compileSchema, type Schema, WELL_FORMED_TEXT } from '../schema/index';
import { validDataOf } from './data-body';

/**
 * The bodies of `/v2/currencies` (docs/currencies.md), in the platform's legacy flat format: the fields sit
 * directly under `data`, with no `attributes`. Every string is bounded, so a currency is an item of well
 * under a kilobyte and a store's ten fit any response.
 */
export const CURRENCY_TYPE = 'currency';
/** Longest `format`, in characters. */
export const CURRENCY_FORMAT_MAX = 64;
/** Longest `decimal_point` and `thousand_separator`, in characters. */
export const CURRENCY_SEPARATOR_MAX = 8;
/** Most `decimal_places` (ISO 4217 currencies use at most 4). */
export const CURRENCY_DECIMAL_PLACES_MAX = 8;
/** Smallest `exchange_rate` above 0. */
export const CURRENCY_EXCHANGE_RATE_MIN = 0.000_000_001;
/** Largest `exchange_rate`. */
export const CURRENCY_EXCHANGE_RATE_MAX = 1_000_000_000;
/** The placeholder a `format` must hold: where the amount goes. */
export const PRICE_PLACEHOLDER = '{price}';

const separator = (what: string, example: string): Schema => ({
  type: 'string',
  maxLength: CURRENCY_SEPARATOR_MAX,
  pattern: `^${WELL_FORMED_TEXT}$`,
  'x-message': `must be a string of at most ${CURRENCY_SEPARATOR_MAX} characters`,
  description: what,
  examples: [example],
});

const FIELDS: Record<string, Schema> = {
  type: { const: CURRENCY_TYPE, description: 'Always `currency`.' },
  code: {
    type: 'string',
    pattern: '^[A-Za-z]{3}$',
    'x-message': 'must be a currency code of exactly 3 letters, such as USD',
    description:
      'The ISO 4217 code, stored as sent; unique in the store without regard to case (`usd` and `USD` cannot both exist).',
    examples: ['USD'],
  },
  exchange_rate: {
    // DynamoDB stores numbers from 1e-130 on: a rate is 0 or at least CURRENCY_EXCHANGE_RATE_MIN.
    anyOf: [
      { const: 0 },
      { type: 'number', minimum: CURRENCY_EXCHANGE_RATE_MIN, maximum: CURRENCY_EXCHANGE_RATE_MAX },
    ],
    'x-message': `must be 0 or a number from ${CURRENCY_EXCHANGE_RATE_MIN} to ${CURRENCY_EXCHANGE_RATE_MAX}`,
    description:
      'The rate from the default currency. Recorded for display: prices are never converted with it.',
    examples: [1],
  },
  format: {
    type: 'string',
    minLength: 1,
    maxLength: CURRENCY_FORMAT_MAX,
    pattern: `^${WELL_FORMED_TEXT}\\{price\\}${WELL_FORMED_TEXT}$`,
    'x-message': `must be a string of at most ${CURRENCY_FORMAT_MAX} characters holding ${PRICE_PLACEHOLDER}`,
    description: `How an amount is shown: \`${PRICE_PLACEHOLDER}\` is replaced by it.`,
    examples: ['${price}'],
  },
  decimal_point: separator('The character between the whole and the fractional part.', '.'),
  thousand_separator: separator('The character between groups of thousands (may be empty).', ','),
  decimal_places: {
    type: 'integer',
    minimum: 0,
    maximum: CURRENCY_DECIMAL_PLACES_MAX,
    'x-message': `must be an integer from 0 to ${CURRENCY_DECIMAL_PLACES_MAX}`,
    description: 'Digits after the decimal point (0 for JPY).',
    examples: [2],
  },
  default: {
    type: 'boolean',
    'x-message': 'must be true or false',
    description:
      "Whether it is the store's default currency. A store has exactly one: its first currency, until another is made the default (which unsets the previous one).",
  },
  enabled: {
    type: 'boolean',
    'x-message': 'must be true or false',
    description: 'Whether shoppers may use it. The default currency must be enabled.',
  },
};

/** The fields a create sends, all of them. */
export const CURRENCY_REQUIRED = [
  'type',
  'code',
  'exchange_rate',
  'format',
  'decimal_point',
  'thousand_separator',
  'decimal_places',
  'default',
  'enabled',
];

const envelope = (data: Schema): Schema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  'x-message': 'must be an object with only `data`',
  properties: { data: data },
});

/** `POST /v2/currencies`: every field. */
export const NEW_CURRENCY_SCHEMA: Schema = envelope({
  type: 'object',
  required: CURRENCY_REQUIRED,
  additionalProperties: false,
  'x-message': `must be an object of only ${CURRENCY_REQUIRED.join(', ')}`,
  properties: FIELDS,
});

/** `PUT /v2/currencies/{currency_id}`: the fields to change; `type` and `id` may be sent. */
export const CURRENCY_UPDATE_SCHEMA: Schema = envelope({
  type: 'object',
  additionalProperties: false,
  'x-message': `must be an object of only id, ${CURRENCY_REQUIRED.join(', ')}`,
  properties: {
    id: { type: 'string', maxLength: 64, description: 'When sent, the id of the path.' },
    ...FIELDS,
  },
});

export interface CurrencyFields {
  code: string;
  exchange_rate: number;
  format: string;
  decimal_point: string;
  thousand_separator: string;
  decimal_places: number;
  default: boolean;
  enabled: boolean;
}

const validateNew = compileSchema(NEW_CURRENCY_SCHEMA);
const validateUpdate = compileSchema(CURRENCY_UPDATE_SCHEMA);

export function parseNewCurrency(input: unknown): CurrencyFields {
  const { type: _type, ...fields } = validDataOf<Record<string, unknown>>(validateNew, input);
  return fields as unknown as CurrencyFields;
}

export function parseCurrencyUpdate(input: unknown, currencyId: string): Partial<CurrencyFields> {
  const { type: _type, id, ...fields } = validDataOf<Record<string, unknown>>(validateUpdate, input);
  if (id !== undefined && (id as string).toLowerCase() !== currencyId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
  return fields as Partial<CurrencyFields>;
}

/** A currency id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseCurrencyId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('currency not found');
  return raw.toLowerCase();
}
