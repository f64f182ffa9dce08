import { eachAtMost } from '../at-most';
import { type CsvRecord, readCsv } from '../csv/parse';
import { ApiError, BadRequestError, toApiError } from '../http/errors';
import { isUuid, uuidv4 } from '../ids';
import { type JobContext, type JobError, JobErrorList, type JobOutcome } from '../jobs/outcome';
import { applicationKeyExists } from '../store/caller-check';
import type { JobRecord } from '../store/job-repository';
import { objectStore } from '../store/object-store';
import { type ProductAttributes, productRepository } from '../store/product-repository';
import { parseNewProduct, parseProductUpdate } from '../validation/product';
import { createProduct, updateProduct } from './service';

/**
 * The platform's CSV product import (`POST /pcm/products/import`, docs/jobs.md): a `product-import` job
 * whose runner reads the uploaded file from the documents bucket twice, as a stream (one record at a time:
 * a 50,000-row file never sits in memory):
 *
 * 1. **validate**: the header, every row's cells (the product API's own rules), the rows' keys against
 *    each other (an id, external_ref or sku on two rows) and against the store (an id that is no product,
 *    an external_ref or sku another product holds), 100 rows at a time. Any error: the job fails with
 *    every error found (the first 1,000) and **nothing is imported**.
 * 2. **apply**: each row creates or updates its product through the product service, so the sku and
 *    external_ref claims stay transactional; rows run IMPORT_CONCURRENCY at a time (their keys are distinct,
 *    checked in step 1). A row refused now (another writer took its sku since step 1) is an error of its
 *    line; the other rows are applied.
 *
 * A row updates the product its `id` names, else the one holding its `external_ref`; with neither match it
 * creates a product, which needs an `external_ref`: that is what makes a second run of the same file (a
 * retried job) update what the first created instead of creating it again.
 */

/** Rows of a file, the header included (the platform's limit). */
export const MAX_IMPORT_ROWS = 50_000;
/** Rows validated against the store at once (one BatchGetItem of products, one of claims). */
const RESOLVE_BATCH = 100;
/** Rows written at once. */
export const IMPORT_CONCURRENCY = 16;

/** The columns read, as the platform names them. */
const COLUMNS = [
  'id',
  'external_ref',
  'name',
  'description',
  'slug',
  'status',
  'commodity_type',
  'upc_ean',
  'mpn',
  'sku',
  'tags',
] as const;
type Column = (typeof COLUMNS)[number];
/** The platform's required columns: the header must name them (a cell may be empty). */
const REQUIRED_COLUMNS: readonly Column[] = ['name', 'description', 'slug', 'status', 'commodity_type'];
/** The platform's columns this API does not take: named in the error. */
const UNSUPPORTED = /^(main_image_id|template:.*|shopper_attributes\..*|admin_attributes\..*)$/;

/** The key of an import file sent in the request, in the documents bucket (work/ expires with the workflow files). */
export const importFileKey = (storeId: string, uploadId: string) => `work/imports/${storeId}/${uploadId}.csv`;

/** The key a pre-signed import upload is stored at (uploads/ expires after a day). */
export const importUploadKey = (storeId: string, uploadId: string) =>
  `uploads/imports/${storeId}/${uploadId}.csv`;

/** The largest uploaded import file: the platform's limit. */
export const MAX_IMPORT_FILE_BYTES = 50 * 1024 * 1024;
/** How long an import upload URL works. */
export const IMPORT_UPLOAD_SECONDS = 900;
export const IMPORT_CONTENT_TYPE = 'text/csv';

/** A pre-signed URL to PUT an import file of up to MAX_IMPORT_FILE_BYTES for the store, and the upload's id. */
export async function createImportUpload(
  storeId: string,
): Promise<{ id: string; upload_url: string; expires_at: string }> {
  const id = uuidv4();
  const { url, expires_at } = await objectStore.presignPut(importUploadKey(storeId, id), {
    expiresInSeconds: IMPORT_UPLOAD_SECONDS,
    contentType: IMPORT_CONTENT_TYPE,
  });
  return { id, upload_url: url, expires_at };
}

/**
 * The key of an uploaded import file the store names by its upload id: 400 naming `data.upload_id` when
 * nothing was uploaded there (or it expired), or the file is over MAX_IMPORT_FILE_BYTES.
 */
