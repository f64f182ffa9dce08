import { ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { boundedText, compileSchema, type Schema, WELL_FORMED_TEXT } from '../schema/index';
import { attributesBodySchema, validDataOf } from './data-body';

/**
 * The bodies of `/pcm/pricebooks` (docs/price-books.md): `{"data": {"type": "pricebook", "attributes": {…}}}`.
 * Every string is bounded, so a price book is an item of at most about 17 KB and a page of 100 stays far
 * under Lambda's 6 MB response.
 */
export const PRICEBOOK_TYPE = 'pricebook';
export const PRICEBOOK_NAME_MAX = 255;
export const PRICEBOOK_DESCRIPTION_MAX = 2048;
export const PRICEBOOK_EXTERNAL_REF_MAX = 2048;

const ATTRIBUTES: Record<string, Schema> = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: PRICEBOOK_NAME_MAX,
    pattern: `^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$`,
    'x-message': `must be a string of 1 to ${PRICEBOOK_NAME_MAX} characters, not only spaces`,
    description: 'Unique in the store (compared exactly).',
    examples: ['Retail prices'],
  },
  description: boundedText(PRICEBOOK_DESCRIPTION_MAX, 'What the price book is for.'),
  external_ref: boundedText(PRICEBOOK_EXTERNAL_REF_MAX, 'Your own reference for the price book.'),
};

const body = (required: string[]) => attributesBodySchema(PRICEBOOK_TYPE, ATTRIBUTES, required);

/** `POST /pcm/pricebooks`. */
export const NEW_PRICEBOOK_SCHEMA = body(['name']);
/** `PUT /pcm/pricebooks/{pricebook_id}`: the attributes to change. */
export const PRICEBOOK_UPDATE_SCHEMA = body([]);

export interface PricebookAttributes {
  name?: string;
  description?: string;
  external_ref?: string;
}

const validateNew = compileSchema(NEW_PRICEBOOK_SCHEMA);
const validateUpdate = compileSchema(PRICEBOOK_UPDATE_SCHEMA);

type Data = { id?: string; attributes: PricebookAttributes };

export function parseNewPricebook(input: unknown): PricebookAttributes & { name: string } {
  return validDataOf<Data>(validateNew, input).attributes as PricebookAttributes & { name: string };
}

export function parsePricebookUpdate(input: unknown, pricebookId: string): PricebookAttributes {
  const { id, attributes } = validDataOf<Data>(validateUpdate, input);
  if (id !== undefined && id.toLowerCase() !== pricebookId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
  return attributes;
}

/** A price book id of a path: a UUID (anything else is 404, like an unknown id). */
export function parsePricebookId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('price book not found');
  return raw.toLowerCase();
}
