import type { Server } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FUNCTIONS, ROUTES } from '../../functions/routes';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { currencyRepository } from '../../lib/store/currency-repository';
import { fileRepository } from '../../lib/store/file-repository';
import { hierarchyRepository } from '../../lib/store/hierarchy-repository';
import { integrationRepository } from '../../lib/store/integration-repository';
import { jobRepository } from '../../lib/store/job-repository';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { priceRepository } from '../../lib/store/price-repository';
import { pricebookRepository } from '../../lib/store/pricebook-repository';
import { productRepository } from '../../lib/store/product-repository';
import { variationRepository } from '../../lib/store/variation-repository';
import { closeServer, createGatewayServer, listen } from '../../local/gateway';
import { createLocalServer } from '../../local/server';
import { createTestStore, type TestStore, tokenFor } from '../support/fixtures';
import {
  newCatalogRule,
  newCurrency,
  newIntegration,
  newPcmCatalog,
  newPcmHierarchy,
  newPcmProduct,
  newPricebook,
  newVariationTree,
} from '../support/pcm-fixtures';
import { rawRequest } from '../support/raw-request';

/*
 * Request bodies are UTF-8 or refused. API Gateway hands a body that is not valid UTF-8 to the function
 * base64-encoded (isBase64Encoded: true), so its bytes arrive intact; the local gateway does the same, and
 * every body-taking function decodes strictly: a Latin-1 byte is a 400 naming it, never a U+FFFD stored.
 */

/** `{"data":{"name":"caf` then Latin-1 é (0xe9): invalid UTF-8 at byte offset 20. */
const LATIN1_JSON = Buffer.concat([
  Buffer.from('{"data":{"name":"caf'),
  Buffer.from([0xe9]),
  Buffer.from('"}}'),
]);
/** The same byte in a form body, at byte offset 33. */
const LATIN1_FORM = Buffer.concat([Buffer.from('grant_type=implicit&client_id=caf'), Buffer.from([0xe9])]);

/** A `file_location` form field (multipart) ending in the same byte, at byte offset 100. */
const MULTIPART_BOUNDARY = 'encoding-test';
const LATIN1_MULTIPART = Buffer.concat([
  Buffer.from(
    `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="file_location"\r\n\r\nhttps://cdn.example.com/caf`,
  ),
  Buffer.from([0xe9]),
  Buffer.from(`\r\n--${MULTIPART_BOUNDARY}--\r\n`),
]);

/** A request with a body of bytes (fetch would not send them as they are). */
async function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
) {
  // Node sends a DELETE's body only with its length declared (no chunked encoding by default for it).
  const response = await rawRequest(
    port,
    method,
    path,
    { ...headers, 'content-length': String(body.length) },
    body,
  );
  return {
    status: response.status,
    contentType: String(response.headers['content-type']),
    body: response.text,
  };
}

describe('the local gateway, as API Gateway', () => {
  let server: Server;
  let port: number;
  const events: APIGatewayProxyEventV2[] = [];

  beforeAll(async () => {
    server = createGatewayServer({
      routes: [{ method: 'POST', path: '/echo', target: 'echo' }],
      invoke: async (_target, event) => {
        events.push(event);
        return { statusCode: 204 };
      },
      describeError: () => 'error',
    });
    port = await listen(server, 0);
  });
  afterAll(() => closeServer(server));

  it('passes a text body that is not valid UTF-8 base64-encoded, byte for byte', async () => {
    await send(port, 'POST', '/echo', { 'content-type': 'application/json' }, LATIN1_JSON);
    expect(events.at(-1)).toMatchObject({ body: LATIN1_JSON.toString('base64'), isBase64Encoded: true });
  });

  it('passes a valid UTF-8 text body as text', async () => {
    await send(port, 'POST', '/echo', { 'content-type': 'application/json' }, Buffer.from('{"name":"café"}'));
    expect(events.at(-1)).toMatchObject({ body: '{"name":"café"}', isBase64Encoded: false });
  });
});

