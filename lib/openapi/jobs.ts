import { MAX_UPLOAD_BYTES } from '../http/middleware';
import { MAX_PRICE_IMPORT_OBJECTS } from '../prices/import';
import { IMPORT_UPLOAD_SECONDS, MAX_IMPORT_FILE_BYTES, MAX_IMPORT_ROWS } from '../products/import';
import type { Schema } from '../schema/index';
import type { OperationSpec, Parameter } from './operation';
import { DATE, LOCATION, PAGE } from './publishing';
import { ERROR_BODY_SCHEMA } from './schemas';

/** Jobs (`/pcm/jobs`, docs/jobs.md): asynchronous work, a store's jobs one at a time in creation order. */

const NULLABLE_DATE: Schema = { oneOf: [DATE, { type: 'null' }] };

export const JOB_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'pim-job' },
    attributes: {
      type: 'object',
      required: ['type', 'status', 'created_at', 'updated_at', 'started_at', 'completed_at'],
      properties: {
        type: {
          enum: ['child-products', 'product-import', 'product-export', 'hierarchy-duplicate', 'price-import'],
        },
        status: { enum: ['pending', 'started', 'success', 'failed', 'cancelled'] },
        created_at: DATE,
        updated_at: DATE,
        started_at: NULLABLE_DATE,
        completed_at: NULLABLE_DATE,
      },
    },
    meta: {
      type: 'object',
      required: ['x_request_id'],
      properties: { x_request_id: { type: 'string', description: 'The request that created the job.' } },
    },
  },
};

const JOB_ERROR_SCHEMA: Schema = {
  type: 'object',
  required: ['type', 'id', 'attributes'],
  properties: {
    type: { const: 'pim-job-error' },
    id: { type: 'string', format: 'uuid' },
    attributes: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    meta: {
      type: 'object',
      description: 'The line (1 is the header) and column of the input the error names, when it names one.',
      properties: { line: { type: 'integer' }, column: { type: 'string' } },
    },
  },
};

const page = (item: Schema): Schema => ({
  type: 'object',
  required: ['data', 'links', 'meta'],
  properties: { data: { type: 'array', items: item }, links: { type: 'object' }, meta: { type: 'object' } },
});
const one: Schema = { type: 'object', required: ['data'], properties: { data: JOB_SCHEMA } };

const JOB_ID: Parameter = {
  name: 'job_id',
  in: 'path',
  required: true,
  description: "The job. An unknown id or another store's answers 404.",
  schema: { type: 'string' },
};

const importForm = (description: string): Schema => ({
  type: 'object',
  required: ['file'],
  additionalProperties: false,
  properties: { file: { type: 'string', format: 'binary', description } },
});
const IMPORT_FORM = importForm(
  'The CSV: a header naming id, external_ref, name, description, slug, status, commodity_type, upc_ean, mpn, sku, tags (name, description, slug, status and commodity_type required), one product a row.',
);

const importByUpload = (type: string): Schema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: {
    data: {
      type: 'object',
      required: ['type', 'upload_id'],
      additionalProperties: false,
      properties: {
        type: { const: type },
        upload_id: { type: 'string', description: 'The id `POST /pcm/products/import-uploads` answered.' },
      },
    },
  },
});
const IMPORT_BY_UPLOAD = importByUpload('product-import');

const IMPORT_UPLOAD: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type', 'id', 'upload_url', 'expires_at', 'method', 'headers'],
      properties: {
        type: { const: 'product-import-upload' },
        id: { type: 'string', format: 'uuid' },
        upload_url: { type: 'string', description: 'PUT the file here, with the headers below.' },
        expires_at: DATE,
        method: { const: 'PUT' },
        headers: { type: 'object', properties: { 'Content-Type': { const: 'text/csv' } } },
      },
    },
  },
};

