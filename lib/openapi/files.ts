import { FILES_DEFAULT_LIMIT } from '../files/service';
import { pageParameterSchemas } from '../pagination/index';
import type { Schema } from '../schema/index';
import { MAX_FILES_PER_STORE } from '../store/file-repository';
import { FILE_FORM_SCHEMA, NEW_FILE_JSON_SCHEMA } from '../validation/file';
import type { HeaderSpec, OperationSpec, Parameter } from './operation';
import { ERROR_BODY_SCHEMA, FILE_SCHEMA } from './schemas';

/** The platform's files API (`/v2/files`, docs/files.md). */

const fileProperties = FILE_SCHEMA.properties ?? {};

/** A file as `/v2/files` serves it: the catalog's file object with `public` and `links.self`. */
export const FILE_RESOURCE_SCHEMA: Schema = {
  ...FILE_SCHEMA,
  required: [...(FILE_SCHEMA.required ?? []), 'public', 'links'],
  properties: {
    ...fileProperties,
    file_name: { type: 'string', description: "The last segment of the URL's path, percent-decoded." },
    mime_type: {
      type: 'string',
      description: "What the URL's extension names; `application/octet-stream` for another or none.",
    },
    file_size: { const: 0, description: 'Unknown: the server never fetches the file.' },
    public: { const: true, description: 'Always true: the file is served from its URL.' },
    link: {
      type: 'object',
      required: ['href'],
      additionalProperties: false,
      properties: { href: { type: 'string', description: 'The `file_location`, as sent.' } },
    },
    links: {
      type: 'object',
      required: ['self'],
      additionalProperties: false,
      properties: { self: { type: 'string' } },
    },
  },
};

const document: Schema = { type: 'object', required: ['data'], properties: { data: FILE_RESOURCE_SCHEMA } };
const LOCATION: HeaderSpec = { description: 'The URL of the new file.', schema: { type: 'string' } };

const FILE_ID: Parameter = {
  name: 'file_id',
  in: 'path',
  required: true,
  description: "The file. An unknown id or another store's answers 404.",
  schema: { type: 'string' },
};

const PAGE: Parameter[] = (() => {
  const schemas = pageParameterSchemas({ defaultLimit: FILES_DEFAULT_LIMIT });
  return [
    {
      name: 'page[limit]',
      in: 'query',
      description: `Files per page (default: ${FILES_DEFAULT_LIMIT}).`,
      schema: schemas.limit,
    },
    { name: 'page[offset]', in: 'query', description: 'Files to skip.', schema: schemas.offset },
  ];
})();

export const FILE_OPERATIONS: Record<string, OperationSpec> = {
  'POST /v2/files': {
    operationId: 'createAFile',
    summary: 'Record a file hosted elsewhere',
    description: `From its \`file_location\`: an https URL of at most 2,048 characters, without credentials. The server records it and never fetches it, so \`file_size\` is 0 and \`meta.dimensions\` absent. Sent as the platform's \`multipart/form-data\` field (what the SDK's \`Files.Link\` sends) or as JSON. Uploading file content (a \`file\` part) is not supported: 400. A store holds at most ${MAX_FILES_PER_STORE} files (409 past it).`,
    tag: 'Files',
    requestBody: NEW_FILE_JSON_SCHEMA,
    formBody: FILE_FORM_SCHEMA,
    responses: {
      201: ['The new file.', document, { Location: LOCATION }],
      409: [
        `The store has ${MAX_FILES_PER_STORE} files already, or concurrent writes kept conflicting (\`write conflict, please retry\`): nothing was recorded.`,
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'GET /v2/files': {
    operationId: 'getAllFiles',
    summary: "List the store's files",
    description:
      'Oldest first. `filter`: `eq` or `in` on `id`, `file_name` and `public`, `like` on `file_name` (`*` matches any run of characters, case-sensitive; a pattern of at most 255 characters); `:` joins expressions. Other attributes and operators (`gt` on `file_size`, `width`, `height`…) answer 400: the server knows no sizes or dimensions.',
    tag: 'Files',
    parameters: [
      ...PAGE,
      {
        name: 'filter',
        in: 'query',
        description: 'For example `eq(file_name,red-shirt.png)`, `like(file_name,*.png)` or `in(id,…)`.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: [
        'A page of files, with `meta.results.total` and `meta.page`.',
        {
          type: 'object',
          required: ['data', 'links', 'meta'],
          properties: {
            data: { type: 'array', items: FILE_RESOURCE_SCHEMA },
            links: { type: 'object' },
            meta: { type: 'object' },
          },
        },
      ],
    },
  },
  'GET /v2/files/{file_id}': {
    operationId: 'getAFile',
    summary: 'Get a file',
    description: 'One file of the store.',
    tag: 'Files',
    parameters: [FILE_ID],
    responses: { 200: ['The file.', document] },
  },
  'DELETE /v2/files/{file_id}': {
    operationId: 'deleteAFile',
    summary: 'Delete a file',
    description:
      "The record only: the URL it names is not touched. Not while a product names it (as its main image or among its files): remove it from the product's relationships first.",
    tag: 'Files',
    parameters: [FILE_ID],
    responses: {
      204: ['Deleted.'],
      409: [
        'A product names the file, or concurrent writes kept conflicting (`write conflict, please retry`): nothing was deleted.',
        ERROR_BODY_SCHEMA,
      ],
    },
  },
};
