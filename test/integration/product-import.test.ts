import FormData from 'form-data';
import { handler as createImportUpload } from '../../functions/pcm-create-import-upload/handler';
import { handler as getJob } from '../../functions/pcm-get-job/handler';
import { handler as getJobErrors } from '../../functions/pcm-get-job-errors/handler';
import { handler as importProducts } from '../../functions/pcm-import-products/handler';
import { registerLocalJobQueue } from '../../lib/jobs/queue';
import { MAX_IMPORT_ROWS } from '../../lib/products/import';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { jobRepository } from '../../lib/store/job-repository';
import { productRepository } from '../../lib/store/product-repository';
import type { LocalJobQueue } from '../../local/job-queue';
import { startLocalJobs } from '../../local/jobs-local';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';

/**
 * The CSV product import (docs/jobs.md) on DynamoDB Local and the local object store: the route stores the
 * file and queues a product-import job, which the local queue runs through the job worker's handler; the
 * job validates the whole file, then creates and updates products.
 */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const HEADER = 'external_ref,name,description,slug,status,commodity_type,sku,tags';

let store: TestStore;
let token: string;
let queue: LocalJobQueue;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
  queue = startLocalJobs().queue;
});
afterAll(() => registerLocalJobQueue(undefined));

function form(file: string | Buffer | undefined, extra: [string, string][] = []) {
  const body = new FormData();
  if (file !== undefined)
    body.append('file', Buffer.from(file), { filename: 'products.csv', contentType: 'text/csv' });
  for (const [name, value] of extra) body.append(name, value);
  return body;
}

async function post(body: FormData, as = token) {
  return invoke(importProducts, {
    method: 'POST',
    path: '/pcm/products/import',
    headers: bearer(as, { ...HEADERS, 'content-type': body.getHeaders()['content-type'] as string }),
    body: body.getBuffer().toString('base64'),
    isBase64Encoded: true,
  });
}

/** Imports `csv` and waits for its job to end: the job as the API answers it, and its error messages. */
async function importCsv(csv: string, as = token) {
  const created = await post(form(csv), as);
  expect(created.status).toBe(201);
  await queue.idle();
  const id = created.body.data.id as string;
  const job = await invoke(getJob, {
    method: 'GET',
    path: `/pcm/jobs/${id}`,
    pathParameters: { job_id: id },
    headers: bearer(as, HEADERS),
  });
  const errors = await invoke(getJobErrors, {
    method: 'GET',
    path: `/pcm/jobs/${id}/errors`,
    pathParameters: { job_id: id },
    headers: bearer(as, HEADERS),
  });
  return {
    created: created.body.data,
    job: job.body.data,
    errors: errors.body.data.map(
      (e: { attributes: { message: string } }) => e.attributes.message,
    ) as string[],
    errorMeta: errors.body.data.map((e: { meta?: unknown }) => e.meta),
  };
}

const productsBySku = async (storeId = store.store.id) =>
  new Map((await productRepository.all(storeId)).map((p) => [p.attributes.sku ?? '', p]));