export const JOB_OPERATIONS: Record<string, OperationSpec> = {
  'POST /pcm/products/import': {
    operationId: 'importProducts',
    summary: 'Import products from a CSV file',
    description: `Answers a \`product-import\` job at once (201, \`pending\`); poll it with \`GET /pcm/jobs/{job_id}\`. The job validates the whole file first (any error: the job fails and nothing is imported), then creates or updates each row's product (by \`id\`, else \`external_ref\`). At most ${MAX_IMPORT_ROWS} rows, the header included, and ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB in a form (\`file\`); a larger file (up to ${MAX_IMPORT_FILE_BYTES / 1024 / 1024} MB) is uploaded first and named by its \`upload_id\` in a JSON body. See docs/jobs.md.`,
    tag: 'Products',
    requestBody: IMPORT_BY_UPLOAD,
    formBody: IMPORT_FORM,
    responses: { 201: ['The import job.', one, { Location: LOCATION }] },
  },
  'POST /pcm/pricebooks/import': {
    operationId: 'importPriceBook',
    summary: 'Import price books and prices from a JSONL file',
    description: `Answers a \`price-import\` job at once (201, \`pending\`); poll it with \`GET /pcm/jobs/{job_id}\`. The job validates the whole file first (any error: the job fails and nothing is imported), then creates or updates the price books (by \`id\`, else \`external_ref\`) and the prices (by sku in their book). At most ${MAX_PRICE_IMPORT_OBJECTS} objects; gzipped or not; ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB in a form (\`file\`); a larger file is uploaded first through \`POST /pcm/products/import-uploads\` and named by its \`upload_id\` in a JSON body. Price modifiers are not imported. See docs/price-books.md.`,
    tag: 'Price books',
    requestBody: importByUpload('price-import'),
    formBody: importForm(
      'The JSONL: JSON objects (one a line, or pretty-printed), each {"data": {"type": "pricebook", "id"?, "attributes"}} or {"data": {"type": "product-price", "pricebook_id" | "pricebook_external_ref", "attributes"}}.',
    ),
    responses: { 201: ['The import job.', one, { Location: LOCATION }] },
  },
  'POST /pcm/products/import-uploads': {
    operationId: 'createProductImportUpload',
    summary: 'Get a URL to upload a large import file',
    description: `For a file over the ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB a form takes: a pre-signed URL to PUT it (up to ${MAX_IMPORT_FILE_BYTES / 1024 / 1024} MB) to S3, for ${IMPORT_UPLOAD_SECONDS / 60} minutes; then \`POST /pcm/products/import\` with \`{"data": {"type": "product-import", "upload_id"}}\`. No body.`,
    tag: 'Products',
    responses: { 201: ['The upload URL.', IMPORT_UPLOAD] },
  },
  'GET /pcm/jobs': {
    operationId: 'getAllJobs',
    summary: "List the store's jobs",
    description: 'Newest first, with `meta.results.total`.',
    tag: 'Jobs',
    parameters: [...PAGE],
    responses: {
      200: ['A page of jobs.', page(JOB_SCHEMA)],
      400: ['A bad page.', ERROR_BODY_SCHEMA],
    },
  },
  'GET /pcm/jobs/{job_id}': {
    operationId: 'getJob',
    summary: 'Get a job',
    description:
      'Poll it until `attributes.status` is `success`, `failed` or `cancelled`; a failed job says why in its errors.',
    tag: 'Jobs',
    parameters: [JOB_ID],
    responses: { 200: ['The job.', one] },
  },
  'GET /pcm/jobs/{job_id}/errors': {
    operationId: 'getJobErrors',
    summary: "Get a job's errors",
    description:
      'In the order recorded (an import: by line); at most 1,000, the last saying how many more there were.',
    tag: 'Jobs',
    parameters: [JOB_ID, ...PAGE],
    responses: {
      200: ["The job's errors.", page(JOB_ERROR_SCHEMA)],
      400: ['A bad page.', ERROR_BODY_SCHEMA],
    },
  },
  'POST /pcm/jobs/{job_id}/cancel': {
    operationId: 'cancelJob',
    summary: 'Cancel a job',
    description: 'Only a pending job: it will not run. Cancelling a cancelled job answers it as it is.',
    tag: 'Jobs',
    parameters: [JOB_ID],
    responses: {
      200: ['The cancelled job.', one],
      409: ['The job started or ended: it can no longer be cancelled.', ERROR_BODY_SCHEMA],
    },
  },
};
