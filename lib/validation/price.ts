import { ApiError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { boundedText, compileSchema, type Schema, WELL_FORMED_TEXT } from '../schema/index';
import { attributesBodySchema, validDataOf } from './data-body';

/**
 * The bodies of a price book's prices (`product-price`) and price modifiers (`price-modifier`),
 * docs/price-books.md. The schema checks each value's shape; the rules a schema cannot say (map keys, how
 * many, tiers that start at one quantity, the sales' schedules, the size budget) are checked after it, each
 * a 422 whose `source` points at the value.
 */
export const PRICE_TYPE = 'product-price';
export const PRICE_MODIFIER_TYPE = 'price-modifier';
export const PRICE_SKU_MAX = 255;
export const PRICE_EXTERNAL_REF_MAX = 2048;
export const MODIFIER_NAME_MAX = 255;
/** Currencies in one `currencies` map (of a price, a sale or a modifier). */
export const MAX_CURRENCIES = 20;
/** Tiers of one currency. */
export const MAX_TIERS = 10;
/** Sales of one price. */
export const MAX_SALES = 10;
/** Bundle ids of one sale. */
export const MAX_BUNDLE_IDS = 20;
/** Keys of `admin_attributes` and of `shopper_attributes` (the platform's bound). */
export const MAX_ATTRIBUTE_KEYS = 100;
export const ATTRIBUTE_KEY_MAX = 128;
export const ATTRIBUTE_VALUE_MAX = 1024;
/** Tier and sale names. */
export const ENTRY_NAME_MAX = 64;
/** Largest amount, in minor units (within JavaScript's exact integers and DynamoDB's numbers). */
export const AMOUNT_MAX = 1_000_000_000_000;
/**
 * Most bytes a price's or a modifier's attributes may take as Lambda counts a response (the JSON text once
 * more escaped as a string): with its id, meta, links and its book's external_ref, a page of 100 stays
 * under Lambda's 6,291,556-byte response, and the item far under DynamoDB's 400 KB.
 */
export const PRICE_RESPONSE_BYTES_MAX = 40 * 1024;

const amount: Schema = {
  type: 'integer',
  minimum: 0,
  maximum: AMOUNT_MAX,
  'x-message': `must be an integer from 0 to ${AMOUNT_MAX} (minor units: cents)`,
};

const CURRENCY_AMOUNT: Schema = {
  type: 'object',
  required: ['amount'],
  additionalProperties: false,
  'x-message': 'must be an object of amount, includes_tax and tiers',
  properties: {
    amount,
    includes_tax: { type: 'boolean', 'x-message': 'must be true or false', default: false },
    tiers: {
      type: 'object',
      'x-message': 'must be an object of tier name to {minimum_quantity, amount}',
      additionalProperties: {
        type: 'object',
        required: ['minimum_quantity', 'amount'],
        additionalProperties: false,
        'x-message': 'must be an object of minimum_quantity and amount',
        properties: {
          minimum_quantity: {
            type: 'integer',
            minimum: 1,
            maximum: AMOUNT_MAX,
            'x-message': 'must be an integer of at least 1',
          },
          amount,
        },
      },
    },
  },
};

const CURRENCIES: Schema = {
  type: 'object',
  'x-message': 'must be an object of currency code to {amount, includes_tax, tiers}',
  description: `At most ${MAX_CURRENCIES} currencies, each an ISO 4217 code of 3 capital letters.`,
  additionalProperties: CURRENCY_AMOUNT,
  examples: [{ USD: { amount: 1999, includes_tax: false } }],
};

const timestamp: Schema = {
  type: 'string',
  maxLength: 64,
  'x-message': 'must be a date and time (RFC 3339, such as 2026-01-01T00:00:00Z)',
};

const SALE: Schema = {
  type: 'object',
  required: ['currencies'],
  additionalProperties: false,
  'x-message': 'must be an object of bundle_ids, schedule and currencies',
  properties: {
    bundle_ids: {
      type: 'array',
      maxItems: MAX_BUNDLE_IDS,
      items: { type: 'string', maxLength: 64, 'x-message': 'must be a bundle product id' },
      'x-message': `must be a list of at most ${MAX_BUNDLE_IDS} bundle product ids`,
    },
    schedule: {
      type: 'object',
      additionalProperties: false,
      'x-message': 'must be an object of valid_from and valid_to',
      properties: { valid_from: timestamp, valid_to: timestamp },
    },
    currencies: CURRENCIES,
  },
};

const attributeMap = (what: string): Schema => ({
  type: 'object',
  'x-message': `must be an object of at most ${MAX_ATTRIBUTE_KEYS} string values`,
  description: what,
  additionalProperties: boundedText(ATTRIBUTE_VALUE_MAX, 'A value.'),
});

const PRICE_ATTRIBUTES: Record<string, Schema> = {
  sku: {
    type: 'string',
    minLength: 1,
    maxLength: PRICE_SKU_MAX,
    pattern: `^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$`,
    'x-message': `must be a string of 1 to ${PRICE_SKU_MAX} characters, not only spaces`,
    description:
      'The product sku the price is for: one price per sku in a book (compared without regard to case).',
    examples: ['TEE-RED-M'],
  },
  currencies: CURRENCIES,
  sales: {
    type: 'object',
    'x-message': 'must be an object of sale name to {bundle_ids, schedule, currencies}',
    additionalProperties: SALE,
  },
  external_ref: boundedText(PRICE_EXTERNAL_REF_MAX, 'Your own reference for the price.'),
  admin_attributes: attributeMap('Strings for your own tools; never shown in catalogs.'),
  shopper_attributes: attributeMap('Strings shown with the price in catalogs.'),
};

const MODIFIER_ATTRIBUTES: Record<string, Schema> = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: MODIFIER_NAME_MAX,
    pattern: `^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$`,
    'x-message': `must be a string of 1 to ${MODIFIER_NAME_MAX} characters, not only spaces`,
    description: "Unique in the book, compared exactly: what a variation option's `price` modifier names.",
    examples: ['large-size'],
  },
  modifier_type: {
    enum: ['price_increment', 'price_decrement', 'price_equals'],
    'x-message': 'must be price_increment, price_decrement or price_equals',
  },
  currencies: CURRENCIES,
  external_ref: boundedText(PRICE_EXTERNAL_REF_MAX, 'Your own reference for the modifier.'),
};