export async function uploadedImportFile(storeId: string, uploadId: string): Promise<string> {
  const source = 'data.upload_id';
  const key = isUuid(uploadId) ? importUploadKey(storeId, uploadId.toLowerCase()) : undefined;
  const stored = key === undefined ? undefined : await objectStore.head(key);
  if (key === undefined || stored === undefined) {
    throw new BadRequestError(
      'no file was uploaded with this upload id: PUT the file to the upload_url of POST /pcm/products/import-uploads first (it works for 15 minutes; uploads are kept a day)',
      source,
    );
  }
  if (stored.bytes > MAX_IMPORT_FILE_BYTES) {
    throw new BadRequestError(
      `the uploaded file has ${stored.bytes} bytes, at most ${MAX_IMPORT_FILE_BYTES} are taken: split it`,
      source,
    );
  }
  if (stored.bytes === 0) throw new BadRequestError('the uploaded file is empty', source);
  return key;
}

/** A row as validated: its line, the product it names and the attributes its non-empty cells set. */
interface ImportRow {
  line: number;
  id?: string;
  attributes: Partial<ProductAttributes>;
}

class RowError extends Error {
  constructor(
    readonly line: number,
    readonly column: string | undefined,
    detail: string,
  ) {
    super(column === undefined ? `line ${line}: ${detail}` : `line ${line}, column ${column}: ${detail}`);
  }
  toJobError(): JobError {
    return {
      message: this.message,
      line: this.line,
      ...(this.column === undefined ? {} : { column: this.column }),
    };
  }
}

/** The column an error of the product rules names (`data.attributes.tags[0]` -> `tags`). */
function columnOf(error: ApiError): string | undefined {
  const match = /^data\.attributes\.([a-z_]+)/.exec(error.source ?? '');
  return match?.[1] === 'manufacturer_part_num' ? 'mpn' : match?.[1];
}

/** The detail of an error of the product rules, without the attribute path it starts with. */
const detailOf = (error: ApiError) => error.detail.replace(/^data\.attributes\.[\w.[\]]+:?\s*/, '');

function rowErrorFrom(line: number, error: unknown): RowError {
  const api = toApiError(error);
  if (api.status >= 500) throw error;
  return new RowError(line, columnOf(api), detailOf(api) || api.detail);
}

/** The header's columns, in order: 400-like errors for an unknown, unsupported, repeated or missing column. */
function readHeader(record: CsvRecord | undefined): Column[] {
  if (record === undefined)
    throw new RowError(1, undefined, 'the file is empty: its first line must name the columns');
  const columns: Column[] = [];
  for (const raw of record.fields) {
    const name = raw.trim();
    if (UNSUPPORTED.test(name)) {
      throw new RowError(1, name, `the column ${name} is not supported here: leave it out`);
    }
    if (!(COLUMNS as readonly string[]).includes(name)) {
      throw new RowError(
        1,
        name,
        `unknown column "${name.slice(0, 64)}": the columns are ${COLUMNS.join(', ')}`,
      );
    }
    if (columns.includes(name as Column)) throw new RowError(1, name, `the column ${name} is named twice`);
    columns.push(name as Column);
  }
  const missing = REQUIRED_COLUMNS.filter((column) => !columns.includes(column));
  if (missing.length > 0) {
    throw new RowError(
      1,
      missing[0],
      `the header must name the columns ${REQUIRED_COLUMNS.join(', ')}; missing: ${missing.join(', ')}`,
    );
  }
  return columns;
}

/**
 * A row's product: its id (when it names one) and the attributes of its non-empty cells, checked with the
 * product API's rules (an empty cell leaves the attribute as it is; `status` and `commodity_type` in any
 * case; `tags` a comma list).
 */
