import { MAX_COMBINATIONS } from '../builds/combinations';
import type { Schema } from '../schema/index';
import {
  MAX_BUNDLE_OPTIONS,
  NEW_PRODUCT_SCHEMA,
  PRODUCT_INCLUDES,
  PRODUCT_UPDATE_SCHEMA,
} from '../validation/product';
import { MAX_LINKED_VARIATIONS, VARIATION_LINKS_SCHEMA } from '../validation/variation';
import { JOB_SCHEMA } from './jobs';
import type { OperationSpec, Parameter } from './operation';
import { DATE, LOCATION, PAGE } from './publishing';
import { ERROR_BODY_SCHEMA } from './schemas';

/** The platform's product authoring API (`/pcm/products`, docs/products.md). */

export const PCM_PRODUCT_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'product' },
    attributes: {
      type: 'object',
      required: ['name', 'slug', 'status', 'commodity_type'],
      description: 'The attributes as stored (tags in lower case); absent ones are left out.',
    },
    relationships: {
      type: 'object',
      description:
        '`children`, `component_products`, `files`, `templates`, `variations` (`{data, links.self}`), `main_image` (`{data: null}`) and, for a child, `base_product`.',
    },
    meta: {
      type: 'object',
      required: ['created_at', 'updated_at', 'owner', 'product_types'],
      properties: {
        created_at: DATE,
        updated_at: DATE,
        owner: { const: 'store' },
        product_types: { type: 'array', items: { enum: ['standard', 'bundle', 'parent', 'child'] } },
        variations: {
          type: 'array',
          description:
            "A parent's linked variations in link order, each `{id, name, sort_order?, options: [{id, name, description}]}` (on `GET /pcm/products/{product_id}` only; empty in lists).",
        },
        variation_matrix: {
          type: 'object',
          description:
            "A parent's children nested by option id in link order, leaves child ids (on `GET /pcm/products/{product_id}` only).",
        },
        child_variations: {
          type: 'array',
          description:
            "A child's variations, each `{id, name, sort_order?, options: null, option: {id, name, description}}`.",
        },
        price_modifiers: {
          type: 'array',
          items: { type: 'string' },
          description: "The price book price modifiers a child's `price` modifiers name.",
        },
      },
    },
  },
};

const INCLUDED: Schema = {
  type: 'object',
  description:
    '`component_products` (the products the bundles name), `main_images` and `files` (empty: products have none here yet).',
};
const document = (data: Schema): Schema => ({
  type: 'object',
  required: ['data'],
  properties: { data, included: INCLUDED },
});
const list = (item: Schema): Schema => ({
  type: 'object',
  required: ['data', 'links', 'meta'],
  properties: {
    data: { type: 'array', items: item },
    included: INCLUDED,
    links: { type: 'object' },
    meta: { type: 'object' },
  },
});

const PRODUCT_ID: Parameter = {
  name: 'product_id',
  in: 'path',
  required: true,
  description: "The product. An unknown id or another store's answers 404.",
  schema: { type: 'string' },
};
const INCLUDE: Parameter = {
  name: 'include',
  in: 'query',
  description: `A comma list of ${PRODUCT_INCLUDES.join(', ')}.`,
  schema: { type: 'string' },
};
const FILTER: Parameter = {
  name: 'filter',
  in: 'query',
  description:
    '`op(attribute,value)` joined with `:` (AND). `eq`: id, name, sku, slug, upc_ean, manufacturer_part_num (mpn), commodity_type, status, owner, product_types, tags, external_ref, description. `like` (`*` wildcards, any case): name, sku, slug, upc_ean, manufacturer_part_num, tags, external_ref, description. `in`: id, name, sku, slug, upc_ean, manufacturer_part_num, product_types, tags, external_ref. Anything else is 400.',
  schema: { type: 'string' },
};
const UNPROCESSABLE: [string, Schema] = [
  'The body breaks a rule (`source` names the attribute); nothing changed.',
  ERROR_BODY_SCHEMA,
];

const LINKS = '/pcm/products/{product_id}/relationships/variations';
/** `{data: [{type, id, meta?}]}`: a relationship's list. */
const relationshipList = (type: string, meta?: Schema): Schema => ({
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'id', ...(meta === undefined ? [] : ['meta'])],
        properties: {
          type: { const: type },
          id: { type: 'string', format: 'uuid' },
          ...(meta === undefined ? {} : { meta }),
        },
      },
    },
  },
});
const LINKED = relationshipList('product-variation', {
  type: 'object',
  required: ['created_at'],
  properties: { created_at: DATE },
});
const LINK_REFUSED: [string, Schema] = [
  'A variation that does not exist (or is not linked, for DELETE), listed twice, or a child product; `source` names it.',
  ERROR_BODY_SCHEMA,
];

/** One of the writes of a product's linked variations: the same body, a 204, a 422 naming a variation. */
const linkWrite = (
  operationId: string,
  summary: string,
  description: string,
  done: string,
): OperationSpec => ({
  operationId,
  summary,
  description,
  tag: 'Products',
  parameters: [PRODUCT_ID],
  requestBody: VARIATION_LINKS_SCHEMA,
  responses: { 204: [done], 422: LINK_REFUSED },
});

