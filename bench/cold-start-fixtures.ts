import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';
import sampleRelease from '../catalog/sample-release.json';
import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../lib/catalog/pipeline/start';
import {
  abandonStep,
  deriveStep,
  exportStep,
  mergeStep,
  planStep,
  readManifest,
  readRanges,
  validateStep,
  writeStep,
} from '../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput, WorkflowStepName } from '../lib/catalog/pipeline/workflow';
import { uuidv4, uuidv7 } from '../lib/ids';
import { registerLocalDeliveryQueue } from '../lib/integrations/queue';
import { type QueuedMessage, registerLocalJobQueue } from '../lib/jobs/queue';
import { enqueueJob } from '../lib/jobs/service';
import { createRelease } from '../lib/pcm/publishing';
import { pcmRepository } from '../lib/store/pcm-repository';
import { createLambdaContext } from '../local/http-event';
import { loadHandler, matchRoute } from '../local/router';
import {
  failedRelease,
  newCatalogRule,
  newFile,
  newIntegration,
  newPcmCatalog,
  newPcmHierarchy,
  newPcmNode,
  newPcmProduct,
  newPrice,
  newPricebook,
  newPriceModifier,
  newVariationTree,
} from '../test/support/pcm-fixtures';
import type { ColdStartSpec } from './cold-start';
import { createScenario, type Scenario } from './scenario';
import { progress } from './support';

/**
 * Cold-start events for the catalog API's functions (catalogs, releases, rules, price books, variations,
 * hierarchies, jobs, imports), the publishing workflow's steps and the two queue consumers: the stores,
 * an authored catalog with a published release, a document in the local object store and a small release
 * in progress for each step, built in this process (the object store must be configured first).
 */

/** Products of the authored catalog: a small release, so each step's input is cheap to rebuild per run. */
const AUTHORED_PRODUCTS = 20;
const USD_100 = { USD: { amount: 100, includes_tax: false } };
const IMPORT_BOUNDARY = 'cold-start-import';

/** The document of the catalog API's document catalogs: the sample catalog without its rules and catalog id. */
const DOCUMENT = (() => {
  const { rules: _rules, catalog: _catalog, ...rest } = structuredClone(sampleRelease);
  return { ...rest, catalog: { name: 'Cold-start catalog' } };
})();