describe('POST /pcm/products/import', () => {
  it('answers a pending product-import job, which creates the rows’ products', async () => {
    const csv = [
      HEADER,
      'imp-1,Imported tee,"A tee, ""soft""",imported-tee,Live,Physical,IMP-1,"summer,Sale"',
      'imp-2,Imported cap,,,draft,digital,IMP-2,',
    ].join('\r\n');
    const { created, job, errors } = await importCsv(csv);
    expect(created).toMatchObject({
      type: 'pim-job',
      attributes: { type: 'product-import', status: 'pending', started_at: null, completed_at: null },
      meta: { x_request_id: expect.any(String) },
    });
    expect(errors).toEqual([]);
    expect(job.attributes.status).toBe('success');
    const products = await productsBySku();
    expect(products.get('IMP-1')?.attributes).toMatchObject({
      name: 'Imported tee',
      description: 'A tee, "soft"',
      slug: 'imported-tee',
      status: 'live',
      commodity_type: 'physical',
      external_ref: 'imp-1',
      tags: ['summer', 'sale'],
    });
    expect(products.get('IMP-2')?.attributes).toMatchObject({
      name: 'Imported cap',
      slug: 'imported-cap',
      status: 'draft',
    });
  });

  it('updates by id and by external_ref, changing only the non-empty cells; a second run changes nothing more', async () => {
    await importCsv([HEADER, 'upd-1,First,First description,,live,physical,UPD-1,'].join('\n'));
    const before = (await productsBySku()).get('UPD-1');
    const id = before?.id ?? '';
    const csv = [`id,${HEADER}`, `${id},,Renamed,,,,,,`, ',upd-2,Second,,,draft,physical,UPD-2,'].join('\n');
    for (let run = 1; run <= 2; run += 1) {
      const { job, errors } = await importCsv(csv);
      expect([run, errors, job.attributes.status]).toEqual([run, [], 'success']);
    }
    const after = await productsBySku();
    expect(after.get('UPD-1')).toMatchObject({
      id,
      attributes: {
        name: 'Renamed',
        description: 'First description',
        status: 'live',
        external_ref: 'upd-1',
      },
    });
    expect([...after.values()].filter((p) => p.attributes.external_ref === 'upd-2')).toHaveLength(1);
    const byRef = await importCsv([HEADER, 'upd-2,Second again,,,,,,'].join('\n'));
    expect(byRef.errors).toEqual([]);
    expect((await productsBySku()).get('UPD-2')?.attributes.name).toBe('Second again');
  });

  it('fails with every row error (line and column) and imports nothing when any row is wrong', async () => {
    const taken = 'TAKEN-SKU';
    await importCsv([HEADER, `taken,Holder,,,live,physical,${taken},`].join('\n'));
    const csv = [
      HEADER,
      'ok-1,Fine,,,live,physical,OK-1,',
      'bad-status,Bad status,,,published,physical,,',
      `sku-taken,Sku taken,,,live,physical,${taken.toLowerCase()},`,
      ',No key,,,live,physical,,',
      'ok-1,Twice,,,live,physical,,',
      'no-name,,,,live,physical,,',
      'short,row',
      'bad-tags,Tags,,,live,physical,,"a b"',
    ].join('\n');
    const { job, errors, errorMeta } = await importCsv(csv);
    expect(job.attributes.status).toBe('failed');
    expect(errors).toEqual([
      expect.stringMatching(/^line 3, column status: /),
      'line 4, column sku: Must be unique amongst products.',
      'line 5, column external_ref: a row needs an id or an external_ref: a row that creates a product is keyed by its external_ref',
      'line 6, column external_ref: the same external_ref as line 2: a file may name a product once',
      expect.stringMatching(/^line 7, column name: /),
      'line 8: the row has 2 fields, the header 8',
      expect.stringMatching(/^line 9, column tags: /),
    ]);
    expect(errorMeta[0]).toEqual({ line: 3, column: 'status' });
    expect((await productsBySku()).has('OK-1')).toBe(false);
  });

  it('fails a file with an unknown or unsupported column, or missing a required one, at line 1', async () => {
    const unknown = await importCsv(
      'external_ref,name,description,slug,status,commodity_type,colour\nx,X,,,live,physical,red',
    );
    expect(unknown.errors).toEqual([
      expect.stringMatching(/^line 1, column colour: unknown column "colour"/),
    ]);
    const image = await importCsv('external_ref,name,description,slug,status,commodity_type,main_image_id\n');
    expect(image.errors).toEqual([
      'line 1, column main_image_id: the column main_image_id is not supported here: leave it out',
    ]);
    const missing = await importCsv('external_ref,name\nx,X');
    expect(missing.errors[0]).toContain('missing: description, slug, status, commodity_type');
  });

  it('fails a file that is not RFC 4180 CSV or not UTF-8, naming the line', async () => {
    const quote = await importCsv(`${HEADER}\nq,Bad "quote",,,live,physical,,`);
    expect(quote.errors).toEqual([expect.stringMatching(/^line 2: a quote inside an unquoted field/)]);
    const created = await post(
      form(
        Buffer.concat([
          Buffer.from(`${HEADER}\nx,`),
          Buffer.from([0xff]),
          Buffer.from(',,,live,physical,,\n'),
        ]),
      ),
    );
    await queue.idle();
    const errors = await jobRepository.errorsPage(store.store.id, created.body.data.id, {
      limit: 5,
      offset: 0,
    });
    expect(errors.errors.map((e) => e.message)).toEqual([
      'line 2: the file is not valid UTF-8: save it as UTF-8',
    ]);
  });

  it(`fails a file of more than ${MAX_IMPORT_ROWS} rows and imports none of them`, async () => {
    const rows = [HEADER];
    for (let n = 1; n <= MAX_IMPORT_ROWS; n += 1) rows.push(`many-${n},Many ${n},,,live,physical,,`);
    const { job, errors } = await importCsv(rows.join('\n'));
    expect(job.attributes.status).toBe('failed');
    expect(errors).toEqual([
      `the file has more than ${MAX_IMPORT_ROWS} rows (the header included): split it into files of at most ${MAX_IMPORT_ROWS} rows; nothing was imported`,
    ]);
    expect([...(await productsBySku()).values()].some((p) => p.attributes.external_ref === 'many-1')).toBe(
      false,
    );
  }, 120_000);

  it('does nothing when the key that asked for it was deleted before it ran', async () => {
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const otherToken = await tokenFor(other);
    registerLocalJobQueue(() => undefined);
    const created = await post(form([HEADER, 'gone,Gone,,,live,physical,,'].join('\n')), otherToken);
    expect(created.status).toBe(201);
    await applicationKeyRepository.delete(other.store.id, other.keyId);
    const { runJob } = await import('../../lib/jobs/worker');
    await runJob({ store_id: other.store.id, job_id: created.body.data.id }, 1, {
      requestId: 'r',
      remainingMs: () => 1,
    });
    queue = startLocalJobs().queue;
    const job = await jobRepository.get(other.store.id, created.body.data.id);
    expect(job?.status).toBe('failed');
    expect(await productRepository.all(other.store.id)).toEqual([]);
  });

  it.each([
    ['no file field', () => form(undefined, [['other', 'x']]), 'other'],
    ['a text field named file', () => form(undefined, [['file', 'id,name']]), 'file'],
    ['an empty file', () => form(''), 'file'],
    ['an extra field', () => form(HEADER, [['locale', 'en-US']]), 'locale'],
  ])('refuses %s (400, nothing queued)', async (_what, build, source) => {
    const response = await post(build());
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe(source);
  });

  it('refuses another media type (415) and a storefront token (403)', async () => {
    const text = await invoke(importProducts, {
      method: 'POST',
      path: '/pcm/products/import',
      headers: bearer(token, { ...HEADERS, 'content-type': 'text/csv' }),
      body: HEADER,
    });
    expect(text.status).toBe(415);
    expect((await post(form(HEADER), await tokenFor(store, 'implicit'))).status).toBe(403);
  });
});

