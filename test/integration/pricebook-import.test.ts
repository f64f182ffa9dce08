import { gzipSync } from 'node:zlib';
import FormData from 'form-data';
import { handler as getJobErrors } from '../../functions/pcm-get-job-errors/handler';
import { handler as importPrices } from '../../functions/pcm-import-prices/handler';
import { registerLocalJobQueue } from '../../lib/jobs/queue';
import { MAX_PRICE_IMPORT_OBJECTS } from '../../lib/prices/import';
import { jobRepository } from '../../lib/store/job-repository';
import { priceRepository } from '../../lib/store/price-repository';
import { pricebookRepository } from '../../lib/store/pricebook-repository';
import type { LocalJobQueue } from '../../local/job-queue';
import { startLocalJobs } from '../../local/jobs-local';
import { expectErrorBody } from '../support/error-body';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { newPricebook } from '../support/pcm-fixtures';

/**
 * The JSONL price import (docs/price-books.md#importing-prices) on DynamoDB Local and the local object
 * store: the route stores the file and queues a price-import job, which the local queue runs through the
 * job worker; the job validates the whole file (books, prices, the books they name), then applies it,
 * keyed so that a second run updates what the first created.
 */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
let store: TestStore;
let token: string;
let queue: LocalJobQueue;

beforeAll(async () => {
  queue = startLocalJobs().queue;
});
beforeEach(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});
afterAll(() => registerLocalJobQueue(undefined));

async function post(file: Buffer | string | undefined, extra: [string, string][] = []) {
  const body = new FormData();
  if (file !== undefined)
    body.append('file', Buffer.from(file), { filename: 'prices.jsonl', contentType: 'application/jsonl' });
  for (const [name, value] of extra) body.append(name, value);
  return invoke(importPrices, {
    method: 'POST',
    path: '/pcm/pricebooks/import',
    headers: bearer(token, { ...HEADERS, 'content-type': body.getHeaders()['content-type'] as string }),
    body: body.getBuffer().toString('base64'),
    isBase64Encoded: true,
  });
}

/** Imports `file`, waits for its job: its status and error messages with their lines. */
async function importFile(file: Buffer | string) {
  const created = await post(file);
  expect(created.status).toBe(201);
  expect(created.body.data.attributes).toMatchObject({ type: 'price-import', status: 'pending' });
  await queue.idle();
  const id = created.body.data.id as string;
  const job = await jobRepository.get(store.store.id, id);
  const errors = await invoke(getJobErrors, {
    method: 'GET',
    path: `/pcm/jobs/${id}/errors`,
    pathParameters: { job_id: id },
    headers: bearer(token, HEADERS),
  });
  return {
    status: job?.status,
    errors: errors.body.data.map((e: { attributes: { message: string }; meta?: { line: number } }) => [
      e.meta?.line,
      e.attributes.message,
    ]),
  };
}

const USD = (amount: number) => ({ USD: { amount } });
const bookLine = (attributes: Record<string, unknown>, id?: string) =>
  JSON.stringify({ data: { type: 'pricebook', ...(id === undefined ? {} : { id }), attributes } });
const priceLine = (book: Record<string, string>, attributes: Record<string, unknown>) =>
  JSON.stringify({ data: { type: 'product-price', ...book, attributes } });

async function pricesOf(bookId: string) {
  return (await priceRepository.pricePage(store.store.id, bookId, { limit: 100, offset: 0 })).prices;
}

it('creates a book and its prices (a price line may come before its book, objects may span lines), and a second run updates them', async () => {
  const existing = await newPricebook(store.store.id, 'Existing');
  const file = [
    priceLine(
      { pricebook_external_ref: 'erp-book' },
      { sku: 'TEE-1', currencies: USD(1999), external_ref: 'p1' },
    ),
    JSON.stringify(JSON.parse(bookLine({ name: 'Imported', external_ref: 'erp-book' })), null, 2),
    priceLine({ pricebook_id: existing }, { sku: 'MUG', currencies: USD(500) }),
    '',
  ].join('\n');
  expect(await importFile(file)).toEqual({ status: 'success', errors: [] });
  const { pricebooks } = await pricebookRepository.page(store.store.id, { limit: 10, offset: 0 });
  const imported = pricebooks.find((book) => book.external_ref === 'erp-book');
  expect(imported?.name).toBe('Imported');
  expect((await pricesOf(imported?.id ?? '')).map((p) => [p.sku, p.currencies.USD?.amount])).toEqual([
    ['TEE-1', 1999],
  ]);
  expect((await pricesOf(existing)).map((p) => p.sku)).toEqual(['MUG']);

  // The same file again, with new amounts, gzipped: nothing new is created.
  const again = file.replace('1999', '2499').replace('"Imported"', '"Imported again"');
  expect(await importFile(gzipSync(again))).toEqual({ status: 'success', errors: [] });
  const after = await pricebookRepository.page(store.store.id, { limit: 10, offset: 0 });
  expect(after.total).toBe(2);
  expect(after.pricebooks.find((book) => book.external_ref === 'erp-book')?.name).toBe('Imported again');
  expect((await pricesOf(imported?.id ?? '')).map((p) => [p.sku, p.currencies.USD?.amount])).toEqual([
    ['TEE-1', 2499],
  ]);
});

it('a file with errors imports nothing and names each line', async () => {
  const file = [
    bookLine({ name: 'Fine', external_ref: 'fine' }),
    priceLine({ pricebook_external_ref: 'fine' }, { sku: 'A', currencies: USD(1) }),
    priceLine({ pricebook_external_ref: 'missing' }, { sku: 'B', currencies: USD(1) }),
    priceLine({ pricebook_external_ref: 'fine' }, { sku: 'a', currencies: USD(2) }),
    priceLine({ pricebook_external_ref: 'fine' }, { sku: 'C', currencies: { usd: { amount: 1 } } }),
    JSON.stringify({ data: { type: 'price-modifier', attributes: {} } }),
    bookLine({ name: 'No key' }),
    '{"data": ',
  ].join('\n');
  const { status, errors } = await importFile(file);
  expect(status).toBe('failed');
  expect(errors).toEqual([
    [3, expect.stringContaining('price book external ref not found')],
    [4, expect.stringContaining('the same sku and book as line 2')],
    [5, expect.stringContaining('data.attributes.currencies.usd')],
    [6, expect.stringContaining('price modifiers are not imported')],
    [7, expect.stringContaining('needs a name and an external_ref')],
    [8, expect.stringContaining('not closed')],
  ]);
  expect((await pricebookRepository.page(store.store.id, { limit: 10, offset: 0 })).total).toBe(0);
});

it('refuses a request without a file part (400), writing no job', async () => {
  expectErrorBody(await post(undefined, [['other', 'x']]), 400, /other/, 'other');
  expectErrorBody(await post(''), 400, 'the file is empty', 'file');
  expect((await jobRepository.page(store.store.id, { limit: 10, offset: 0 })).total).toBe(0);
});

it('a file of more than 50,000 objects fails with one error, importing nothing', async () => {
  const file = `${bookLine({ name: 'Too many', external_ref: 'many' })}\n${'{}\n'.repeat(MAX_PRICE_IMPORT_OBJECTS)}`;
  const { status, errors } = await importFile(file);
  expect(status).toBe('failed');
  expect(errors).toEqual([
    [undefined, expect.stringContaining(`more than ${MAX_PRICE_IMPORT_OBJECTS} objects`)],
  ]);
  expect((await pricebookRepository.page(store.store.id, { limit: 10, offset: 0 })).total).toBe(0);
});
