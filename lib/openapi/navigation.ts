import {
  CURRENCY_HEADER_SCHEMA,
  INCLUDE_SCHEMA,
  SVC_CHANNEL_SCHEMA,
  SVC_CONTEXT_TAG_SCHEMA,
} from '../catalog/child-list-response';
import { MAX_FILTER_BYTES } from '../filter/index';
import { pageParameterSchemas } from '../pagination/index';
import type { Schema } from '../schema/index';
import type { OperationSpec, Parameter } from './operation';
import { CHILD_PRODUCT_LIST_SCHEMA, ERROR_BODY_SCHEMA } from './schemas';

const UUID: Schema = { type: 'string', format: 'uuid' };
const LINK: Schema = {
  type: 'object',
  required: ['links'],
  properties: {
    links: { type: 'object', required: ['related'], properties: { related: { type: 'string' } } },
  },
};
const TYPED_LINK = (type: string): Schema => ({
  type: 'object',
  required: ['data', 'links'],
  properties: {
    data: { type: 'object', required: ['type', 'id'], properties: { type: { const: type }, id: UUID } },
    links: { type: 'object', required: ['related'], properties: { related: { type: 'string' } } },
  },
});
const NODE_ATTRIBUTES: Schema = {
  type: 'object',
  required: ['name', 'description', 'slug', 'created_at', 'updated_at', 'published_at'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    slug: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time', description: 'The order of `filter=in(id,...)`.' },
    published_at: { type: 'string', format: 'date-time', description: 'When the release was published.' },
  },
};

/** A node of a hierarchy (the platform's shopper-catalog node). */
export const NODE_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'meta'],
  properties: {
    id: UUID,
    type: { const: 'node' },
    attributes: NODE_ATTRIBUTES,
    relationships: {
      type: 'object',
      required: ['children', 'products'],
      description: '`parent` and `hierarchy` only below a hierarchy.',
      properties: {
        children: LINK,
        products: LINK,
        parent: TYPED_LINK('node'),
        hierarchy: TYPED_LINK('hierarchy'),
      },
    },
    meta: {
      type: 'object',
      required: ['bread_crumb', 'has_children', 'hierarchy_id', 'catalog_id'],
      properties: {
        bread_crumb: {
          type: 'array',
          items: UUID,
          description: "The node's ancestors, from its hierarchy down to its parent.",
        },
        has_children: { type: 'boolean' },
        hierarchy_id: UUID,
        catalog_id: UUID,
      },
    },
  },
};

/** A hierarchy: a node without parent (the platform's shopper-catalog hierarchy). */
export const HIERARCHY_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'meta'],
  properties: {
    id: UUID,
    type: { const: 'hierarchy' },
    attributes: NODE_ATTRIBUTES,
    relationships: {
      type: 'object',
      required: ['children', 'nodes'],
      properties: { children: LINK, nodes: LINK },
    },
    meta: {
      type: 'object',
      required: ['has_children', 'catalog_id'],
      properties: { has_children: { type: 'boolean' }, catalog_id: UUID },
    },
  },
};

const listOf = (item: Schema): Schema => {
  const { included: _included, ...properties } = CHILD_PRODUCT_LIST_SCHEMA.properties ?? {};
  return {
    ...CHILD_PRODUCT_LIST_SCHEMA,
    properties: { ...properties, data: { type: 'array', items: item } },
  };
};
export const NODE_LIST_SCHEMA = listOf(NODE_SCHEMA);
export const HIERARCHY_LIST_SCHEMA = listOf(HIERARCHY_SCHEMA);
const document = (item: Schema): Schema => ({
  type: 'object',
  required: ['data'],
  properties: { data: item },
});

