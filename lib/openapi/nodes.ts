import type { Schema } from '../schema/index';
import {
  NEW_NODE_SCHEMA,
  NODE_CHILDREN_SCHEMA,
  NODE_PARENT_SCHEMA,
  NODE_PRODUCTS_SCHEMA,
  NODE_UPDATE_SCHEMA,
} from '../validation/node';
import { type OperationSpec, pageParameters, pathIdParameter } from './operation';
import { PCM_PRODUCT_SCHEMA } from './products';
import { dataDocument, ERROR_BODY_SCHEMA, pageOf } from './schemas';

/** The nodes of the platform's hierarchies and the products attached to them (docs/hierarchies.md). */

const DATE: Schema = { type: 'string', format: 'date-time' };
const TAG = 'Hierarchies' as const;
const LINKS: Schema = { type: 'object', properties: { links: { type: 'object' } } };

export const NODE_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'node' },
    attributes: {
      type: 'object',
      required: ['name', 'description', 'curated_products'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        slug: { type: 'string', description: 'Absent when not set.' },
        curated_products: { type: 'array', items: { type: 'string' } },
        locales: { type: 'object', description: 'Absent when not set.' },
      },
    },
    relationships: {
      type: 'object',
      required: ['children', 'parent', 'products'],
      properties: {
        children: LINKS,
        parent: {
          type: 'object',
          description:
            "The parent node; the hierarchy's id for a top-level node (the hierarchy is the root).",
        },
        products: LINKS,
      },
    },
    meta: {
      type: 'object',
      required: ['created_at', 'updated_at', 'parent_name', 'owner'],
      properties: {
        sort_order: { type: 'integer', description: 'Absent when none.' },
        created_at: DATE,
        updated_at: DATE,
        parent_name: {
          type: 'string',
          description: "The parent's name (the hierarchy's for a top-level node).",
        },
        owner: { const: 'store' },
      },
    },
  },
};

const HIERARCHY_ID = pathIdParameter('hierarchy_id', 'hierarchy');
const NODE_ID = pathIdParameter('node_id', 'node');
const PAGE = pageParameters(25);
const NAME_TAKEN: [string, Schema] = ['A sibling has the name or slug (any case).', ERROR_BODY_SCHEMA];
const NODE = dataDocument(NODE_SCHEMA);
const NODES = pageOf(NODE_SCHEMA);
const N = '/pcm/hierarchies/{hierarchy_id}/nodes';
const ONE = [HIERARCHY_ID, NODE_ID];