function readRow(record: CsvRecord, columns: Column[]): ImportRow {
  const { line, fields } = record;
  if (fields.length !== columns.length) {
    throw new RowError(line, undefined, `the row has ${fields.length} fields, the header ${columns.length}`);
  }
  const cells: Partial<Record<Column, string>> = {};
  columns.forEach((column, index) => {
    const value = fields[index] ?? '';
    if (value !== '') cells[column] = value;
  });
  const { id, tags, status, commodity_type: commodity, ...text } = cells;
  if (id !== undefined && !isUuid(id))
    throw new RowError(line, 'id', `"${id.slice(0, 64)}" is not a product id`);
  if (id === undefined && text.external_ref === undefined) {
    throw new RowError(
      line,
      'external_ref',
      'a row needs an id or an external_ref: a row that creates a product is keyed by its external_ref',
    );
  }
  const attributes: Record<string, unknown> = { ...text };
  if (status !== undefined) attributes.status = status.toLowerCase();
  if (commodity !== undefined) attributes.commodity_type = commodity.toLowerCase();
  if (tags !== undefined) attributes.tags = tags.split(',').map((tag) => tag.trim());
  try {
    const productId = id?.toLowerCase() ?? '00000000-0000-4000-8000-000000000000';
    const checked = parseProductUpdate({ data: { type: 'product', id: productId, attributes } }, productId);
    return { line, ...(id === undefined ? {} : { id: id.toLowerCase() }), attributes: checked };
  } catch (error) {
    throw rowErrorFrom(line, error);
  }
}

/** The file's rows after its header, each read or its error, stopping past MAX_IMPORT_ROWS. */
async function* rowsOf(source: AsyncIterable<Uint8Array>): AsyncGenerator<ImportRow | RowError> {
  const records = readCsv(source);
  let header: Column[];
  try {
    header = readHeader((await records.next()).value as CsvRecord | undefined);
  } catch (error) {
    yield error instanceof RowError ? error : new RowError(1, undefined, (error as Error).message);
    return;
  }
  let count = 1;
  try {
    for await (const record of records) {
      count += 1;
      if (count > MAX_IMPORT_ROWS) {
        throw new TooManyRowsError();
      }
      try {
        yield readRow(record, header);
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        yield error;
      }
    }
  } catch (error) {
    if (error instanceof TooManyRowsError) throw error;
    const line = (error as { line?: number }).line;
    if (line === undefined) throw error;
    yield new RowError(line, undefined, (error as Error).message.replace(/^line \d+: /, ''));
  }
}

class TooManyRowsError extends Error {
  constructor() {
    super(
      `the file has more than ${MAX_IMPORT_ROWS} rows (the header included): split it into files of at most ${MAX_IMPORT_ROWS} rows; nothing was imported`,
    );
  }
}

/** Where each key was first seen in the file: a second row with the same one is an error. */
class SeenKeys {
  private readonly seen = new Map<string, number>();
  check(row: ImportRow, errors: JobErrorList): boolean {
    const keys: [string, string | undefined][] = [
      ['id', row.id],
      ['external_ref', row.attributes.external_ref],
      ['sku', row.attributes.sku?.toLowerCase()],
    ];
    for (const [column, value] of keys) {
      if (value === undefined) continue;
      const first = this.seen.get(`${column}\u0000${value}`);
      if (first !== undefined) {
        errors.add(
          new RowError(
            row.line,
            column,
            `the same ${column} as line ${first}: a file may name a product once`,
          ).toJobError(),
        );
        return false;
      }
    }
    for (const [column, value] of keys)
      if (value !== undefined) this.seen.set(`${column}\u0000${value}`, row.line);
    return true;
  }
}

/** The product each row updates (undefined: it creates one), from the products and claims of the store. */
async function resolveTargets(storeId: string, rows: ImportRow[]) {
  const externalRefs = rows.flatMap((row) => row.attributes.external_ref ?? []);
  const skus = rows.flatMap((row) => row.attributes.sku ?? []);
  const [found, claims] = await Promise.all([
    productRepository.getMany(
      storeId,
      rows.flatMap((row) => row.id ?? []),
    ),
    productRepository.claimsOf(storeId, { skus, externalRefs }),
  ]);
  const existing = new Map(found.map((product) => [product.id, product]));
  return { existing, claims };
}

/** Step 1 on a batch of rows: what the store says of their ids and claims. */
async function validateBatch(storeId: string, rows: ImportRow[], errors: JobErrorList): Promise<void> {
  if (rows.length === 0) return;
  const { existing, claims } = await resolveTargets(storeId, rows);
  for (const row of rows) {
    const ref = row.attributes.external_ref;
    const byRef = ref === undefined ? undefined : claims.externalRefs.get(ref);
    const target = row.id ?? byRef;
    if (row.id !== undefined && !existing.has(row.id)) {
      errors.add(new RowError(row.line, 'id', `no product has the id ${row.id}`).toJobError());
      continue;
    }
    if (row.id !== undefined && byRef !== undefined && byRef !== row.id) {
      errors.add(new RowError(row.line, 'external_ref', 'Must be unique amongst products.').toJobError());
      continue;
    }
    const sku = row.attributes.sku;
    const skuHolder = sku === undefined ? undefined : claims.skus.get(sku);
    if (skuHolder !== undefined && skuHolder !== target) {
      errors.add(new RowError(row.line, 'sku', 'Must be unique amongst products.').toJobError());
      continue;
    }
    if (target === undefined) {
      try {
        parseNewProduct({ data: { type: 'product', attributes: row.attributes } });
      } catch (error) {
        errors.add(rowErrorFrom(row.line, error).toJobError());
      }
    }
  }
}

