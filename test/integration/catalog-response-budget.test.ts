import { handler as getProduct } from '../../functions/get-catalog-product/handler';
import { handler as listProducts } from '../../functions/list-catalog-products/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import {
  LAMBDA_RESPONSE_BYTES,
  PAGE_BUDGET_BYTES,
  PAGE_SIZE,
  responseBytes,
} from '../../lib/catalog/size-budget';
import { ReleaseValidationError } from '../../lib/catalog/validate-release';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { LAMBDA_MAX_RESPONSE_BYTES, lambdaResponseBytes } from '../../local/gateway';
import { listChildren } from '../support/catalog-fixtures';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import {
  childId,
  heaviestAcceptedDescription,
  PARENT_ID,
  releaseWithChildren,
} from '../support/large-catalogs';
import { publishRelease } from '../support/one-process-publisher';

/**
 * The heaviest catalog the publisher accepts, served: 100 children whose descriptions are as long as the
 * response budget allows (quotes, the character that weighs most in a Lambda response), each with a main
 * image and two files of its own. Its largest pages, with every include, must leave Lambda (at most
 * 6,291,556 bytes serialized); one character more and the publisher refuses the release, changing nothing.
 */

const OWN_FILES = 2;
const INCLUDE = 'include=main_image,files,component_products';
const WEB = { 'svc-channel': 'web' };

const FITS = heaviestAcceptedDescription(OWN_FILES);

let store: TestStore;
let implicit: string;
let releaseId: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  implicit = await tokenFor(store, 'implicit');
  const published = await publishRelease(
    store.store.id,
    releaseWithChildren({ children: PAGE_SIZE, description: FITS, ownFiles: OWN_FILES }),
  );
  releaseId = published.release_id;
}, 60_000);

beforeEach(() => clearCatalogCaches());

/** What Lambda would count for this answer. */
function lambdaBytes(response: InvokeResult): number {
  return lambdaResponseBytes({ statusCode: response.status, headers: response.headers, body: response.raw });
}

function expectServed(response: InvokeResult, products: number): void {
  expect(response.status).toBe(200);
  expect(response.body.data).toHaveLength(products);
  expect(lambdaBytes(response)).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
}

describe('the heaviest release the response budget accepts', () => {
  it('counts Lambda limit as the local servers enforce it', () => {
    expect(LAMBDA_RESPONSE_BYTES).toBe(LAMBDA_MAX_RESPONSE_BYTES);
  });

  it('serves its child list of 100 with every include under the budget, close to what the publisher predicted', async () => {
    const response = await listChildren(implicit, PARENT_ID, `page[limit]=100&${INCLUDE}`);
    expectServed(response, PAGE_SIZE);
    expect(response.body.included.main_images).toHaveLength(PAGE_SIZE);
    expect(response.body.included.files).toHaveLength(PAGE_SIZE * OWN_FILES);
    const body = responseBytes(response.raw);
    // `data` and `included` are what the budget bounds; meta and links add under a kilobyte.
    expect(body).toBeLessThanOrEqual(PAGE_BUDGET_BYTES + 1024);
    expect(body).toBeGreaterThan(PAGE_BUDGET_BYTES * 0.99);
  });

  it('serves the product list of 100 with every include (the release-wide list holds the same products)', async () => {
    const response = await invoke(listProducts, {
      method: 'GET',
      path: `/catalog/products?page[limit]=100&${INCLUDE}`,
      routeKey: 'GET /catalog/products',
      headers: bearer(implicit, WEB),
    });
    expectServed(response, PAGE_SIZE);
  });

  it('serves one of its products with every include', async () => {
    const response = await invoke(getProduct, {
      method: 'GET',
      path: `/catalog/products/${childId(7)}?${INCLUDE}`,
      routeKey: 'GET /catalog/products/{product_id}',
      pathParameters: { product_id: childId(7) },
      headers: bearer(implicit, WEB),
    });
    expect(response.status).toBe(200);
    expect(response.body.data.id).toBe(childId(7));
    expect(lambdaBytes(response)).toBeLessThan(PAGE_BUDGET_BYTES / 50);
  });

  it('refuses the same catalog with one character more in each description, and keeps serving the current release', async () => {
    const over = releaseWithChildren({ children: PAGE_SIZE, description: FITS + 1, ownFiles: OWN_FILES });
    const error = await publishRelease(store.store.id, over).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReleaseValidationError);
    expect((error as ReleaseValidationError).issues[0]).toMatchObject({
      path: expect.stringMatching(/^products\[\d+\]$/),
      rule: 'response_size',
    });
    const registry = await catalogRepository.getRegistry(store.store.id);
    expect(Object.values(registry?.catalogs ?? {}).map((catalog) => catalog.release.id)).toEqual([releaseId]);
  });
});