const body = attributesBodySchema;

export const NEW_PRICE_SCHEMA = body(PRICE_TYPE, PRICE_ATTRIBUTES, ['sku', 'currencies']);
export const PRICE_UPDATE_SCHEMA = body(PRICE_TYPE, PRICE_ATTRIBUTES, []);
export const NEW_PRICE_MODIFIER_SCHEMA = body(PRICE_MODIFIER_TYPE, MODIFIER_ATTRIBUTES, [
  'name',
  'modifier_type',
  'currencies',
]);
export const PRICE_MODIFIER_UPDATE_SCHEMA = body(PRICE_MODIFIER_TYPE, MODIFIER_ATTRIBUTES, []);

export interface Tier {
  minimum_quantity: number;
  amount: number;
}
export interface CurrencyAmount {
  amount: number;
  includes_tax: boolean;
  tiers?: Record<string, Tier>;
}
export type Currencies = Record<string, CurrencyAmount>;
export interface Sale {
  bundle_ids?: string[];
  schedule?: { valid_from?: string; valid_to?: string };
  currencies: Currencies;
}
export interface PriceAttributes {
  sku?: string;
  currencies?: Currencies;
  sales?: Record<string, Sale>;
  external_ref?: string;
  admin_attributes?: Record<string, string>;
  shopper_attributes?: Record<string, string>;
}
export type ModifierType = 'price_increment' | 'price_decrement' | 'price_equals';
export interface PriceModifierAttributes {
  name?: string;
  modifier_type?: ModifierType;
  currencies?: Currencies;
  external_ref?: string;
}

const unprocessable = (detail: string, source: string) => new ApiError(422, detail, { source });

/** The JSON pointer-like source of a map's key (dots, as every other source here). */
const at = (path: string, key: string) => `${path}.${key}`;

const CURRENCY_CODE = /^[A-Z]{3}$/;
const ENTRY_NAME = new RegExp(`^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$`, 'u');
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function checkName(key: string, path: string, what: string): void {
  if (key.length === 0 || key.length > ENTRY_NAME_MAX || !ENTRY_NAME.test(key)) {
    throw unprocessable(
      `${what} names must be 1 to ${ENTRY_NAME_MAX} characters, not only spaces`,
      at(path, key),
    );
  }
}

