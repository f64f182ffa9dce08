import { pageParameterSchemas } from '../pagination/index';
import type { Schema } from '../schema/index';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Schema;
}

/** The document's tags, in the order the reference shows them; its title names each. */
export const OPERATION_TAGS = [
  'Authentication',
  'Application keys',
  'Merchant realm mappings',
  'Catalog',
  'Catalog publishing',
  'Catalog rules',
  'Files',
  'Currencies',
  'Products',
  'Variations',
  'Hierarchies',
  'Jobs',
  'Price books',
  'Integrations',
] as const;
export type OperationTag = (typeof OPERATION_TAGS)[number];

/** What the route table cannot say about an operation: its words, inputs and success responses. */
export interface OperationSpec {
  operationId: string;
  summary: string;
  description: string;
  tag: OperationTag;
  parameters?: Parameter[];
  requestBody?: Schema;
  /** The fields of a `multipart/form-data` body, for a route whose body kind takes one. */
  formBody?: Schema;
  /** The body may be left out (the release body). */
  requestBodyOptional?: boolean;
  /** Success and operation-specific statuses: status -> [description, body schema?, headers?]. */
  responses: Record<number, [string, Schema?, Record<string, HeaderSpec>?]>;
}

export interface HeaderSpec {
  description: string;
  schema: Schema;
  required?: boolean;
}

/** A path parameter naming one resource of the store: an unknown id or another store's answers 404. */
export function pathIdParameter(name: string, what: string): Parameter {
  return {
    name,
    in: 'path',
    required: true,
    description: `The ${what}. An unknown id or another store's answers 404.`,
    schema: { type: 'string' },
  };
}

/** A list response: `data` (items of `item`), `links` and `meta`. */
export function listDocumentSchema(item: Schema): Schema {
  return {
    type: 'object',
    required: ['data', 'links', 'meta'],
    properties: { data: { type: 'array', items: item }, links: { type: 'object' }, meta: { type: 'object' } },
  };
}

/** `page[limit]` and `page[offset]` of a list whose page length defaults to `defaultLimit`. */
export function pageParameters(defaultLimit: number): Parameter[] {
  const schemas = pageParameterSchemas({ defaultLimit });
  return [
    { name: 'page[limit]', in: 'query', schema: schemas.limit },
    { name: 'page[offset]', in: 'query', schema: schemas.offset },
  ];
}
