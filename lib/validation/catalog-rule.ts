import { ApiError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { boundedText, compileSchema, type Schema } from '../schema/index';
import { validDataOf } from './data-body';

/**
 * The bodies of `/pcm/catalogs/rules` (docs/catalog-rules.md):
 * `{"data": {"type": "catalog_rule", "attributes": {…}}}`. Every list and string is bounded, so one rule
 * takes at most CATALOG_RULE_MAX_BYTES in the store's catalog registry (lib/catalog/registry-size.ts).
 */
export const CATALOG_RULE_TYPE = 'catalog_rule';
export const CATALOG_RULE_NAME_MAX = 64;
export const CATALOG_RULE_DESCRIPTION_MAX = 256;
/** At most this many channels, tags, account ids, customer ids and schedules a rule. */
export const CATALOG_RULE_LIST_MAX = 10;

/** What a request header carries: 1 to 64 printable ASCII characters, not only spaces. */
const headerValue = (what: string): Schema => ({
  type: 'string',
  maxLength: 64,
  pattern: '^[ -~]*[!-~][ -~]*$',
  'x-message': 'must be 1 to 64 printable ASCII characters, not only spaces',
  description: what,
});

const list = (item: Schema, what: string): Schema => ({
  type: 'array',
  maxItems: CATALOG_RULE_LIST_MAX,
  items: item,
  'x-message': `must be an array of at most ${CATALOG_RULE_LIST_MAX} items`,
  description: what,
});

const DATE_TIME_PATTERN =
  '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$';

const dateTime = (what: string): Schema => ({
  type: ['string', 'null'],
  format: 'date-time',
  pattern: DATE_TIME_PATTERN,
  'x-message': 'must be an ISO 8601 date-time with a time zone (2024-05-01T12:00:00Z), or null',
  description: what,
});

const ATTRIBUTES: Record<string, Schema> = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: CATALOG_RULE_NAME_MAX,
    pattern: '^[^\\s\\uD800-\\uDFFF]+$',
    'x-message': `must be a string of 1 to ${CATALOG_RULE_NAME_MAX} characters without spaces`,
    examples: ['summer-web'],
  },
  description: boundedText(CATALOG_RULE_DESCRIPTION_MAX, 'What the rule is for.'),
  catalog_id: {
    type: 'string',
    maxLength: 64,
    'x-message': 'must be the id of a catalog of the store',
    description: 'The catalog shoppers matching the rule are given (a catalog of the store).',
  },
  account_ids: list(
    headerValue('An account id.'),
    'Accounts the rule is for: matched only for a logged-in shopper, so such a rule never applies here.',
  ),
  customer_ids: list(
    headerValue('A customer id.'),
    'Customers the rule is for: matched only for a logged-in shopper, so such a rule never applies here.',
  ),
  channels: list(headerValue('A channel (the `EP-Channel` header).'), 'Channels the rule applies to.'),
  tags: list(headerValue('A context tag (the `EP-Context-Tag` header).'), 'Tags the rule applies to.'),
  schedules: list(
    {
      type: 'object',
      additionalProperties: false,
      'x-message': 'must be an object of only valid_from and valid_to',
      properties: {
        valid_from: dateTime('Start, inclusive (null or absent: open).'),
        valid_to: dateTime('End, exclusive (null or absent: open).'),
      },
    },
    'Time windows (UTC) the rule applies in; any one of them.',
  ),
};

const body = (required: string[], idRequired: boolean): Schema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  'x-message': 'must be an object with only `data`',
  properties: {
    data: {
      type: 'object',
      required: idRequired ? ['type', 'id', 'attributes'] : ['type', 'attributes'],
      additionalProperties: false,
      'x-message': idRequired
        ? 'must be an object with type, id and attributes'
        : 'must be an object with type and attributes',
      properties: {
        type: { const: CATALOG_RULE_TYPE, description: 'Always `catalog_rule`.' },
        ...(idRequired ? { id: { type: 'string', maxLength: 64, description: 'The id of the path.' } } : {}),
        attributes: {
          type: 'object',
          required,
          additionalProperties: false,
          'x-message':
            'must be an object of only name, description, catalog_id, account_ids, customer_ids, channels, tags, schedules',
          properties: ATTRIBUTES,
        },
      },
    },
  },
});

/** `POST /pcm/catalogs/rules`. */
export const NEW_CATALOG_RULE_SCHEMA = body(['name', 'catalog_id'], false);
/** `PUT /pcm/catalogs/rules/{catalog_rule_id}`: the attributes to change. */
export const CATALOG_RULE_UPDATE_SCHEMA = body([], true);

export interface RuleSchedule {
  valid_from: string | null;
  valid_to: string | null;
}

export interface CatalogRuleAttributes {
  name?: string;
  description?: string;
  catalog_id?: string;
  account_ids?: string[];
  customer_ids?: string[];
  channels?: string[];
  tags?: string[];
  schedules?: RuleSchedule[];
}

const validateNew = compileSchema(NEW_CATALOG_RULE_SCHEMA);
const validateUpdate = compileSchema(CATALOG_RULE_UPDATE_SCHEMA);

type Data = { id?: string; attributes: CatalogRuleAttributes & { schedules?: Partial<RuleSchedule>[] } };

/** The date part names a day of its month (`Date.parse` rolls 2026-02-30 over to March). */
function dayExists(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Times in UTC with milliseconds; a window whose start is not before its end is 422. */
function normalised(attributes: Data['attributes']): CatalogRuleAttributes {
  if (attributes.schedules === undefined) return attributes as CatalogRuleAttributes;
  const schedules = attributes.schedules.map((schedule, index) => {
    const at = (field: 'valid_from' | 'valid_to') => {
      const value = schedule[field];
      if (value === undefined || value === null) return null;
      const ms = Date.parse(value);
      if (Number.isNaN(ms) || !dayExists(value)) {
        throw new ApiError(422, `is not a date that exists: ${value}`, {
          source: `data.attributes.schedules[${index}].${field}`,
        });
      }
      return new Date(ms).toISOString();
    };
    const window = { valid_from: at('valid_from'), valid_to: at('valid_to') };
    if (window.valid_from !== null && window.valid_to !== null && window.valid_from >= window.valid_to) {
      throw new ApiError(422, 'must be later than valid_from', {
        source: `data.attributes.schedules[${index}].valid_to`,
      });
    }
    return window;
  });
  return { ...attributes, schedules } as CatalogRuleAttributes;
}

export function parseNewCatalogRule(
  input: unknown,
): CatalogRuleAttributes & { name: string; catalog_id: string } {
  return normalised(validDataOf<Data>(validateNew, input).attributes) as CatalogRuleAttributes & {
    name: string;
    catalog_id: string;
  };
}

export function parseCatalogRuleUpdate(input: unknown, ruleId: string): CatalogRuleAttributes {
  const { id, attributes } = validDataOf<Data>(validateUpdate, input);
  if (id?.toLowerCase() !== ruleId) throw new ConflictError('data.id must be the id of the path', 'data.id');
  return normalised(attributes);
}

/** A rule id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseCatalogRuleId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('catalog rule not found');
  return raw.toLowerCase();
}