/** Step 2 on one row: its create or update through the product service, or its error. */
async function applyRow(storeId: string, row: ImportRow): Promise<RowError | undefined> {
  const update = (id: string) => updateProduct(storeId, id, row.attributes, undefined);
  try {
    if (row.id !== undefined) {
      await update(row.id);
      return undefined;
    }
    const ref = row.attributes.external_ref as string;
    for (let attempt = 1; ; attempt += 1) {
      const holder = (
        await productRepository.claimsOf(storeId, { skus: [], externalRefs: [ref] })
      ).externalRefs.get(ref);
      if (holder !== undefined) {
        await update(holder);
        return undefined;
      }
      try {
        await createProduct(
          storeId,
          row.attributes as Partial<ProductAttributes> & { name: string },
          undefined,
        );
        return undefined;
      } catch (error) {
        // Another writer created the external_ref meanwhile: the row updates that product instead.
        const refTaken =
          error instanceof ApiError &&
          error.status === 409 &&
          error.source === 'data.attributes.external_ref';
        if (!refTaken || attempt >= 2) throw error;
      }
    }
  } catch (error) {
    return rowErrorFrom(row.line, error);
  }
}

/**
 * The `product-import` runner: validates the whole file, then applies it (see above). The job's input
 * names the file's key and the application key that asked for it: an import whose key was deleted
 * before it ran does nothing.
 */
export async function runProductImport(job: JobRecord, context: JobContext): Promise<JobOutcome> {
  const { storeId } = context;
  const fileKey = await importFileKeyOf(job, storeId);
  if (typeof fileKey !== 'string') return fileKey;
  const errors = new JobErrorList();
  const seen = new SeenKeys();
  let batch: ImportRow[] = [];
  try {
    for await (const row of rowsOf(objectStore.read(fileKey))) {
      if (row instanceof RowError) {
        errors.add(row.toJobError());
        continue;
      }
      if (!seen.check(row, errors)) continue;
      batch.push(row);
      if (batch.length === RESOLVE_BATCH) {
        await validateBatch(storeId, batch, errors);
        batch = [];
      }
    }
    await validateBatch(storeId, batch, errors);
  } catch (error) {
    if (!(error instanceof TooManyRowsError)) throw error;
    return { errors: [{ message: error.message }] };
  }
  if (errors.count > 0) return byLine(errors.outcome());

  let pending: ImportRow[] = [];
  const apply = async () => {
    await eachAtMost(pending, IMPORT_CONCURRENCY, async (row) => {
      const failed = await applyRow(storeId, row);
      if (failed) errors.add(failed.toJobError());
    });
    pending = [];
  };
  for await (const row of rowsOf(objectStore.read(fileKey))) {
    // Step 1 found no error: every row reads again as it did.
    if (row instanceof RowError)
      throw new Error(`the import file changed between its two reads (${row.message})`);
    pending.push(row);
    if (pending.length === RESOLVE_BATCH) await apply();
  }
  await apply();
  return byLine(errors.outcome());
}

/**
 * The file an import job reads (its input's `file_key`), or the outcome of a job whose application key
 * (`key_id`, the one that asked for it) was deleted before it ran: nothing imported.
 */
export async function importFileKeyOf(job: JobRecord, storeId: string): Promise<string | JobOutcome> {
  const { file_key: fileKey, key_id: keyId } = job.input as { file_key: string; key_id: string };
  if (await applicationKeyExists(storeId, keyId)) return fileKey;
  return {
    errors: [{ message: 'the application key that started the import was deleted: nothing was imported' }],
  };
}

/** Errors are found out of line order (a batch's checks against the store, rows written side by side): listed by line. */
function byLine(outcome: JobOutcome): JobOutcome {
  outcome.errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return outcome;
}