const pages = pageParameterSchemas({ defaultLimit: 0 });
const SHOPPER: Parameter[] = [
  { name: 'SVC-Channel', in: 'header', required: true, schema: SVC_CHANNEL_SCHEMA },
  { name: 'SVC-Context-Tag', in: 'header', schema: SVC_CONTEXT_TAG_SCHEMA },
];
const PAGE: Parameter[] = [
  {
    name: 'page[limit]',
    in: 'query',
    description: "Records per page (default: the store's page length).",
    schema: pages.limit,
  },
  { name: 'page[offset]', in: 'query', description: 'Records to skip.', schema: pages.offset },
];
const FILTER: Parameter = {
  name: 'filter',
  in: 'query',
  description:
    '`in(id,<id>,...)` or `eq(id,<id>)`: the named nodes, oldest `updated_at` first (ties by id); unknown ids are left out.',
  schema: { type: 'string', description: `At most ${MAX_FILTER_BYTES} bytes (UTF-8).` },
};
const LIST_FILTER: Parameter = {
  ...FILTER,
  description:
    '`in(id,<id>,...)` or `eq(id,<id>)`: those of the named nodes that are in this list, oldest `updated_at` first (ties by id).',
};
const pathId = (name: string, description: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
const NODE_ID = pathId('node_id', 'The node (a hierarchy is a node too).');
const HIERARCHY_ID = pathId('hierarchy_id', 'The hierarchy: a node without parent.');
const NOT_FOUND = (what: string): [string, Schema] => [
  `No catalog for this context, or no such ${what} in it.`,
  ERROR_BODY_SCHEMA,
];
/** The query and headers of the product-list routes (a node's products, a hierarchy's). */
const PRODUCT_LIST_PARAMETERS: Parameter[] = [
  ...PAGE,
  { name: 'include', in: 'query', schema: INCLUDE_SCHEMA },
  ...SHOPPER,
  {
    name: 'Accept-Language',
    in: 'header',
    description:
      "Picks the text locale among the product's; otherwise the store's default locale. `X-Moltin-Language` is read when this header is absent.",
    schema: { type: 'string' },
  },
  { name: 'EP-Currency', in: 'header', schema: CURRENCY_HEADER_SCHEMA },
];
const SELECTED =
  'From the catalog the shopper context selects (catalog rules match the channel, tag and time)';

/** The node and hierarchy reads, merged into the document's operations. */
export const NAVIGATION_OPERATIONS: Record<string, OperationSpec> = {
  'GET /catalog/nodes': {
    operationId: 'getAllNodes',
    summary: 'List nodes',
    description: `${SELECTED}: every node, hierarchies included, in document order; with \`filter=in(id,...)\` the named nodes in the order they were last updated (breadcrumbs).`,
    tag: 'Catalog',
    parameters: [FILTER, ...PAGE, ...SHOPPER],
    responses: { 200: ['A page of nodes.', NODE_LIST_SCHEMA], 404: NOT_FOUND('catalog') },
  },
  'GET /catalog/nodes/{node_id}': {
    operationId: 'getNode',
    summary: 'Get a node',
    description: `${SELECTED}.`,
    tag: 'Catalog',
    parameters: [NODE_ID, ...SHOPPER],
    responses: { 200: ['The node.', document(NODE_SCHEMA)], 404: NOT_FOUND('node') },
  },
  'GET /catalog/nodes/{node_id}/relationships/children': {
    operationId: 'getNodeChildren',
    summary: "List a node's children",
    description: `${SELECTED}: its direct children, in document order.`,
    tag: 'Catalog',
    parameters: [NODE_ID, LIST_FILTER, ...PAGE, ...SHOPPER],
    responses: { 200: ['A page of nodes.', NODE_LIST_SCHEMA], 404: NOT_FOUND('node') },
  },
  'GET /catalog/nodes/{node_id}/relationships/products': {
    operationId: 'getNodeProducts',
    summary: "List a node's products",
    description: `${SELECTED}: the live products that name the node in their \`node_ids\`, in document order, rendered as the child list renders products.`,
    tag: 'Catalog',
    parameters: [NODE_ID, ...PRODUCT_LIST_PARAMETERS],
    responses: { 200: ['A page of live products.', CHILD_PRODUCT_LIST_SCHEMA], 404: NOT_FOUND('node') },
  },
  'GET /catalog/hierarchies': {
    operationId: 'getAllHierarchies',
    summary: 'List hierarchies',
    description: `${SELECTED}: the nodes without parent, as hierarchies, in document order; \`filter\` as on \`/catalog/nodes\`.`,
    tag: 'Catalog',
    parameters: [FILTER, ...PAGE, ...SHOPPER],
    responses: { 200: ['A page of hierarchies.', HIERARCHY_LIST_SCHEMA], 404: NOT_FOUND('catalog') },
  },
  'GET /catalog/hierarchies/{hierarchy_id}': {
    operationId: 'getHierarchy',
    summary: 'Get a hierarchy',
    description: `${SELECTED}.`,
    tag: 'Catalog',
    parameters: [HIERARCHY_ID, ...SHOPPER],
    responses: { 200: ['The hierarchy.', document(HIERARCHY_SCHEMA)], 404: NOT_FOUND('hierarchy') },
  },
  'GET /catalog/hierarchies/{hierarchy_id}/children': {
    operationId: 'getHierarchyChildren',
    summary: "List a hierarchy's children",
    description: `${SELECTED}: its direct children as nodes, in document order.`,
    tag: 'Catalog',
    parameters: [HIERARCHY_ID, LIST_FILTER, ...PAGE, ...SHOPPER],
    responses: { 200: ['A page of nodes.', NODE_LIST_SCHEMA], 404: NOT_FOUND('hierarchy') },
  },
  'GET /catalog/hierarchies/{hierarchy_id}/nodes': {
    operationId: 'getHierarchyNodes',
    summary: "List a hierarchy's nodes",
    description: `${SELECTED}: every node below it, at any depth, in document order.`,
    tag: 'Catalog',
    parameters: [HIERARCHY_ID, LIST_FILTER, ...PAGE, ...SHOPPER],
    responses: { 200: ['A page of nodes.', NODE_LIST_SCHEMA], 404: NOT_FOUND('hierarchy') },
  },
  'GET /catalog/hierarchies/{hierarchy_id}/products': {
    operationId: 'getHierarchyProducts',
    summary: "List a hierarchy's products",
    description: `${SELECTED}: the live products that name any node of the hierarchy (the hierarchy itself included) in their \`node_ids\`, each once, in document order, rendered as the child list renders products.`,
    tag: 'Catalog',
    parameters: [HIERARCHY_ID, ...PRODUCT_LIST_PARAMETERS],
    responses: {
      200: ['A page of live products.', CHILD_PRODUCT_LIST_SCHEMA],
      404: NOT_FOUND('hierarchy'),
      409: [
        'The selected release was published before hierarchies listed their products: publish the catalog again.',
        ERROR_BODY_SCHEMA,
      ],
    },
  },
};