describe('a larger file: POST /pcm/products/import-uploads, PUT, then the import by upload id', () => {
  const postJson = (body: unknown) =>
    invoke(importProducts, {
      method: 'POST',
      path: '/pcm/products/import',
      headers: bearer(token, { ...HEADERS, 'content-type': 'application/json' }),
      body: JSON.stringify(body),
    });

  it('imports the file PUT to the pre-signed URL', async () => {
    const upload = await invoke(createImportUpload, {
      method: 'POST',
      path: '/pcm/products/import-uploads',
      headers: bearer(token, HEADERS),
    });
    expect(upload.status).toBe(201);
    expect(upload.body.data).toMatchObject({
      type: 'product-import-upload',
      method: 'PUT',
      headers: { 'Content-Type': 'text/csv' },
    });
    const put = await fetch(upload.body.data.upload_url, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/csv' },
      body: [HEADER, 'big-1,Uploaded,,,live,physical,BIG-1,'].join('\n'),
    });
    expect(put.status).toBe(200);
    const created = await postJson({ data: { type: 'product-import', upload_id: upload.body.data.id } });
    expect(created.status).toBe(201);
    await queue.idle();
    expect((await jobRepository.get(store.store.id, created.body.data.id))?.status).toBe('success');
    expect((await productsBySku()).get('BIG-1')?.attributes.name).toBe('Uploaded');
  });

  it.each([
    [
      'an upload id nothing was PUT to',
      { data: { type: 'product-import', upload_id: '00000000-0000-4000-8000-000000000000' } },
      'data.upload_id',
    ],
    [
      'an upload id that is not one',
      { data: { type: 'product-import', upload_id: '../x' } },
      'data.upload_id',
    ],
    ['another type', { data: { type: 'product', upload_id: 'x' } }, 'data.type'],
    ['another attribute', { data: { type: 'product-import', upload_id: 'x', locale: 'en' } }, 'data.locale'],
    ['no data', {}, 'data'],
  ])('refuses %s (400, nothing queued)', async (_what, body, source) => {
    const response = await postJson(body);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe(source);
  });
});
