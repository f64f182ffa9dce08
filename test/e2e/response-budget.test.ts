import { LAMBDA_RESPONSE_BYTES, PAGE_BUDGET_BYTES, PAGE_SIZE } from '../../lib/catalog/size-budget';
import { createTestStore, type TestStore } from '../support/fixtures';
import { heaviestAcceptedDescription, PARENT_ID, releaseWithChildren } from '../support/large-catalogs';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { publishRelease } from '../support/one-process-publisher';

/*
 * Over HTTP, against both local servers: the heaviest catalog the publisher accepts (100 children with
 * descriptions as long as the response budget allows, each with its own main image and files) serves its
 * largest page, with every include, with 200 and under Lambda's response limit; before the budget, a valid
 * catalog could make a 38 MB page that every local server served and AWS would have refused.
 */

let api: LocalApi;
let store: TestStore;
let token: string;

beforeAll(async () => {
  api = await startLocalApi();
  store = await createTestStore();
  await publishRelease(
    store.store.id,
    releaseWithChildren({ children: PAGE_SIZE, description: heaviestAcceptedDescription(2), ownFiles: 2 }),
  );
  const grant = await fetch(`${api.baseUrl}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'implicit', client_id: store.clientId }).toString(),
  });
  token = ((await grant.json()) as { access_token: string }).access_token;
}, 60_000);
afterAll(() => api.close());

it('serves the largest page of the heaviest accepted catalog, with every include, under the limit', async () => {
  const response = await fetch(
    `${api.baseUrl}/catalog/products/${PARENT_ID}/relationships/children?page[limit]=100&include=main_image,files,component_products`,
    { headers: { authorization: `Bearer ${token}`, 'ep-channel': 'web' } },
  );
  const text = await response.text();
  expect(response.status).toBe(200);
  const body = JSON.parse(text) as { data: unknown[]; included: { files: unknown[] } };
  expect(body.data).toHaveLength(PAGE_SIZE);
  expect(body.included.files).toHaveLength(2 * PAGE_SIZE);
  // Lambda counts the body escaped once more: this one is mostly quotes, so about twice its length.
  const counted = Buffer.byteLength(JSON.stringify(text));
  expect(counted).toBeGreaterThan(PAGE_BUDGET_BYTES * 0.99);
  expect(counted).toBeLessThan(LAMBDA_RESPONSE_BYTES);
});