/** A multipart form with one file part, as the import routes take it. */
function multipart(filename: string, contentType: string, content: string): string {
  return [
    `--${IMPORT_BOUNDARY}`,
    `Content-Disposition: form-data; name="file"; filename="${filename}"`,
    `Content-Type: ${contentType}`,
    '',
    content,
    `--${IMPORT_BOUNDARY}--`,
    '',
  ].join('\r\n');
}
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${IMPORT_BOUNDARY}` };

/** What the bench process does when a release starts its workflow: set per release by the fixtures. */
let onWorkflow: (input: ReleaseExecutionInput) => Promise<unknown> = (input) => runWorkflowLocally(input);
/** Job messages the bench process's job queue was sent, newest last (the job worker's events use them). */
const jobMessages: QueuedMessage[] = [];

/** An admin request through the function's handler in this process, as the fixtures' own setup: its body. */
async function call(
  s: Scenario,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ data: { id: string } & Record<string, unknown> }> {
  const match = matchRoute(method, path.split('?')[0] ?? path);
  if (!match) throw new Error(`no route for ${method} ${path}`);
  const handler = await loadHandler(match.route.function);
  const result = (await handler(
    s.event(method, path, { token: s.adminToken, body }),
    createLambdaContext(match.route.function),
  )) as { statusCode: number; body?: string };
  if (result.statusCode >= 300)
    throw new Error(`cold-start fixture: ${method} ${path} answered ${result.statusCode}: ${result.body}`);
  return result.body ? JSON.parse(result.body) : { data: { id: '' } };
}

/** Abandons the catalog's release in progress, if any, so that the catalog may publish again. */
async function endReleaseInProgress(storeId: string, catalogId: string): Promise<void> {
  const catalog = await pcmRepository.getCatalog(storeId, catalogId);
  if (catalog?.publishing === undefined) return;
  const release = await pcmRepository.getRelease(storeId, catalogId, catalog.publishing);
  if (!release) return;
  await abandonStep({
    store_id: storeId,
    catalog_id: catalogId,
    release_id: release.release_id,
    document_key: release.document_key,
    export: (catalog.hierarchy_ids ?? []).length > 0,
    error: { Error: 'ColdStartBench', Cause: 'the cold-start bench measured a step of it' },
  });
}

/** A new release of the catalog, its workflow not run: the execution's input. */
async function releaseInput(storeId: string, catalogId: string): Promise<ReleaseExecutionInput> {
  await endReleaseInProgress(storeId, catalogId);
  let captured: ReleaseExecutionInput | undefined;
  onWorkflow = async (input) => {
    captured = input;
  };
  try {
    await createRelease(storeId, catalogId, undefined);
  } finally {
    onWorkflow = (input) => runWorkflowLocally(input);
  }
  if (!captured) throw new Error(`the release of catalog ${catalogId} started no workflow`);
  return captured;
}

/**
 * The input of `step` for a new release of the catalog: the steps before it run here, in the state
 * machine's order (lib/catalog/pipeline/run-local.ts), so the measured process runs the step on a
 * realistic state of a small release in progress.
 */
async function stepInput(step: WorkflowStepName, storeId: string, catalogId: string): Promise<unknown> {
  const input = await releaseInput(storeId, catalogId);
  if (step === 'release-export') return input;
  // Each step is given what the step before it answered, as the state machine passes it on.
  const exported = await exportStep(input);
  if (!exported.valid) throw new Error('cold-start fixture: the authored release did not export');
  if (step === 'release-validate') return exported;
  const validated = await validateStep(exported);
  if (!validated.valid) throw new Error('cold-start fixture: the release is invalid');
  if (step === 'release-abandon')
    return { ...validated, error: { Error: 'ColdStartBench', Cause: 'abandoned by the cold-start bench' } };
  if (step === 'release-plan') return validated;
  const planned = await planStep(validated);
  const ranges = await readRanges(planned.ranges_key);
  if (step === 'release-derive') return { ...input, range: ranges[0] };
  for (const range of ranges) await deriveStep({ ...input, range });
  if (step === 'release-merge') return planned;
  const merged = await mergeStep(planned);
  const chunks = await readManifest(merged.manifest_key);
  if (step === 'release-write') return { ...input, chunk: chunks[0] };
  for (const chunk of chunks) await writeStep({ ...input, chunk });
  return merged;
}

/** A local webhook receiver answering 200 to every delivery. */
async function startReceiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

/** One SQS record of `body`, as the queue's event source mapping hands it, received `receiveCount` times. */
function sqsEvent(body: string, receiveCount = 1): SQSEvent {
  const messageId = uuidv4();
  return {
    Records: [
      {
        messageId,
        receiptHandle: `cold-start-${messageId}`,
        body,
        attributes: {
          ApproximateReceiveCount: String(receiveCount),
          SentTimestamp: String(Date.now()),
          SenderId: 'cold-start',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:cold-start',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

export interface ColdStartFixtures {
  specs: Record<string, ColdStartSpec>;
  stop(): Promise<void>;
}

/** Builds the fixtures and the events of every function it covers (see the module's comment). */
export async function setUpColdStartFixtures(): Promise<ColdStartFixtures> {
  registerLocalWorkflow((input) => onWorkflow(input));
  registerLocalJobQueue((message) => {
    jobMessages.push(message);
  });
  registerLocalDeliveryQueue({ send: () => undefined, delay: () => undefined });
  const receiver = await startReceiver();

  // The authored catalog: a hierarchy with a node holding every product, a price per sku; its release published.
  progress(`cold-start fixtures: an authored catalog of ${AUTHORED_PRODUCTS} products, published`);
  const s = await createScenario(1);
  const store = s.store.id;
  const admin = s.adminToken;
  const tag = uuidv7().slice(-8);
  const hierarchyId = await newPcmHierarchy(store, 'Cold hierarchy');
  const nodeId = await newPcmNode(store, hierarchyId, 'Cold node');
  const childNodeId = await newPcmNode(store, hierarchyId, 'Cold child', nodeId);
  const pricebookId = await newPricebook(store, 'Cold book');
  const productIds: string[] = [];
  for (let i = 0; i < AUTHORED_PRODUCTS; i += 1) {
    // Live: a release exports the live products attached to its hierarchies.
    const sku = `cold-${tag}-${i}`;
    const attributes = { name: `Cold product ${i}`, sku, status: 'live', commodity_type: 'physical' };
    productIds.push(
      (await call(s, 'POST', '/pcm/products', { data: { type: 'product', attributes } })).data.id,
    );
    await newPrice(store, pricebookId, sku);
  }
  await call(s, 'POST', `/pcm/hierarchies/${hierarchyId}/nodes/${nodeId}/relationships/products`, {
    data: productIds.map((id) => ({ type: 'product', id })),
  });
  const authored = { hierarchy_ids: [hierarchyId], pricebook_id: pricebookId };
  const newAuthoredCatalog = async (name: string) =>
    (await call(s, 'POST', '/pcm/catalogs', { data: { type: 'catalog', attributes: { name, ...authored } } }))
      .data.id;
  const catalogId = await newAuthoredCatalog('Cold catalog');
  let published: Promise<unknown> = Promise.resolve();
  onWorkflow = (input) => {
    published = runWorkflowLocally(input);
    return published;
  };
  const { release_id: releaseId } = await createRelease(store, catalogId, undefined);
  await published;
  onWorkflow = (input) => runWorkflowLocally(input);
  const release = await pcmRepository.getRelease(store, catalogId, releaseId);
  if (release?.state !== 'PUBLISHED')
    throw new Error(
      `the cold-start catalog's release is ${release?.state}: ${JSON.stringify(release?.errors)}`,
    );

  progress('cold-start fixtures: documents, rules, price books, variations, nodes, jobs, integrations');
  // Document catalogs: one whose document and name change, one releasing, one whose releases are deleted.
  const documentCatalogId = await newPcmCatalog(store, 'Cold document catalog', DOCUMENT);
  const releasingCatalogId = await newPcmCatalog(store, 'Cold releasing catalog', DOCUMENT);
  const pruneCatalogId = await newPcmCatalog(store, 'Cold pruned catalog', DOCUMENT);
  const ruleId = await newCatalogRule(store, `cold-${tag}`, catalogId);
  const pricesBookId = await newPricebook(store, 'Cold prices book');
  const priceId = await newPrice(store, pricesBookId, `cold-price-${tag}`);
  const priceModifierId = await newPriceModifier(store, pricesBookId, 'Cold modifier');
  const fileId = await newFile(store, 'https://cdn.example.com/cold/main.png');
  const variation = await newVariationTree(store, 'Cold variation');
  const editable = await newVariationTree(store, 'Cold editable variation');
  const productId = productIds[0] as string;
  const parentId = await newPcmProduct(store, 'Cold parent', `cold-${tag}-parent`);
  await call(s, 'POST', `/pcm/products/${parentId}/relationships/variations`, {
    data: [{ type: 'product-variation', id: variation.variationId }],
  });
  const editableHierarchyId = await newPcmHierarchy(store, 'Cold editable hierarchy');
  const editableNodeId = await newPcmNode(store, editableHierarchyId, 'Cold editable node');
  const jobId = (await enqueueJob(store, 'product-import', {}, 'cold-start')).id;
  // The job worker's store: nothing else queued there, so each run's build job is the store's next.
  const builds = await createScenario(1);
  const buildParentId = await newPcmProduct(builds.store.id, 'Cold build parent', `cold-${tag}-build`);
  const buildVariation = await newVariationTree(builds.store.id, 'Cold build variation');
  await call(builds, 'POST', `/pcm/products/${buildParentId}/relationships/variations`, {
    data: [{ type: 'product-variation', id: buildVariation.variationId }],
  });
  const integrationId = await newIntegration(store, 'Cold receiver', receiver.url);
  // One authored catalog per workflow step: each run starts a release of its own there.
  const stepCatalogs = new Map<WorkflowStepName, string>();
  for (const step of [
    'release-export',
    'release-validate',
    'release-plan',
    'release-derive',
    'release-merge',
    'release-write',
    'release-switch',
    'release-abandon',
  ] as const)
    stepCatalogs.set(step, await newAuthoredCatalog(`Cold ${step}`));

  const ev = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    s.event(method, path, { token: admin, body, ...(headers ? { headers } : {}) });
  const api = (
    status: number,
    event: (run: number) => APIGatewayProxyEventV2 | Promise<APIGatewayProxyEventV2>,
  ): ColdStartSpec => ({ expect: status, event });
  const fresh = () => uuidv4().slice(0, 8);
  const book = `/pcm/pricebooks/${pricesBookId}`;
  const option = `/pcm/variations/${editable.variationId}/options/${editable.optionId}`;
  const editableNode = `/pcm/hierarchies/${editableHierarchyId}/nodes`;
  const step = (name: WorkflowStepName, check: (result: unknown) => boolean): ColdStartSpec => ({
    expect: check,
    event: () => stepInput(name, store, stepCatalogs.get(name) as string),
  });
  const valid = (result: unknown) => (result as { valid?: boolean }).valid === true;

  const specs: Record<string, ColdStartSpec> = {
    // Catalogs and releases.
    'pcm-create-catalog': api(201, (run) =>
      ev('POST', '/pcm/catalogs', { data: { type: 'catalog', attributes: { name: `Cold ${run}` } } }),
    ),
    'pcm-get-catalog': api(200, () => ev('GET', `/pcm/catalogs/${catalogId}`)),
    'pcm-update-catalog': api(200, (run) =>
      ev('PUT', `/pcm/catalogs/${documentCatalogId}`, {
        data: { type: 'catalog', attributes: { name: `Renamed ${run}` } },
      }),
    ),
    'pcm-delete-catalog': api(204, async () =>
      ev('DELETE', `/pcm/catalogs/${await newPcmCatalog(store, 'Doomed catalog', DOCUMENT)}`),
    ),
    'pcm-put-catalog-document': api(200, () =>
      ev('PUT', `/pcm/catalogs/${documentCatalogId}/document`, DOCUMENT),
    ),
    'pcm-create-document-upload': api(201, () =>
      ev('POST', `/pcm/catalogs/${documentCatalogId}/document-uploads`),
    ),
    'pcm-create-release': api(201, async () => {
      await endReleaseInProgress(store, releasingCatalogId);
      return ev('POST', `/pcm/catalogs/${releasingCatalogId}/releases`);
    }),
    'pcm-list-releases': api(200, () => ev('GET', `/pcm/catalogs/${catalogId}/releases`)),
    'pcm-get-release': api(200, () => ev('GET', `/pcm/catalogs/${catalogId}/releases/${releaseId}`)),
    'pcm-delete-release': api(204, async () =>
      ev('DELETE', `/pcm/catalogs/${pruneCatalogId}/releases/${await failedRelease(store, pruneCatalogId)}`),
    ),
    'pcm-delete-releases': api(204, async () => {
      await failedRelease(store, pruneCatalogId);
      return ev('DELETE', `/pcm/catalogs/${pruneCatalogId}/releases`);
    }),
    // Catalog rules.
    'pcm-create-catalog-rule': api(201, () =>
      ev('POST', '/pcm/catalogs/rules', {
        data: { type: 'catalog_rule', attributes: { name: `cold-${fresh()}`, catalog_id: catalogId } },
      }),
    ),
    'pcm-list-catalog-rules': api(200, () => ev('GET', '/pcm/catalogs/rules')),
    'pcm-get-catalog-rule': api(200, () => ev('GET', `/pcm/catalogs/rules/${ruleId}`)),
    'pcm-update-catalog-rule': api(200, () =>
      ev('PUT', `/pcm/catalogs/rules/${ruleId}`, {
        data: { id: ruleId, type: 'catalog_rule', attributes: { name: `renamed-${fresh()}` } },
      }),
    ),
    'pcm-delete-catalog-rule': api(204, async () =>
      ev('DELETE', `/pcm/catalogs/rules/${await newCatalogRule(store, `doomed-${fresh()}`, catalogId)}`),
    ),
    // Price books, prices and price modifiers.
    'pcm-create-pricebook': api(201, () =>
      ev('POST', '/pcm/pricebooks', { data: { type: 'pricebook', attributes: { name: `Cold ${fresh()}` } } }),
    ),
    'pcm-list-pricebooks': api(200, () => ev('GET', '/pcm/pricebooks')),
    'pcm-list-all-prices': api(200, () => ev('GET', '/pcm/pricebooks/prices')),
    'pcm-import-prices': api(201, () =>
      ev(
        'POST',
        '/pcm/pricebooks/import',
        multipart(
          'prices.jsonl',
          'application/jsonl',
          JSON.stringify({
            data: { type: 'pricebook', attributes: { name: `Imported ${fresh()}`, external_ref: fresh() } },
          }),
        ),
        MULTIPART,
      ),
    ),
    'pcm-get-pricebook': api(200, () => ev('GET', book)),
    'pcm-update-pricebook': api(200, () =>
      ev('PUT', book, { data: { type: 'pricebook', attributes: { name: `Renamed ${fresh()}` } } }),
    ),
    'pcm-delete-pricebook': api(204, async () =>
      ev('DELETE', `/pcm/pricebooks/${await newPricebook(store, `Doomed ${fresh()}`)}`),
    ),
    'pcm-create-price': api(201, () =>
      ev('POST', `${book}/prices`, {
        data: { type: 'product-price', attributes: { sku: `cold-${fresh()}`, currencies: USD_100 } },
      }),
    ),
    'pcm-list-prices': api(200, () => ev('GET', `${book}/prices`)),
    'pcm-get-price': api(200, () => ev('GET', `${book}/prices/${priceId}`)),
    'pcm-update-price': api(200, (run) =>
      ev('PUT', `${book}/prices/${priceId}`, {
        data: { type: 'product-price', attributes: { external_ref: `cold ${run}` } },
      }),
    ),
    'pcm-delete-price': api(204, async () =>
      ev('DELETE', `${book}/prices/${await newPrice(store, pricesBookId, `doomed-${fresh()}`)}`),
    ),
    'pcm-create-price-modifier': api(201, () =>
      ev('POST', `${book}/modifiers`, {
        data: {
          type: 'price-modifier',
          attributes: { name: `Cold ${fresh()}`, modifier_type: 'price_equals', currencies: USD_100 },
        },
      }),
    ),
    'pcm-list-price-modifiers': api(200, () => ev('GET', `${book}/modifiers`)),
    'pcm-get-price-modifier': api(200, () => ev('GET', `${book}/modifiers/${priceModifierId}`)),
    'pcm-update-price-modifier': api(200, (run) =>
      ev('PUT', `${book}/modifiers/${priceModifierId}`, {
        data: { type: 'price-modifier', attributes: { external_ref: `cold ${run}` } },
      }),
    ),
    'pcm-delete-price-modifier': api(204, async () =>
      ev('DELETE', `${book}/modifiers/${await newPriceModifier(store, pricesBookId, `Doomed ${fresh()}`)}`),
    ),
    // A product's files, variations, children and nodes.
    'pcm-get-product-main-image': api(200, () =>
      ev('GET', `/pcm/products/${productId}/relationships/main_image`),
    ),
    'pcm-write-product-main-image': api(204, () =>
      ev('PUT', `/pcm/products/${productId}/relationships/main_image`, {
        data: [{ type: 'file', id: fileId }],
      }),
    ),
    'pcm-get-product-files': api(200, () => ev('GET', `/pcm/products/${productId}/relationships/files`)),
    'pcm-write-product-files': api(204, () =>
      ev('PUT', `/pcm/products/${productId}/relationships/files`, {
        data: [{ type: 'file', id: fileId, meta: { tags: ['front'] } }],
      }),
    ),
    'pcm-get-product-variations': api(200, () =>
      ev('GET', `/pcm/products/${parentId}/relationships/variations`),
    ),
    'pcm-create-product-variations': api(204, async () =>
      ev(
        'POST',
        `/pcm/products/${await newPcmProduct(store, 'Cold linked', `cold-${fresh()}`)}/relationships/variations`,
        { data: [{ type: 'product-variation', id: variation.variationId }] },
      ),
    ),
    'pcm-update-product-variations': api(204, () =>
      ev('PUT', `/pcm/products/${parentId}/relationships/variations`, {
        data: [{ type: 'product-variation', id: variation.variationId }],
      }),
    ),
    'pcm-delete-product-variations': api(204, async () => {
      const linked = await newPcmProduct(store, 'Cold unlinked', `cold-${fresh()}`);
      const link = { data: [{ type: 'product-variation', id: variation.variationId }] };
      await call(s, 'POST', `/pcm/products/${linked}/relationships/variations`, link);
      return ev('DELETE', `/pcm/products/${linked}/relationships/variations`, link);
    }),
    'pcm-get-child-products': api(200, () => ev('GET', `/pcm/products/${parentId}/children`)),
    'pcm-build-child-products': api(201, () => ev('POST', `/pcm/products/${parentId}/build`)),
    'pcm-list-product-nodes': api(200, () => ev('GET', `/pcm/products/${productId}/nodes`)),
    // Variations, options and option modifiers.
    'pcm-create-variation': api(201, () =>
      ev('POST', '/pcm/variations', {
        data: { type: 'product-variation', attributes: { name: `Cold ${fresh()}` } },
      }),
    ),
    'pcm-list-variations': api(200, () => ev('GET', '/pcm/variations')),
    'pcm-get-variation': api(200, () => ev('GET', `/pcm/variations/${variation.variationId}`)),
    'pcm-update-variation': api(200, () =>
      ev('PUT', `/pcm/variations/${editable.variationId}`, {
        data: { type: 'product-variation', attributes: { name: `Renamed ${fresh()}` } },
      }),
    ),
    'pcm-delete-variation': api(204, async () =>
      ev('DELETE', `/pcm/variations/${(await newVariationTree(store, 'Doomed variation')).variationId}`),
    ),
    'pcm-create-variation-option': api(201, () =>
      ev('POST', `/pcm/variations/${editable.variationId}/options`, {
        data: { type: 'product-variation-option', attributes: { name: `cold-${fresh()}` } },
      }),
    ),
    'pcm-list-variation-options': api(200, () =>
      ev('GET', `/pcm/variations/${editable.variationId}/options`),
    ),
    'pcm-get-variation-option': api(200, () => ev('GET', option)),
    'pcm-update-variation-option': api(200, (run) =>
      ev('PUT', option, {
        data: {
          type: 'product-variation-option',
          id: editable.optionId,
          attributes: { description: `cold ${run}` },
        },
      }),
    ),
    'pcm-delete-variation-option': api(204, async () => {
      const doomed = await newVariationTree(store, 'Doomed option');
      return ev('DELETE', `/pcm/variations/${doomed.variationId}/options/${doomed.optionId}`);
    }),
    'pcm-create-option-modifier': api(201, async () => {
      const target = await newVariationTree(store, 'Cold modified');
      return ev('POST', `/pcm/variations/${target.variationId}/options/${target.optionId}/modifiers`, {
        data: { type: 'product-variation-modifier', attributes: { type: 'status', value: 'live' } },
      });
    }),
    'pcm-list-option-modifiers': api(200, () => ev('GET', `${option}/modifiers`)),
    'pcm-get-option-modifier': api(200, () => ev('GET', `${option}/modifiers/${editable.modifierId}`)),
    'pcm-update-option-modifier': api(200, (run) =>
      ev('PUT', `${option}/modifiers/${editable.modifierId}`, {
        data: { type: 'product-variation-modifier', attributes: { type: 'sku_append', value: `-C${run}` } },
      }),
    ),
    'pcm-delete-option-modifier': api(204, async () => {
      const doomed = await newVariationTree(store, 'Doomed modifier');
      return ev(
        'DELETE',
        `/pcm/variations/${doomed.variationId}/options/${doomed.optionId}/modifiers/${doomed.modifierId}`,
      );
    }),
    // Jobs and imports.
    'pcm-list-jobs': api(200, () => ev('GET', '/pcm/jobs')),
    'pcm-get-job': api(200, () => ev('GET', `/pcm/jobs/${jobId}`)),
    'pcm-get-job-errors': api(200, () => ev('GET', `/pcm/jobs/${jobId}/errors`)),
    'pcm-cancel-job': api(200, async () =>
      ev('POST', `/pcm/jobs/${(await enqueueJob(store, 'product-import', {}, 'cold-start')).id}/cancel`),
    ),
    'pcm-import-products': api(201, () =>
      ev(
        'POST',
        '/pcm/products/import',
        multipart(
          'products.csv',
          'text/csv',
          `external_ref,name,description,slug,status,commodity_type\ncold-${fresh()},Cold import,,,draft,physical`,
        ),
        MULTIPART,
      ),
    ),
    'pcm-create-import-upload': api(201, () => ev('POST', '/pcm/products/import-uploads')),
    // Hierarchies and nodes.
    'pcm-create-hierarchy': api(201, (run) =>
      ev('POST', '/pcm/hierarchies', { data: { type: 'hierarchy', attributes: { name: `Cold ${run}` } } }),
    ),
    'pcm-list-hierarchies': api(200, () => ev('GET', '/pcm/hierarchies')),
    'pcm-get-hierarchy': api(200, () => ev('GET', `/pcm/hierarchies/${hierarchyId}`)),
    'pcm-update-hierarchy': api(200, (run) =>
      ev('PUT', `/pcm/hierarchies/${editableHierarchyId}`, {
        data: { type: 'hierarchy', id: editableHierarchyId, attributes: { name: `Renamed ${run}` } },
      }),
    ),
    'pcm-delete-hierarchy': api(204, async () =>
      ev('DELETE', `/pcm/hierarchies/${await newPcmHierarchy(store, 'Doomed hierarchy')}`),
    ),
    'pcm-create-node': api(201, () =>
      ev('POST', editableNode, { data: { type: 'node', attributes: { name: `Cold ${fresh()}` } } }),
    ),
    'pcm-list-nodes': api(200, () => ev('GET', `/pcm/hierarchies/${hierarchyId}/nodes`)),
    'pcm-get-node': api(200, () => ev('GET', `/pcm/hierarchies/${hierarchyId}/nodes/${nodeId}`)),
    'pcm-update-node': api(200, () =>
      ev('PUT', `${editableNode}/${editableNodeId}`, {
        data: { type: 'node', id: editableNodeId, attributes: { name: `Renamed ${fresh()}` } },
      }),
    ),
    'pcm-delete-node': api(204, async () =>
      ev('DELETE', `${editableNode}/${await newPcmNode(store, editableHierarchyId, `Doomed ${fresh()}`)}`),
    ),
    'pcm-list-hierarchy-children': api(200, () => ev('GET', `/pcm/hierarchies/${hierarchyId}/children`)),
    'pcm-list-node-children': api(200, () =>
      ev('GET', `/pcm/hierarchies/${hierarchyId}/nodes/${nodeId}/children`),
    ),
    'pcm-create-node-children': api(200, async () => {
      const child = await newPcmNode(store, editableHierarchyId, `Cold child ${fresh()}`);
      return ev('POST', `${editableNode}/${editableNodeId}/relationships/children`, {
        data: [{ type: 'node', id: child }],
      });
    }),
    'pcm-write-node-parent': api(204, async () => {
      const moved = await newPcmNode(store, editableHierarchyId, `Cold moved ${fresh()}`);
      return ev('PUT', `${editableNode}/${moved}/relationships/parent`, {
        data: { type: 'node', id: editableNodeId },
      });
    }),
    'pcm-delete-node-parent': api(204, async () => {
      const child = await newPcmNode(store, editableHierarchyId, `Cold orphan ${fresh()}`, editableNodeId);
      return ev('DELETE', `${editableNode}/${child}/relationships/parent`);
    }),
    'pcm-write-node-products': api(201, async () => {
      const product = await newPcmProduct(store, 'Cold placed', `cold-${fresh()}`);
      return ev('POST', `${editableNode}/${editableNodeId}/relationships/products`, {
        data: [{ type: 'product', id: product }],
      });
    }),
    'pcm-list-node-products': api(200, () =>
      ev('GET', `/pcm/hierarchies/${hierarchyId}/nodes/${childNodeId}/products`),
    ),
    // The publishing workflow's steps, each on a new release of its own catalog per run.
    'release-export': step('release-export', valid),
    'release-validate': step('release-validate', valid),
    'release-plan': step(
      'release-plan',
      (result) => typeof (result as { ranges_key?: unknown }).ranges_key === 'string',
    ),
    'release-derive': step('release-derive', (result) => ((result as { items?: number }).items ?? 0) > 0),
    'release-merge': step('release-merge', (result) => ((result as { chunks?: number }).chunks ?? 0) > 0),
    'release-write': step('release-write', (result) => ((result as { written?: number }).written ?? 0) > 0),
    'release-switch': step(
      'release-switch',
      (result) => (result as { published?: boolean }).published === true,
    ),
    'release-abandon': step('release-abandon', (result) => (result as { state?: string }).state === 'FAILED'),
    // The queue consumers: a child-products build job per run; a webhook delivery to a local receiver.
    'job-run': {
      expect: (result) => result === null,
      event: async () => {
        const sent = jobMessages.length;
        await call(builds, 'POST', `/pcm/products/${buildParentId}/build`);
        const message = jobMessages[sent];
        if (!message) throw new Error('cold-start fixture: the build sent no job message');
        return sqsEvent(message.body);
      },
    },
    'integration-deliver': {
      expect: (result) => (result as { batchItemFailures?: unknown[] }).batchItemFailures?.length === 0,
      env: { INTEGRATIONS_ALLOW_LOOPBACK: 'true' },
      event: () =>
        sqsEvent(
          JSON.stringify({
            store_id: store,
            integration_id: integrationId,
            event_id: uuidv7(),
            trigger: 'catalog-rule.created',
            payload: { data: { id: ruleId, type: 'catalog_rule' } },
            created_at: new Date().toISOString(),
          }),
        ),
    },
  };
  return {
    specs,
    stop: () => new Promise<void>((resolve) => receiver.server.close(() => resolve())),
  };
}
