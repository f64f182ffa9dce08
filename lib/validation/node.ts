import { ApiError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import {
  assertValid,
  boundedText,
  compileSchema,
  dataEnvelope,
  nonBlankText,
  type Schema,
} from '../schema/index';
import {
  checkLocales,
  HIERARCHY_DESCRIPTION_MAX,
  HIERARCHY_NAME_MAX,
  LOCALES,
  slugSchema,
} from './hierarchy';

/**
 * The platform's node bodies (`/pcm/hierarchies/{hierarchy_id}/nodes…`, docs/hierarchies.md). Every string
 * is bounded and a node as stored is at most NODE_MAX_BYTES of JSON (so a page of 100 stays far below
 * Lambda's 6 MB response and each item far below DynamoDB's 400 KB).
 */
export const NODE_TYPE = 'node';
/** Bytes of a node's attributes as JSON, once an update is applied. */
export const NODE_MAX_BYTES = 32 * 1024;
/** The platform's bound on a node's curated products. */
export const CURATED_PRODUCTS_MAX = 20;
/** Products one attach or detach request names (each is a few items of one transaction). */
export const NODE_PRODUCTS_PER_REQUEST = 25;
/** Nodes one children relationship request names. */
export const NODE_CHILDREN_PER_REQUEST = 25;

const UUID_STRING: Schema = { type: 'string', minLength: 1, maxLength: 64 };
const SORT_ORDER: Schema = {
  type: 'integer',
  minimum: -2_147_483_648,
  maximum: 2_147_483_647,
  'x-message': 'must be an integer',
  description: 'Siblings list highest first; nodes without one after them, last updated first.',
};
const SLUG = slugSchema('Unique among the siblings of the node, compared without regard to case.', 'shirts');
const ATTRIBUTES: Record<string, Schema> = {
  name: {
    ...nonBlankText(HIERARCHY_NAME_MAX, 'Unique among the siblings (any case).'),
    examples: ['Shirts'],
  },
  description: boundedText(HIERARCHY_DESCRIPTION_MAX, 'A description of the node.'),
  slug: SLUG,
  curated_products: {
    type: 'array',
    maxItems: CURATED_PRODUCTS_MAX,
    items: UUID_STRING,
    'x-message': `must be an array of at most ${CURATED_PRODUCTS_MAX} product ids`,
    description: `Product ids already attached to the node, listed first; at most ${CURATED_PRODUCTS_MAX}.`,
  },
  locales: LOCALES,
};
const TYPED_ID = (type: string): Schema => ({
  type: 'object',
  required: ['type', 'id'],
  additionalProperties: false,
  'x-message': `must be an object of type (${type}) and id`,
  properties: { type: { const: type }, id: UUID_STRING },
});
const PARENT: Schema = {
  type: 'object',
  required: ['parent'],
  additionalProperties: false,
  'x-message': 'must be an object of only parent',
  properties: {
    parent: {
      type: 'object',
      required: ['data'],
      additionalProperties: false,
      'x-message': 'must be an object of only data',
      properties: { data: TYPED_ID(NODE_TYPE) },
    },
  },
  description: 'The parent node at creation (absent: a child of the hierarchy itself).',
};
const META: Schema = {
  type: 'object',
  additionalProperties: false,
  'x-message': 'must be an object of only sort_order',
  properties: { sort_order: SORT_ORDER },
};

const nodeBody = (required: string[], attributesRequired: string[]): Schema =>
  dataEnvelope({
    type: 'object',
    required: ['type', ...required],
    additionalProperties: false,
    'x-message': 'must be an object of type, id, attributes, relationships and meta',
    properties: {
      type: { const: NODE_TYPE, description: `Always \`${NODE_TYPE}\`.` },
      ...(required.includes('id')
        ? { id: { type: 'string', maxLength: 64, description: 'The id of the path.' } }
        : { relationships: PARENT }),
      attributes: {
        type: 'object',
        required: attributesRequired,
        properties: ATTRIBUTES,
        additionalProperties: false,
        'x-message': `must be an object of only ${Object.keys(ATTRIBUTES).join(', ')}`,
      },
      meta: META,
    },
  });

/** `POST /pcm/hierarchies/{hierarchy_id}/nodes`. */
export const NEW_NODE_SCHEMA = nodeBody(['attributes'], ['name']);
/** `PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}`: what is sent changes; `data.id` names the node. */
export const NODE_UPDATE_SCHEMA = nodeBody(['id'], []);

const listBody = (item: Schema, max: number, what: string): Schema =>
  dataEnvelope({
    type: 'array',
    minItems: 1,
    maxItems: max,
    items: item,
    'x-message': `must be an array of 1 to ${max} ${what}`,
  });

/** `POST …/nodes/{node_id}/relationships/children`. */
export const NODE_CHILDREN_SCHEMA = listBody(
  {
    type: 'object',
    required: ['type', 'id'],
    additionalProperties: false,
    'x-message': 'must be an object of type (node), id and meta',
    properties: { type: { const: NODE_TYPE }, id: UUID_STRING, meta: META },
  },
  NODE_CHILDREN_PER_REQUEST,
  'nodes',
);
/** `POST` and `DELETE …/nodes/{node_id}/relationships/products`. */
export const NODE_PRODUCTS_SCHEMA = listBody(TYPED_ID('product'), NODE_PRODUCTS_PER_REQUEST, 'products');
/** `PUT …/nodes/{node_id}/relationships/parent`. */
export const NODE_PARENT_SCHEMA: Schema = dataEnvelope(TYPED_ID(NODE_TYPE));

export interface NodeAttributes {
  name: string;
  description?: string;
  slug?: string;
  curated_products?: string[];
  locales?: Record<string, { name: string; description?: string }>;
}

export interface NewNode {
  attributes: NodeAttributes;
  parentId: string | undefined;
  sortOrder: number | undefined;
}

export interface NodeUpdate {
  attributes: Partial<NodeAttributes>;
  /** null: not sent (sort_order stays). */
  sortOrder: number | undefined;
}

const validateNew = compileSchema(NEW_NODE_SCHEMA);
const validateUpdate = compileSchema(NODE_UPDATE_SCHEMA);
const validateChildren = compileSchema(NODE_CHILDREN_SCHEMA);
const validateProducts = compileSchema(NODE_PRODUCTS_SCHEMA);
const validateParent = compileSchema(NODE_PARENT_SCHEMA);

type Body<A> = {
  data: {
    id?: string;
    attributes: A;
    relationships?: { parent: { data: { id: string } } };
    meta?: { sort_order?: number };
  };
};

const invalid = (detail: string, source: string): never => {
  throw new ApiError(422, detail, { source });
};

/** A node id in a body: a UUID (anything else cannot name a node: 422). */
function bodyNodeId(raw: string, source: string): string {
  if (!isUuid(raw)) invalid(`${source}: no such node in this hierarchy`, source);
  return raw.toLowerCase();
}

/** The rules a schema cannot state: locale keys, distinct curated products. */
function checkAttributes(attributes: Partial<NodeAttributes>): void {
  checkLocales(attributes.locales);
  const curated = attributes.curated_products;
  if (curated !== undefined) {
    attributes.curated_products = curated.map((id) => id.toLowerCase());
    if (new Set(attributes.curated_products).size !== curated.length)
      invalid(
        'data.attributes.curated_products: a product may be listed once',
        'data.attributes.curated_products',
      );
  }
}

/** 422 when the attributes, as they would be stored, exceed NODE_MAX_BYTES. */
export function checkNodeSize(attributes: Partial<NodeAttributes>): void {
  if (Buffer.byteLength(JSON.stringify(attributes)) > NODE_MAX_BYTES) {
    invalid(`data.attributes: a node may take at most ${NODE_MAX_BYTES} bytes of JSON`, 'data.attributes');
  }
}

export function parseNewNode(input: unknown): NewNode {
  const { data } = assertValid<Body<NodeAttributes>>(validateNew, input);
  checkAttributes(data.attributes);
  checkNodeSize(data.attributes);
  const parent = data.relationships?.parent.data.id;
  return {
    attributes: data.attributes,
    parentId: parent === undefined ? undefined : bodyNodeId(parent, 'data.relationships.parent.data.id'),
    sortOrder: data.meta?.sort_order,
  };
}

export function parseNodeUpdate(input: unknown, nodeId: string): NodeUpdate {
  const { data } = assertValid<Body<Partial<NodeAttributes>>>(validateUpdate, input);
  if (data.id?.toLowerCase() !== nodeId)
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  const attributes = data.attributes ?? {};
  checkAttributes(attributes);
  return { attributes, sortOrder: data.meta?.sort_order };
}

/** The children to put under a node, each with the sort_order it gets (undefined: keeps its own). */
export function parseNodeChildren(input: unknown): { id: string; sortOrder: number | undefined }[] {
  const { data } = assertValid<{ data: { id: string; meta?: { sort_order?: number } }[] }>(
    validateChildren,
    input,
  );
  const children = data.map((child, index) => ({
    id: bodyNodeId(child.id, `data[${index}].id`),
    sortOrder: child.meta?.sort_order,
  }));
  if (new Set(children.map((child) => child.id)).size !== children.length)
    invalid('data: a node may be listed once', 'data');
  return children;
}

/** The product ids of an attach or detach body, distinct, in the order given. */
export function parseNodeProducts(input: unknown): string[] {
  const { data } = assertValid<{ data: { id: string }[] }>(validateProducts, input);
  return [...new Set(data.map((product) => product.id.toLowerCase()))];
}

/** The new parent of a `relationships/parent` body. */
export function parseNodeParent(input: unknown): string {
  const { data } = assertValid<{ data: { id: string } }>(validateParent, input);
  return bodyNodeId(data.id, 'data.id');
}

/** A node id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseNodeId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('node not found');
  return raw.toLowerCase();
}