/** Currency codes, how many, and tiers of one currency starting at distinct quantities; includes_tax defaulted. */
function checkCurrencies(currencies: Currencies, path: string): Currencies {
  const codes = Object.keys(currencies);
  if (codes.length > MAX_CURRENCIES) {
    throw unprocessable(`${path} may hold at most ${MAX_CURRENCIES} currencies`, path);
  }
  const checked: Currencies = {};
  for (const code of codes) {
    if (!CURRENCY_CODE.test(code)) {
      throw unprocessable(
        `${at(path, code)}: a currency code is 3 capital letters, such as USD`,
        at(path, code),
      );
    }
    const entry = currencies[code] as CurrencyAmount;
    const tiers = entry.tiers;
    if (tiers !== undefined) {
      const names = Object.keys(tiers);
      if (names.length > MAX_TIERS) {
        throw unprocessable(`a currency may have at most ${MAX_TIERS} tiers`, `${at(path, code)}.tiers`);
      }
      const starts = new Map<number, string>();
      for (const name of names) {
        checkName(name, `${at(path, code)}.tiers`, 'tier');
        const minimum = (tiers[name] as Tier).minimum_quantity;
        const other = starts.get(minimum);
        if (other !== undefined) {
          throw unprocessable(
            `tiers ${other} and ${name} both start at a minimum_quantity of ${minimum}`,
            `${at(path, code)}.tiers.${name}.minimum_quantity`,
          );
        }
        starts.set(minimum, name);
      }
    }
    checked[code] = { ...entry, includes_tax: entry.includes_tax ?? false };
  }
  return checked;
}

function checkSchedule(schedule: Sale['schedule'], path: string): void {
  if (schedule === undefined) return;
  for (const field of ['valid_from', 'valid_to'] as const) {
    const value = schedule[field];
    if (value !== undefined && (!RFC3339.test(value) || Number.isNaN(Date.parse(value)))) {
      throw unprocessable(`${path}.${field} must be a date and time (RFC 3339)`, `${path}.${field}`);
    }
  }
  const { valid_from, valid_to } = schedule;
  if (valid_from !== undefined && valid_to !== undefined && Date.parse(valid_from) >= Date.parse(valid_to)) {
    throw unprocessable('valid_from must be before valid_to', `${path}.valid_to`);
  }
}

/** The schedule's identity: two sales of one price may not share it. */
const scheduleKey = (schedule: Sale['schedule']) =>
  schedule === undefined || (schedule.valid_from === undefined && schedule.valid_to === undefined)
    ? 'none'
    : `${schedule.valid_from === undefined ? '' : Date.parse(schedule.valid_from)}/${
        schedule.valid_to === undefined ? '' : Date.parse(schedule.valid_to)
      }`;

/** The platform's rules on sales: distinct schedules; one sale without a schedule only when it is alone. */
function checkSales(sales: Record<string, Sale>, path: string): Record<string, Sale> {
  const names = Object.keys(sales);
  if (names.length > MAX_SALES) throw unprocessable(`a price may have at most ${MAX_SALES} sales`, path);
  const schedules = new Map<string, string>();
  const checked: Record<string, Sale> = {};
  for (const name of names) {
    checkName(name, path, 'sale');
    const sale = sales[name] as Sale;
    const salePath = at(path, name);
    checkSchedule(sale.schedule, `${salePath}.schedule`);
    const key = scheduleKey(sale.schedule);
    if (key === 'none' && names.length > 1) {
      throw unprocessable(
        'a sale without a schedule is permanent and must be the only sale: give every sale a schedule',
        `${salePath}.schedule`,
      );
    }
    const other = schedules.get(key);
    if (other !== undefined) {
      throw unprocessable(`sales ${other} and ${name} have the same schedule`, `${salePath}.schedule`);
    }
    schedules.set(key, name);
    for (const [index, id] of (sale.bundle_ids ?? []).entries()) {
      if (!isUuid(id))
        throw unprocessable('a bundle id is a product id (a UUID)', `${salePath}.bundle_ids.${index}`);
    }
    checked[name] = {
      ...sale,
      ...(sale.bundle_ids === undefined ? {} : { bundle_ids: sale.bundle_ids.map((id) => id.toLowerCase()) }),
      currencies: checkCurrencies(sale.currencies, `${salePath}.currencies`),
    };
  }
  return checked;
}