describe('a body that is not valid UTF-8, on every route that takes a body', () => {
  let server: Server;
  let port: number;
  let store: TestStore;
  let adminToken: string;
  let catalogId: string;
  let productId: string;
  let currencyId: string;
  let integrationId: string;
  let pricebookId: string;
  let variation: { variationId: string; optionId: string; modifierId: string };
  let hierarchyId: string;
  let ruleId: string;
  let before: unknown;

  /** What the refused requests could have changed: the store's keys, its mapping, catalogs, releases, variations, hierarchies. */
  const state = async () => ({
    keys: await applicationKeyRepository.list(store.store.id, { limit: 100, offset: 0 }),
    mapping: await mappingRepository.get(store.store.mapping_id, true),
    catalogs: await pcmRepository.listCatalogs(store.store.id),
    releases: await catalogRepository.listReleases(store.store.id),
    files: await fileRepository.all(store.store.id),
    currencies: await currencyRepository.list(store.store.id),
    integrations: await integrationRepository.list(store.store.id),
    pricebooks: await pricebookRepository.page(store.store.id, { limit: 100, offset: 0 }),
    prices: await priceRepository.pricePage(store.store.id, pricebookId, { limit: 100, offset: 0 }),
    priceModifiers: await priceRepository.modifierPage(store.store.id, pricebookId, {
      limit: 100,
      offset: 0,
    }),
    products: await productRepository.all(store.store.id),
    jobs: await jobRepository.page(store.store.id, { limit: 100, offset: 0 }),
    variations: await variationRepository.listVariations(store.store.id),
    modifiers: (
      await variationRepository.getOptionTree(store.store.id, variation.variationId, variation.optionId)
    )?.modifiers,
    hierarchies: await hierarchyRepository.page(store.store.id, { limit: 100, offset: 0 }),
    registry: await catalogRepository.getRegistry(store.store.id),
  });

  beforeAll(async () => {
    server = createLocalServer();
    port = await listen(server, 0);
    store = await createTestStore();
    adminToken = await tokenFor(store);
    catalogId = await newPcmCatalog(store.store.id, 'Encoding', { catalog: { name: 'Kept' }, products: [] });
    productId = await newPcmProduct(store.store.id, 'Encoding', 'ENCODING');
    currencyId = await newCurrency(store.store.id, 'ENC');
    integrationId = await newIntegration(store.store.id, 'Encoding');
    pricebookId = await newPricebook(store.store.id, 'Encoding');
    variation = await newVariationTree(store.store.id, 'Encoding');
    hierarchyId = await newPcmHierarchy(store.store.id, 'Encoding');
    ruleId = await newCatalogRule(store.store.id, 'encoding', catalogId);
    before = await state();
  });
  afterAll(() => closeServer(server));

  const bodyOf = (route: (typeof ROUTES)[number]) => (FUNCTIONS[route.function] as { body?: string }).body;
  const bodyRoutes = ROUTES.filter((route) => bodyOf(route) !== undefined && bodyOf(route) !== 'none');
  const cases = bodyRoutes.flatMap((route) => {
    const key = `${route.method} ${route.path}`;
    const json: [string, string, Buffer, number] = [key, 'application/json', LATIN1_JSON, 20];
    if (bodyOf(route) === 'json-or-form') {
      return [json, [key, 'application/x-www-form-urlencoded', LATIN1_FORM, 33] as typeof json];
    }
    if (bodyOf(route) === 'json-or-multipart' || bodyOf(route) === 'upload') {
      const multipart = `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`;
      return [json, [key, multipart, LATIN1_MULTIPART, 100] as typeof json];
    }
    return [json];
  });

  it('covers each of them', () => {
    expect(cases.map(([key, type]) => `${key} ${type}`)).toEqual([
      'POST /oauth/access_token application/json',
      'POST /oauth/access_token application/x-www-form-urlencoded',
      'POST /v2/application-keys application/json',
      'PUT /v2/application-keys/{id} application/json',
      'PUT /v2/merchant-realm-mappings/{mapping_id} application/json',
      'POST /pcm/catalogs application/json',
      'POST /pcm/catalogs/rules application/json',
      'PUT /pcm/catalogs/rules/{catalog_rule_id} application/json',
      'PUT /pcm/catalogs/{catalog_id} application/json',
      'PUT /pcm/catalogs/{catalog_id}/document application/json',
      'POST /pcm/catalogs/{catalog_id}/releases application/json',
      'POST /v2/files application/json',
      `POST /v2/files multipart/form-data; boundary=${MULTIPART_BOUNDARY}`,
      'POST /v2/currencies application/json',
      'PUT /v2/currencies/{currency_id} application/json',
      'POST /v2/integrations application/json',
      'PUT /v2/integrations/{integration_id} application/json',
      'POST /pcm/pricebooks application/json',
      'POST /pcm/pricebooks/import application/json',
      `POST /pcm/pricebooks/import multipart/form-data; boundary=${MULTIPART_BOUNDARY}`,
      'PUT /pcm/pricebooks/{pricebook_id} application/json',
      'POST /pcm/pricebooks/{pricebook_id}/prices application/json',
      'PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id} application/json',
      'POST /pcm/pricebooks/{pricebook_id}/modifiers application/json',
      'PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id} application/json',
      'POST /pcm/products application/json',
      'PUT /pcm/products/{product_id} application/json',
      'POST /pcm/products/{product_id}/relationships/main_image application/json',
      'PUT /pcm/products/{product_id}/relationships/main_image application/json',
      'DELETE /pcm/products/{product_id}/relationships/main_image application/json',
      'POST /pcm/products/{product_id}/relationships/files application/json',
      'PUT /pcm/products/{product_id}/relationships/files application/json',
      'DELETE /pcm/products/{product_id}/relationships/files application/json',
      'POST /pcm/products/{product_id}/relationships/variations application/json',
      'PUT /pcm/products/{product_id}/relationships/variations application/json',
      'DELETE /pcm/products/{product_id}/relationships/variations application/json',
      'POST /pcm/products/{product_id}/build application/json',
      'POST /pcm/variations application/json',
      'PUT /pcm/variations/{variation_id} application/json',
      'POST /pcm/variations/{variation_id}/options application/json',
      'PUT /pcm/variations/{variation_id}/options/{option_id} application/json',
      'POST /pcm/variations/{variation_id}/options/{option_id}/modifiers application/json',
      'PUT /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id} application/json',
      'POST /pcm/hierarchies application/json',
      'PUT /pcm/hierarchies/{hierarchy_id} application/json',
      'POST /pcm/hierarchies/{hierarchy_id}/nodes application/json',
      'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id} application/json',
      'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children application/json',
      'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent application/json',
      'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products application/json',
      'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products application/json',
      'POST /pcm/products/import application/json',
      `POST /pcm/products/import multipart/form-data; boundary=${MULTIPART_BOUNDARY}`,
    ]);
  });

  it.each(cases)('%s (%s): 400 naming the byte, nothing changed', async (key, contentType, body, offset) => {
    const path = key
      .slice(key.indexOf(' ') + 1)
      .replace('{id}', store.keyId)
      .replace('{mapping_id}', store.store.mapping_id)
      .replace('{catalog_id}', catalogId)
      .replace('{product_id}', productId)
      .replace('{currency_id}', currencyId)
      .replace('{integration_id}', integrationId)
      .replace('{pricebook_id}', pricebookId)
      .replace('{price_id}', productId)
      .replace('{variation_id}', variation.variationId)
      .replace('{option_id}', variation.optionId)
      .replace('{modifier_id}', variation.modifierId)
      .replace('{hierarchy_id}', hierarchyId)
      // Any node id: the body is refused before the node is looked up.
      .replace('{node_id}', hierarchyId)
      .replace('{catalog_rule_id}', ruleId);
    const method = key.slice(0, key.indexOf(' '));
    const response = await send(
      port,
      method,
      path,
      { authorization: `Bearer ${adminToken}`, 'content-type': contentType },
      body,
    );
    expect({ status: response.status, contentType: response.contentType }).toEqual({
      status: 400,
      contentType: 'application/json',
    });
    expect(JSON.parse(response.body)).toEqual({
      errors: [
        {
          status: '400',
          title: 'Bad Request',
          detail: `request body is not valid UTF-8 (byte 0xe9 at offset ${offset}): send it encoded in UTF-8`,
          source: 'body',
          request_id: expect.any(String),
        },
      ],
    });
    expect(await state()).toEqual(before);
  });

  it('refuses a form parameter whose percent-escapes are not UTF-8 (client_id=caf%E9)', async () => {
    const response = await send(
      port,
      'POST',
      '/oauth/access_token',
      { 'content-type': 'application/x-www-form-urlencoded' },
      Buffer.from('grant_type=implicit&client_id=caf%E9'),
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).errors[0]).toMatchObject({
      detail: 'request body is not valid UTF-8 once decoded (%E9 at offset 33): send it encoded in UTF-8',
      source: 'body',
    });
  });
});