export const PRODUCT_OPERATIONS: Record<string, OperationSpec> = {
  'POST /pcm/products': {
    operationId: 'createProduct',
    summary: 'Create a product',
    description: `\`status\` is \`draft\` unless given, \`commodity_type\` \`physical\`, \`slug\` derived from the name. \`sku\` (any case) and \`external_ref\` are unique in the store. A bundle (\`components\`) has at most ${MAX_BUNDLE_OPTIONS} options and may contain bundles one level deep.`,
    tag: 'Products',
    requestBody: NEW_PRODUCT_SCHEMA,
    responses: {
      201: ['The new product.', document(PCM_PRODUCT_SCHEMA), { Location: LOCATION }],
      409: ['The sku or the external_ref belongs to another product.', ERROR_BODY_SCHEMA],
      422: UNPROCESSABLE,
    },
  },
  'GET /pcm/products': {
    operationId: 'getAllProducts',
    summary: "List the store's products",
    description:
      'Oldest first; `meta.results.total` counts what the filter matches. A page (with what `include` adds) that would be over 5 MiB, more than one response may carry, is a 400 naming the largest `page[limit]` that fits, or `include`.',
    tag: 'Products',
    parameters: [...PAGE, FILTER, INCLUDE],
    responses: {
      200: ['A page of products.', list(PCM_PRODUCT_SCHEMA)],
      400: ['A bad filter, page or include.', ERROR_BODY_SCHEMA],
    },
  },
  'GET /pcm/products/{product_id}': {
    operationId: 'getProduct',
    summary: 'Get a product',
    description: 'With `include=component_products`, the products its bundle names.',
    tag: 'Products',
    parameters: [PRODUCT_ID, INCLUDE],
    responses: { 200: ['The product.', document(PCM_PRODUCT_SCHEMA)] },
  },
  'PUT /pcm/products/{product_id}': {
    operationId: 'updateProduct',
    summary: 'Update a product',
    description:
      "Only the attributes sent change (an empty `attributes` changes nothing); `data.id` must be the path's (409 otherwise).",
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: PRODUCT_UPDATE_SCHEMA,
    responses: {
      200: ['The product.', document(PCM_PRODUCT_SCHEMA)],
      409: [
        '`data.id` is not the id of the path, or the sku or external_ref belongs to another product.',
        ERROR_BODY_SCHEMA,
      ],
      422: UNPROCESSABLE,
    },
  },
  'GET /pcm/products/{product_id}/relationships/component_products': {
    operationId: 'getProductComponentProductsRelationships',
    summary: "Get a bundle's component products",
    description:
      'The distinct products its components name, in the order first named, as `{type: "product", id}`; empty for a product that is not a bundle.',
    tag: 'Products',
    parameters: [PRODUCT_ID],
    responses: {
      200: ['The component products.', relationshipList('product')],
    },
  },
  'DELETE /pcm/products/{product_id}': {
    operationId: 'deleteProduct',
    summary: 'Delete a product',
    description:
      'Frees its sku and external_ref at once. Not while a bundle names it in its components, nor while it has child products.',
    tag: 'Products',
    parameters: [PRODUCT_ID],
    responses: {
      204: ['Deleted.'],
      409: ['A bundle uses the product, or it has child products.', ERROR_BODY_SCHEMA],
    },
  },
  [`GET ${LINKS}`]: {
    operationId: 'getProductVariationRelationships',
    summary: "Get a product's linked variations",
    description: 'In link order (the order of the variation matrix).',
    tag: 'Products',
    parameters: [PRODUCT_ID],
    responses: { 200: ['The linked variations.', LINKED] },
  },
  [`POST ${LINKS}`]: linkWrite(
    'createProductVariationRelationships',
    'Link variations to a product',
    `Adds the variations listed after those linked (one already linked stays where it is); at most ${MAX_LINKED_VARIATIONS} per product. A change of the variations makes the next build replace every child.`,
    'Linked.',
  ),
  [`PUT ${LINKS}`]: linkWrite(
    'updateProductVariationRelationships',
    "Replace a product's linked variations",
    'Links exactly the variations listed, in that order (`[]` unlinks all).',
    'Replaced.',
  ),
  [`DELETE ${LINKS}`]: linkWrite(
    'deleteProductVariationRelationships',
    'Unlink variations from a product',
    'Each variation listed must be linked.',
    'Unlinked.',
  ),
  'POST /pcm/products/{product_id}/build': {
    operationId: 'buildChildProducts',
    summary: "Build a product's child products",
    description: `Starts a \`child-products\` job (poll \`GET /pcm/jobs/{job_id}\`): one child per combination of the linked variations' options that \`build_rules\` keep, at most ${MAX_COMBINATIONS}. Takes no body, or \`{}\`.`,
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: { type: 'object', additionalProperties: false, description: 'Nothing, or `{}`.' },
    requestBodyOptional: true,
    responses: {
      201: ['The pending job.', { type: 'object', required: ['data'], properties: { data: JOB_SCHEMA } }],
      422: ['The product is a child product.', ERROR_BODY_SCHEMA],
    },
  },
  'GET /pcm/products/{product_id}/children': {
    operationId: 'getChildProducts',
    summary: "List a parent's child products",
    description: `The children its builds made (at most ${MAX_COMBINATIONS}), in the order of their combinations of options; empty for a product that has none.`,
    tag: 'Products',
    parameters: [PRODUCT_ID, ...PAGE],
    responses: {
      200: ['A page of child products.', list(PCM_PRODUCT_SCHEMA)],
      400: ['A bad page.', ERROR_BODY_SCHEMA],
    },
  },
};
