import { MAX_COMBINATIONS } from '../builds/combinations';
import {
  FILE_RELATIONSHIPS_BODY_SCHEMA,
  MAIN_IMAGE_BODY_SCHEMA,
  MAIN_IMAGE_LIST_BODY_SCHEMA,
} from '../files/relationships';
import { MAX_PRODUCT_FILES_BYTES } from '../products/files';
import type { Schema } from '../schema/index';
import { MAX_PRODUCT_FILES } from '../store/product-repository';
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
        '`children`, `component_products`, `files` (`[{type: "file", id, meta: {created_at, tags?}}]`), `templates`, `variations` (`{data, links.self}`), `main_image` (`{data: {type: "file", id}}`, or `{data: null}`) and, for a child, `base_product`.',
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
    '`component_products` (the products the bundles name), `main_images` and `files` (the files the products name as their main image, or list, as `GET /v2/files/{file_id}` answers them; each once).',
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

const MAIN_IMAGE_IDENTIFIER: Schema = {
  type: 'object',
  required: ['type', 'id'],
  additionalProperties: false,
  properties: { type: { const: 'file' }, id: { type: 'string', format: 'uuid' } },
};
const FILE_IDENTIFIER: Schema = {
  type: 'object',
  required: ['type', 'id', 'meta'],
  additionalProperties: false,
  properties: {
    type: { const: 'file' },
    id: { type: 'string', format: 'uuid' },
    meta: {
      type: 'object',
      required: ['created_at'],
      additionalProperties: false,
      properties: { created_at: DATE, tags: { type: 'array', items: { type: 'string' } } },
    },
  },
};
const identifiers = (item: Schema, maxItems?: number): Schema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: { data: { type: 'array', items: item, ...(maxItems === undefined ? {} : { maxItems }) } },
});
const FILE_RULES = `A product lists at most ${MAX_PRODUCT_FILES} files, whose ids, dates and tags take at most ${MAX_PRODUCT_FILES_BYTES} bytes (422 past either). While a product names a file, \`DELETE /v2/files/{file_id}\` refuses it (409).`;
const MISSING_FILE: [string, Schema] = [
  "A file named is not one of the store's (`source` names its entry), or the product would list too many files: nothing changed.",
  ERROR_BODY_SCHEMA,
];
const WRITE_CONFLICT_RESPONSE: [string, Schema] = [
  'The product is being deleted, or concurrent writes kept conflicting (`write conflict, please retry`): nothing changed.',
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
    description:
      'With `include=component_products`, the products its bundle names; `main_image` and `files` add the files it names.',
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
  'GET /pcm/products/{product_id}/relationships/main_image': {
    operationId: 'getProductMainImageRelationships',
    summary: "Get a product's main image",
    description: 'A list of one `{type: "file", id}`, or an empty list when the product has none.',
    tag: 'Products',
    parameters: [PRODUCT_ID],
    responses: { 200: ['The main image.', identifiers(MAIN_IMAGE_IDENTIFIER, 1)] },
  },
  'POST /pcm/products/{product_id}/relationships/main_image': {
    operationId: 'createProductMainImageRelationships',
    summary: "Set a product's main image",
    description: `A file of the store (\`POST /v2/files\`) becomes the main image, replacing any other. ${FILE_RULES}`,
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: MAIN_IMAGE_BODY_SCHEMA,
    responses: { 204: ['Set.'], 409: WRITE_CONFLICT_RESPONSE, 422: MISSING_FILE },
  },
  'PUT /pcm/products/{product_id}/relationships/main_image': {
    operationId: 'replaceProductMainImageRelationships',
    summary: "Replace a product's main image",
    description: `As POST. The specification's body is a list of exactly one file; the object (what the SDK's \`MainImageRelationships.Update\` sends) is taken too. ${FILE_RULES}`,
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: { oneOf: [MAIN_IMAGE_LIST_BODY_SCHEMA, MAIN_IMAGE_BODY_SCHEMA] },
    responses: { 204: ['Replaced.'], 409: WRITE_CONFLICT_RESPONSE, 422: MISSING_FILE },
  },
  'DELETE /pcm/products/{product_id}/relationships/main_image': {
    operationId: 'deleteProductMainImageRelationships',
    summary: "Remove a product's main image",
    description:
      'No body removes whatever image it has; the SDK\'s body (`{data: {type: "file", id}}`) removes that file only, and is a 409 when the main image is another file. No main image: 204, nothing to do.',
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: MAIN_IMAGE_BODY_SCHEMA,
    requestBodyOptional: true,
    responses: {
      204: ['Removed.'],
      409: [
        'The main image is another file than the one named, or concurrent writes kept conflicting.',
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'GET /pcm/products/{product_id}/relationships/files': {
    operationId: 'getProductFileRelationships',
    summary: "Get a product's files",
    description:
      'The files it lists, in order: `{type: "file", id, meta: {created_at, tags?}}` (`created_at`: when the product started listing it).',
    tag: 'Products',
    parameters: [PRODUCT_ID],
    responses: { 200: ['The files.', identifiers(FILE_IDENTIFIER)] },
  },
  'POST /pcm/products/{product_id}/relationships/files': {
    operationId: 'createProductFileRelationships',
    summary: 'Add files to a product',
    description: `At the end of its list; a file it lists already keeps its place and takes the \`meta.tags\` sent, when sent. ${FILE_RULES}`,
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: FILE_RELATIONSHIPS_BODY_SCHEMA,
    responses: { 204: ['Added.'], 409: WRITE_CONFLICT_RESPONSE, 422: MISSING_FILE },
  },
  'PUT /pcm/products/{product_id}/relationships/files': {
    operationId: 'updateProductFileRelationships',
    summary: "Replace a product's files",
    description: `The list becomes the files sent, in their order, with the tags sent (\`[]\` removes every file). ${FILE_RULES}`,
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: FILE_RELATIONSHIPS_BODY_SCHEMA,
    responses: { 204: ['Replaced.'], 409: WRITE_CONFLICT_RESPONSE, 422: MISSING_FILE },
  },
  'DELETE /pcm/products/{product_id}/relationships/files': {
    operationId: 'deleteProductFileRelationships',
    summary: 'Remove files from a product',
    description:
      'The files sent leave its list; a file it does not list is already not there (no error). `meta` is refused (400).',
    tag: 'Products',
    parameters: [PRODUCT_ID],
    requestBody: FILE_RELATIONSHIPS_BODY_SCHEMA,
    responses: { 204: ['Removed.'], 409: WRITE_CONFLICT_RESPONSE },
  },
};