function checkAttributeMap(map: Record<string, string>, path: string): void {
  const keys = Object.keys(map);
  if (keys.length > MAX_ATTRIBUTE_KEYS) {
    throw unprocessable(`${path} may hold at most ${MAX_ATTRIBUTE_KEYS} keys`, path);
  }
  for (const key of keys) {
    if (key.length === 0 || key.length > ATTRIBUTE_KEY_MAX || !ENTRY_NAME.test(key)) {
      throw unprocessable(`keys are 1 to ${ATTRIBUTE_KEY_MAX} characters, not only spaces`, at(path, key));
    }
  }
}

/** Bytes a JSON value takes inside Lambda's serialized response (its text escaped once more). */
export function responseBytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 2;
}

/** 422 when the attributes (as they would be stored) are over PRICE_RESPONSE_BYTES_MAX. */
export function checkResponseBudget(attributes: object, what: string): void {
  const bytes = responseBytesOf(attributes);
  if (bytes > PRICE_RESPONSE_BYTES_MAX) {
    throw unprocessable(
      `the ${what} takes ${bytes} bytes, more than the ${PRICE_RESPONSE_BYTES_MAX} one may (so that a page of 100 fits a response): shorten its attributes`,
      'data.attributes',
    );
  }
}

/** The rules past the schema for a price's attributes (those sent), normalized (includes_tax defaulted). */
export function checkPriceAttributes(attributes: PriceAttributes, path = 'data.attributes'): PriceAttributes {
  const checked: PriceAttributes = { ...attributes };
  if (attributes.currencies !== undefined) {
    checked.currencies = checkCurrencies(attributes.currencies, `${path}.currencies`);
  }
  if (attributes.sales !== undefined) checked.sales = checkSales(attributes.sales, `${path}.sales`);
  for (const map of ['admin_attributes', 'shopper_attributes'] as const) {
    const value = attributes[map];
    if (value !== undefined) checkAttributeMap(value, `${path}.${map}`);
  }
  return checked;
}

type Data<A> = { id?: string; attributes: A };

const validators = {
  newPrice: compileSchema(NEW_PRICE_SCHEMA),
  priceUpdate: compileSchema(PRICE_UPDATE_SCHEMA),
  newModifier: compileSchema(NEW_PRICE_MODIFIER_SCHEMA),
  modifierUpdate: compileSchema(PRICE_MODIFIER_UPDATE_SCHEMA),
};

function idMatches(id: string | undefined, pathId: string): void {
  if (id !== undefined && id.toLowerCase() !== pathId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
}

export type NewPriceAttributes = PriceAttributes & { sku: string; currencies: Currencies };

export function parseNewPrice(input: unknown): NewPriceAttributes {
  const { attributes } = validDataOf<Data<PriceAttributes>>(validators.newPrice, input);
  return checkPriceAttributes(attributes) as NewPriceAttributes;
}

export function parsePriceUpdate(input: unknown, priceId: string): PriceAttributes {
  const { id, attributes } = validDataOf<Data<PriceAttributes>>(validators.priceUpdate, input);
  idMatches(id, priceId);
  return checkPriceAttributes(attributes);
}

export type NewPriceModifierAttributes = PriceModifierAttributes & {
  name: string;
  modifier_type: ModifierType;
  currencies: Currencies;
};

function checkModifierAttributes<A extends PriceModifierAttributes>(attributes: A): A {
  return attributes.currencies === undefined
    ? attributes
    : { ...attributes, currencies: checkCurrencies(attributes.currencies, 'data.attributes.currencies') };
}

export function parseNewPriceModifier(input: unknown): NewPriceModifierAttributes {
  const { attributes } = validDataOf<Data<NewPriceModifierAttributes>>(validators.newModifier, input);
  return checkModifierAttributes(attributes);
}

export function parsePriceModifierUpdate(input: unknown, modifierId: string): PriceModifierAttributes {
  const { id, attributes } = validDataOf<Data<PriceModifierAttributes>>(validators.modifierUpdate, input);
  idMatches(id, modifierId);
  return checkModifierAttributes(attributes);
}

/** A price or modifier id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseEntryId(raw: string, what: 'price' | 'price modifier'): string {
  if (!isUuid(raw)) throw new NotFoundError(`${what} not found`);
  return raw.toLowerCase();
}