export const NODE_OPERATIONS: Record<string, OperationSpec> = {
  [`POST ${N}`]: {
    operationId: 'createPcmNode',
    summary: 'Create a node',
    description:
      'Under `data.relationships.parent.data.id`, or a child of the hierarchy itself; at most 10 levels, the hierarchy the first.',
    tag: TAG,
    parameters: [HIERARCHY_ID],
    requestBody: NEW_NODE_SCHEMA,
    responses: {
      201: ['The new node.', NODE],
      409: NAME_TAKEN,
      422: [
        'A parent not in the hierarchy, too deep, curated products not attached, or a bad locale.',
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  [`GET ${N}`]: {
    operationId: 'getAllPcmNodes',
    summary: "List a hierarchy's nodes",
    description: 'Every node, whatever its depth, oldest first.',
    tag: TAG,
    parameters: [HIERARCHY_ID, ...PAGE],
    responses: { 200: ['A page of nodes.', NODES] },
  },
  [`GET ${N}/{node_id}`]: {
    operationId: 'getPcmNode',
    summary: 'Get a node',
    description: 'One node of the hierarchy.',
    tag: TAG,
    parameters: ONE,
    responses: { 200: ['The node.', NODE] },
  },
  [`PUT ${N}/{node_id}`]: {
    operationId: 'updatePcmNode',
    summary: 'Update a node',
    description:
      'The attributes (and `meta.sort_order`) sent change, the others stay; `data.id` must be the id of the path.',
    tag: TAG,
    parameters: ONE,
    requestBody: NODE_UPDATE_SCHEMA,
    responses: {
      200: ['The node.', NODE],
      409: ['`data.id` is not the id of the path, or a sibling has the name or slug.', ERROR_BODY_SCHEMA],
      422: ['Curated products not attached, a bad locale, or a node over 32 KB of JSON.', ERROR_BODY_SCHEMA],
    },
  },
  [`DELETE ${N}/{node_id}`]: {
    operationId: 'deletePcmNode',
    summary: 'Delete a node',
    description: 'The node and its descendants; the products attached stay (detached).',
    tag: TAG,
    parameters: ONE,
    responses: { 204: ['Deleted.'] },
  },
  'GET /pcm/hierarchies/{hierarchy_id}/children': {
    operationId: 'getPcmHierarchyChildren',
    summary: "List a hierarchy's top-level nodes",
    description: '`sort_order` highest first, then the nodes without one, last updated first.',
    tag: TAG,
    parameters: [HIERARCHY_ID, ...PAGE],
    responses: { 200: ['A page of nodes.', NODES] },
  },
  [`GET ${N}/{node_id}/children`]: {
    operationId: 'getPcmNodeChildren',
    summary: "List a node's children",
    description: '`sort_order` highest first, then the nodes without one, last updated first.',
    tag: TAG,
    parameters: [...ONE, ...PAGE],
    responses: { 200: ['A page of nodes.', NODES] },
  },
  [`POST ${N}/{node_id}/relationships/children`]: {
    operationId: 'createPcmNodeChildRelationships',
    summary: 'Move nodes under a node',
    description:
      'Each node listed moves (its subtree along) under this one; a `meta.sort_order` given replaces its own.',
    tag: TAG,
    parameters: ONE,
    requestBody: NODE_CHILDREN_SCHEMA,
    responses: {
      200: ['The parent node.', NODE],
      409: NAME_TAKEN,
      422: ['A node not in the hierarchy, a cycle, or too deep.', ERROR_BODY_SCHEMA],
    },
  },
  [`PUT ${N}/{node_id}/relationships/parent`]: {
    operationId: 'updatePcmNodeParent',
    summary: "Change a node's parent",
    description: 'The node moves (its subtree along) under the node named, of the same hierarchy.',
    tag: TAG,
    parameters: ONE,
    requestBody: NODE_PARENT_SCHEMA,
    responses: {
      204: ['Moved.'],
      409: NAME_TAKEN,
      422: ['A parent not in the hierarchy, the node itself or below it, or too deep.', ERROR_BODY_SCHEMA],
    },
  },
  [`DELETE ${N}/{node_id}/relationships/parent`]: {
    operationId: 'deletePcmNodeParent',
    summary: 'Make a node top-level',
    description: 'The node moves (its subtree along) back under the hierarchy itself.',
    tag: TAG,
    parameters: ONE,
    responses: { 204: ['Moved.'], 409: NAME_TAKEN },
  },
  [`POST ${N}/{node_id}/relationships/products`]: {
    operationId: 'createPcmNodeProductRelationship',
    summary: 'Attach products to a node',
    description: 'Products already attached stay where they are in the attach order.',
    tag: TAG,
    parameters: ONE,
    requestBody: NODE_PRODUCTS_SCHEMA,
    responses: {
      201: ['The node.', NODE],
      422: ['Ids that are no products of the store.', ERROR_BODY_SCHEMA],
    },
  },
  [`DELETE ${N}/{node_id}/relationships/products`]: {
    operationId: 'deletePcmNodeProductRelationships',
    summary: 'Detach products from a node',
    description: 'They drop out of its curated products too.',
    tag: TAG,
    parameters: ONE,
    requestBody: NODE_PRODUCTS_SCHEMA,
    responses: {
      200: ['The node.', NODE],
      422: ['Ids that are no products of the store.', ERROR_BODY_SCHEMA],
    },
  },
  [`GET ${N}/{node_id}/products`]: {
    operationId: 'getPcmNodeProducts',
    summary: "List a node's products",
    description: 'Its curated products first, in curated order, then the others in attach order.',
    tag: TAG,
    parameters: [...ONE, ...PAGE],
    responses: { 200: ['A page of products.', pageOf(PCM_PRODUCT_SCHEMA)] },
  },
  'GET /pcm/products/{product_id}/nodes': {
    operationId: 'getPcmProductNodes',
    summary: 'List the nodes a product is attached to',
    description: 'In any hierarchy of the store.',
    tag: TAG,
    parameters: [pathIdParameter('product_id', 'product'), ...PAGE],
    responses: { 200: ['A page of nodes.', NODES] },
  },
};
