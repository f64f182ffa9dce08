import '../local/quiet-sdk';
import './silent-logs';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUNCTION_MEMORY_MB } from '../infra/api-function';
import { generateAccessToken, hashSecret } from '../lib/auth/secrets';
import { getConfig, resetConfig } from '../lib/config/index';
import { uuidv4 } from '../lib/ids';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { getDocumentClient } from '../lib/store/client';
import { currencyRepository } from '../lib/store/currency-repository';
import { GetCommand, TransactWriteCommand } from '../lib/store/dynamodb';
import { integrationRepository } from '../lib/store/integration-repository';
import { type MappingRecord, mappingRepository, prefixChangeItems } from '../lib/store/mapping-repository';
import { resetObjectStoreClient } from '../lib/store/object-store';
import { mappingsTable, tableName } from '../lib/store/schema';
import { tokenRepository } from '../lib/store/token-repository';
import { parseCli, usageError } from '../local/cli';
import { type ObjectStoreLocal, startObjectStoreLocal } from '../local/object-store-local';
import {
  currencyFields,
  newCurrency,
  newFile,
  newIntegration,
  newIntegrationLog,
} from '../test/support/pcm-fixtures';
import {
  AGAINST_ROUNDS,
  bundlesAt,
  type ColdStartComparison,
  compareColdStart,
  describeComparison,
} from './against';
import { describeAuthored, measureAuthoredPublish } from './authored-publish';
import { type AuthoringBench, setUpAuthoringBench } from './authoring';
import { ALL_FUNCTIONS, bundleFunctions } from './bundle';
import type { WorstCaseFigures } from './cache-worst-case';
import { type CatalogBench, CHILDREN, setUpCatalogBench } from './catalog';
import {
  type CatalogProductsBench,
  type CatalogProductsFigures,
  FILTERED_FIRST_PAGE_MS_MAX,
  setUpCatalogProductsBench,
} from './catalog-products';
import {
  type ColdStart,
  type ColdStartSpec,
  deployedEnv,
  measureColdStart,
  measureEmptyFunction,
} from './cold-start';
import { type ColdStartFixtures, setUpColdStartFixtures } from './cold-start-fixtures';
import { describeDelta, measureDeltaPublish } from './delta-publish';
import {
  describeHttpFirstRequests,
  type HttpFirstRequestsFigures,
  measureFilteredCold,
  measureFirstRequests,
} from './http-first-requests';
import { rawListCalls } from './list-application-keys';
import { benchLocalServer, describeConcurrency } from './local-server';
import { measureRssAfter, measureWorstCaseInProcess } from './memory';
import { describeNoise, measureNoise, type NoiseFigures, noisier, verdict } from './noise';
import { benchOperation, type OperationBench, type OperationFigures } from './operations';
import { BUSY_P99_MS_MAX, describePublish, measurePublish } from './publish';
import { benchRateLimit, describeRateLimit, type RateLimitFigures } from './rate-limit';
import { COLD_START_RUNS, TARGETS, updateReadmeTable } from './results-table';
import { createScenario, type Scenario } from './scenario';
import { progress, startBenchDatabase } from './support';

const USAGE = `Usage: npm run bench [-- --json] [-- --stage rate_limit|catalog_products|publish|authored|delta|cold_start [--products N] [--writers 1,2,4] [--functions a,b [--against REF]] [--setup api|batched]]
Runs the benchmark suite against its own in-memory DynamoDB Local (about 12 minutes on 2 cores), writes
bench/results.json and regenerates README.md's performance table from it. --json also prints one JSON
object on stdout (run it as \`npm run -s bench -- --json\`). --stage rate_limit runs only the rate-limit
stage (its figures alone in results.json). --stage catalog_products runs only the storefront product reads
(their operations and the eq(slug,…) lookup figures; --products N sizes the large release, default 100000).
--stage publish publishes a generated document of --products N products (default 20000, 1 KB each) through
the API on the local harness with each of --writers (default 1,2,4) write steps at once: each phase's time,
items written a second, and every process's peak RSS (target: the API's at most 512 MB). --stage authored
builds an authored catalog of --products N products (default 100000: CSV imports, nodes, attachments, a price
per sku) and publishes it: the Export step's time, then each phase's, and the API's peak RSS (at most 512 MB).
--stage delta builds the same catalog, publishes it whole, then five times after one price changed: items
written (target at most 1,000) and wall time of each (target at most 10 s), the API's peak RSS, and product
reads on the whole and on the layered release (cold and warm p50; target: layered warm at most 1.05 of
whole). --setup batched (authored and delta) writes the catalog's products, attachments and prices as their
items in batches instead of over the API: a million products in minutes, not hours.
--stage cold_start bundles every function and measures its cold start (fresh processes, with the phases)
alone (bundles and cold starts alone in results.json); --functions a,b measures only those and --runs N
(default 15, at most 25) sets the processes each (results.json is written only for every function at 15).
--against REF (with --functions) bundles those functions as commit REF builds them and measures them in
turn with the working tree's, ${AGAINST_ROUNDS} rounds of --runs processes each (default 7, at most 8): what a change
bought, over node -e 0 and by phase, on the same fixtures and machine (--json: each round's figures too);
nothing is written.
Exit status 1 when a target is missed.`;
const CLI = parseCli('bench', USAGE, {
  json: { type: 'boolean' },
  stage: { type: 'string' },
  products: { type: 'string' },
  writers: { type: 'string' },
  functions: { type: 'string' },
  runs: { type: 'string' },
  setup: { type: 'string' },
  against: { type: 'string' },
}).values;
const JSON_OUTPUT = CLI.json === true;
/** `--stage rate_limit`: only that stage (its figures alone in results.json); all stages without it. */
const STAGE = CLI.stage;
if (
  STAGE !== undefined &&
  STAGE !== 'rate_limit' &&
  STAGE !== 'catalog_products' &&
  STAGE !== 'publish' &&
  STAGE !== 'authored' &&
  STAGE !== 'delta' &&
  STAGE !== 'cold_start'
)
  usageError(
    'bench',
    `--stage must be rate_limit, catalog_products, publish, authored, delta or cold_start, got '${STAGE}'`,
  );
/** `--functions a,b` (cold_start stage): only these functions' cold starts; every function's without it. */
const ONLY_FUNCTIONS = CLI.functions?.split(',').filter((name) => name !== '');
if (ONLY_FUNCTIONS !== undefined) {
  if (STAGE !== 'cold_start') usageError('bench', '--functions goes with --stage cold_start');
  const unknown = ONLY_FUNCTIONS.filter((name) => !ALL_FUNCTIONS.includes(name));
  if (ONLY_FUNCTIONS.length === 0 || unknown.length > 0)
    usageError('bench', `--functions must name functions, got '${CLI.functions}'`);
}
/** `--against REF` (cold_start stage, with --functions): those functions measured beside REF's bundles. */
const AGAINST = CLI.against;
if (AGAINST !== undefined && (ONLY_FUNCTIONS === undefined || AGAINST === ''))
  usageError('bench', '--against names a commit and goes with --stage cold_start --functions a,b');
const WRITERS = (CLI.writers ?? '1,2,4').split(',').map(Number);
if (WRITERS.some((writers) => !Number.isInteger(writers) || writers < 1 || writers > 64))
  usageError('bench', `--writers must be integers from 1 to 64 separated by commas, got '${CLI.writers}'`);
if (CLI.setup !== undefined && CLI.setup !== 'api' && CLI.setup !== 'batched')
  usageError('bench', `--setup must be api or batched, got '${CLI.setup}'`);
if (CLI.setup !== undefined && STAGE !== 'authored' && STAGE !== 'delta')
  usageError('bench', '--setup goes with --stage authored or delta');
/** `--setup batched`: the authored catalog's items written in batches (bench/authored-publish.ts). */
const SETUP = CLI.setup === 'batched' ? 'batched' : 'api';
const LARGE_PRODUCTS = CLI.products === undefined ? 100_000 : Number(CLI.products);
if (!Number.isInteger(LARGE_PRODUCTS) || LARGE_PRODUCTS < 1000 || LARGE_PRODUCTS > 1_000_000)
  usageError('bench', `--products must be an integer from 1000 to 1000000, got '${CLI.products}'`);
/** Fresh processes of the child list with the limiter on and off (rate_limit stage), and fixtures per run. */
const COLD_RUNS = 25;
/** `--against`: processes a round by default, and at most (the fixtures serve 2 × 3 rounds of them). */
const AGAINST_RUNS = 7;
const AGAINST_MAX_RUNS = 8;
/**
 * Fresh processes per function in the cold_start stage: 15, not 25, since it covers every function (138,
 * three times the 46 it had): 25 each would take the stage to about 12-13 minutes on a quiet 2-core
 * machine, 15 keeps it under 10. Each median stays beside its own `node -e 0` runs, and the noise verdict
 * comes from its own measurement of the machine. `--runs` lowers it further for a quick check.
 */
const COLD_RUNS_NOW =
  CLI.runs === undefined ? (AGAINST === undefined ? COLD_START_RUNS : AGAINST_RUNS) : Number(CLI.runs);
const MAX_RUNS_NOW = AGAINST === undefined ? COLD_RUNS : AGAINST_MAX_RUNS;
if (!Number.isInteger(COLD_RUNS_NOW) || COLD_RUNS_NOW < 1 || COLD_RUNS_NOW > MAX_RUNS_NOW)
  usageError('bench', `--runs must be an integer from 1 to ${MAX_RUNS_NOW}, got '${CLI.runs}'`);
/** Processes of one function the fixtures serve (each deletion deletes one of its own). */
const COLD_FIXTURES = Math.max(COLD_RUNS, AGAINST === undefined ? 0 : 2 * AGAINST_ROUNDS * COLD_RUNS_NOW);
if (CLI.runs !== undefined && STAGE !== 'cold_start')
  usageError('bench', '--runs goes with --stage cold_start');
const CATALOG_PRODUCTS_ITERATIONS = 60;
const OPERATION_ITERATIONS = 300;

/** Stores, keys, tokens and catalog data the events of every function refer to. */
interface Fixtures {
  scenario: Scenario;
  keyIds: string[];
  deletableKeyIds: string[];
  prefixes: [string, string];
  catalog: CatalogBench;
  products: CatalogProductsBench;
  authoring: AuthoringBench;
  /** The scenario store's one currency (its default). */
  currencyId: string;
  /** A file of the scenario store. */
  fileId: string;
  /** The scenario store's webhook integration and the job of its one logged delivery attempt. */
  integrationId: string;
  integrationJobId: string;
  /** The catalog API's, the workflow steps' and the queue consumers' cold-start events. */
  cold: ColdStartFixtures;
}

async function setUp(): Promise<Fixtures> {
  // 900 keys, so the store stays under its cap on keys (MAX_KEYS_PER_STORE, 1,000) with the keys the
  // cold starts create and delete.
  progress('seeding a store with 900 application keys');
  const scenario = await createScenario(900);
  const keyIds = (await applicationKeyRepository.list(scenario.store.id, { limit: 5, offset: 0 })).keys.map(
    (k) => k.id,
  );
  const deletableKeyIds: string[] = [];
  for (let i = 0; i < COLD_FIXTURES; i += 1) {
    deletableKeyIds.push(
      (
        await applicationKeyRepository.create(scenario.store.id, {
          name: `doomed-${i}`,
          reserved_rate_limit: 0,
        })
      ).key.id,
    );
  }
  const tag = uuidv4().slice(0, 8);
  progress('publishing a release with a 10,000-child parent');
  const catalog = await setUpCatalogBench();
  const products = await setUpCatalogProductsBench(LARGE_PRODUCTS);
  progress('seeding the product API: 200 products');
  const authoring = await setUpAuthoringBench(scenario, COLD_FIXTURES);
  const currencyId = await newCurrency(scenario.store.id, 'USD');
  const fileId = await newFile(scenario.store.id, 'https://cdn.example.com/bench.png');
  const integrationId = await newIntegration(scenario.store.id, 'bench');
  const integrationJobId = await newIntegrationLog(scenario.store.id, integrationId);
  const cold = await setUpColdStartFixtures();
  return {
    scenario,
    keyIds,
    deletableKeyIds,
    prefixes: [`bench-${tag}-a`, `bench-${tag}-b`],
    catalog,
    products,
    authoring,
    currencyId,
    fileId,
    integrationId,
    integrationJobId,
    cold,
  };
}

/** The token request both the cold-start and the operation stages send. */
function tokenRequest(s: Scenario) {
  return s.event('POST', '/oauth/access_token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: s.clientId,
      client_secret: s.clientSecret,
    }).toString(),
  });
}

/** A prefix change of the scenario store's mapping. */
function prefixUpdate(s: Scenario, prefix: string | undefined) {
  return s.event('PUT', `/v2/merchant-realm-mappings/${s.store.mapping_id}`, {
    token: s.adminToken,
    body: { data: { type: 'merchant-realm-mappings', prefix } },
  });
}

/**
 * Deletes every record of the store's in `repository` but `kept` (the currencies or integrations the cold
 * starts of their writes left).
 */
async function removeAllBut(
  repository: {
    list(storeId: string): Promise<{ id: string }[]>;
    delete(storeId: string, id: string): Promise<unknown>;
  },
  storeId: string,
  kept: string,
): Promise<void> {
  for (const { id } of await repository.list(storeId)) if (id !== kept) await repository.delete(storeId, id);
}

/** A realistic event per function for cold starts: each run gets one (deletes take a fresh key each). */
function coldStartSpecs(f: Fixtures): Record<string, ColdStartSpec> {
  const http = Object.entries({ ...coldStartEvents(f), ...f.products.coldStartEvents }).map(
    ([name, spec]): [string, ColdStartSpec] => [name, { event: spec.event, expect: spec.status }],
  );
  return { ...Object.fromEntries(http), ...f.cold.specs };
}

/** The API functions' cold-start events that need only the scenario store and the bench's catalogs. */
function coldStartEvents(f: Fixtures): Record<
  string,
  {
    event: (run: number) => ReturnType<Scenario['event']> | Promise<ReturnType<Scenario['event']>>;
    status: number;
  }
> {
  const { scenario: s } = f;
  const admin = s.adminToken;
  const keyPath = `/v2/application-keys/${f.keyIds[1]}`;
  const mappingPath = `/v2/merchant-realm-mappings/${s.store.mapping_id}`;
  return {
    'create-access-token': {
      status: 200,
      event: () => tokenRequest(s),
    },
    'list-application-keys': {
      status: 200,
      event: () => s.event('GET', '/v2/application-keys?page[limit]=25', { token: admin }),
    },
    'pcm-list-catalogs': { status: 200, event: () => s.event('GET', '/pcm/catalogs', { token: admin }) },
    // The product API: a create with a new sku each run, reads and an update of one product, a delete of a
    // fresh product each run.
    'pcm-create-product': {
      status: 201,
      event: (run) =>
        s.event('POST', '/pcm/products', {
          token: admin,
          body: { data: { type: 'product', attributes: { name: `Cold ${run}`, sku: `cold-${uuidv4()}` } } },
        }),
    },
    'pcm-list-products': { status: 200, event: () => s.event('GET', '/pcm/products', { token: admin }) },
    'pcm-get-product': {
      status: 200,
      event: () => s.event('GET', `/pcm/products/${f.authoring.productId}`, { token: admin }),
    },
    'pcm-get-component-products': {
      status: 200,
      event: () =>
        s.event('GET', `/pcm/products/${f.authoring.productId}/relationships/component_products`, {
          token: admin,
        }),
    },
    'pcm-update-product': {
      status: 200,
      event: (run) =>
        s.event('PUT', `/pcm/products/${f.authoring.productId}`, {
          token: admin,
          body: { data: { type: 'product', id: f.authoring.productId, attributes: { name: `Cold ${run}` } } },
        }),
    },
    'pcm-delete-product': {
      status: 204,
      event: (run) =>
        s.event('DELETE', `/pcm/products/${f.authoring.deletableProductIds[run]}`, { token: admin }),
    },
    'create-application-key': {
      status: 201,
      event: (run) =>
        s.event('POST', '/v2/application-keys', {
          token: admin,
          body: { data: { type: 'application_key', name: `cold-${run}` } },
        }),
    },
    'get-application-key': { status: 200, event: () => s.event('GET', keyPath, { token: admin }) },
    'update-application-key': {
      status: 200,
      event: (run) =>
        s.event('PUT', keyPath, {
          token: admin,
          body: { data: { type: 'application_key', name: `renamed-${run}` } },
        }),
    },
    'delete-application-key': {
      status: 204,
      event: (run) => s.event('DELETE', `/v2/application-keys/${f.deletableKeyIds[run]}`, { token: admin }),
    },
    'get-merchant-realm-mapping': { status: 200, event: () => s.event('GET', mappingPath, { token: admin }) },
    'update-merchant-realm-mapping': {
      status: 200,
      event: (run) => prefixUpdate(s, f.prefixes[run % 2]),
    },
    'list-child-products': { status: 200, event: () => f.catalog.event(0) },
    // Every function is timed doing its work (an error path would skip it, and the handler's phases with it):
    // what a run deletes it made first, and what a run creates goes again before the next run, under the
    // store's caps (10 currencies, 25 integrations).
    'create-file': {
      status: 201,
      event: (run) =>
        s.event('POST', '/v2/files', {
          token: admin,
          body: { file_location: `https://cdn.example.com/cold-${run}.png` },
        }),
    },
    'list-files': { status: 200, event: () => s.event('GET', '/v2/files', { token: admin }) },
    'get-file': {
      status: 200,
      event: () => s.event('GET', `/v2/files/${f.fileId}`, { token: admin }),
    },
    'delete-file': {
      status: 204,
      event: async (run) => {
        const id = await newFile(s.store.id, `https://cdn.example.com/doomed-${run}.png`);
        return s.event('DELETE', `/v2/files/${id}`, { token: admin });
      },
    },
    'create-currency': {
      status: 201,
      event: async () => {
        await removeAllBut(currencyRepository, s.store.id, f.currencyId);
        return s.event('POST', '/v2/currencies', {
          token: admin,
          body: { data: { type: 'currency', ...currencyFields('EUR') } },
        });
      },
    },
    'list-currencies': { status: 200, event: () => s.event('GET', '/v2/currencies', { token: admin }) },
    'get-currency': {
      status: 200,
      event: () => s.event('GET', `/v2/currencies/${f.currencyId}`, { token: admin }),
    },
    'update-currency': {
      status: 200,
      event: (run) =>
        s.event('PUT', `/v2/currencies/${f.currencyId}`, {
          token: admin,
          body: { data: { exchange_rate: 1 + run / 100 } },
        }),
    },
    'delete-currency': {
      status: 204,
      event: async () => {
        await removeAllBut(currencyRepository, s.store.id, f.currencyId);
        const id = await newCurrency(s.store.id, 'GBP');
        return s.event('DELETE', `/v2/currencies/${id}`, { token: admin });
      },
    },
    'create-integration': {
      status: 200,
      event: async () => {
        await removeAllBut(integrationRepository, s.store.id, f.integrationId);
        return s.event('POST', '/v2/integrations', {
          token: admin,
          body: {
            data: {
              type: 'integration',
              name: 'cold',
              observes: ['catalog-rule.created'],
              // An address, not a name: the URL's check resolves nothing.
              configuration: { url: 'https://93.184.216.34/hooks' },
            },
          },
        });
      },
    },
    'list-integrations': { status: 200, event: () => s.event('GET', '/v2/integrations', { token: admin }) },
    'get-integration': {
      status: 200,
      event: () => s.event('GET', `/v2/integrations/${f.integrationId}`, { token: admin }),
    },
    'update-integration': {
      status: 200,
      event: (run) =>
        s.event('PUT', `/v2/integrations/${f.integrationId}`, {
          token: admin,
          body: { data: { type: 'integration', name: `cold ${run}` } },
        }),
    },
    'delete-integration': {
      status: 200,
      event: async () => {
        await removeAllBut(integrationRepository, s.store.id, f.integrationId);
        const id = await newIntegration(s.store.id, 'doomed');
        return s.event('DELETE', `/v2/integrations/${id}`, { token: admin });
      },
    },
    'list-all-integration-logs': {
      status: 200,
      event: () => s.event('GET', '/v2/integrations/logs', { token: admin }),
    },
    'list-integration-logs': {
      status: 200,
      event: () => s.event('GET', `/v2/integrations/${f.integrationId}/logs`, { token: admin }),
    },
    'list-integration-jobs': {
      status: 200,
      event: () => s.event('GET', `/v2/integrations/${f.integrationId}/jobs`, { token: admin }),
    },
    'get-integration-job-logs': {
      status: 200,
      event: () =>
        s.event('GET', `/v2/integrations/${f.integrationId}/jobs/${f.integrationJobId}/logs`, {
          token: admin,
        }),
    },
  };
}

/** The operations timed in-process against the raw DynamoDB calls each one needs. */
async function operationBenches(f: Fixtures): Promise<OperationBench[]> {
  const { scenario: s } = f;
  const client = getDocumentClient();
  const keyPage = rawListCalls(s.store.id, 0, 25);
  // The raw prefix changes run on a second store's mapping, so both sides really move a prefix.
  const other = await createScenario(1);
  let rawMapping = (await mappingRepository.get(other.store.mapping_id)) as MappingRecord;
  const rawPrefixes = [`${f.prefixes[0]}-raw`, `${f.prefixes[1]}-raw`];
  return [
    {
      function: 'create-access-token',
      expectStatus: 200,
      event: () => tokenRequest(s),
      raw: async () => {
        const found = await applicationKeyRepository.findClient(s.clientId);
        if (!found) throw new Error('bench client missing');
        const expires = Math.floor(Date.now() / 1000) + 3600;
        await tokenRepository.issue(
          hashSecret(generateAccessToken(found.store_id, found.key_id)),
          { store_id: found.store_id, key_id: found.key_id, kind: 'client_credentials', expires_at: expires },
          new Date().toISOString(),
        );
      },
    },
    {
      function: 'list-application-keys',
      expectStatus: 200,
      event: () => s.event('GET', '/v2/application-keys?page[limit]=25', { token: s.adminToken }),
      raw: () => keyPage(),
    },
    {
      function: 'update-merchant-realm-mapping',
      expectStatus: 200,
      event: (call) => prefixUpdate(s, f.prefixes[call % 2]),
      raw: async (call) => {
        const read = await client.send(
          new GetCommand({
            TableName: tableName('mappings'),
            Key: mappingsTable.mapping(rawMapping.id),
            ConsistentRead: true,
          }),
        );
        rawMapping = { ...rawMapping, version: (read.Item?.version as number) ?? rawMapping.version };
        const prefix = rawPrefixes[call % 2] as string;
        await client.send(new TransactWriteCommand({ TransactItems: prefixChangeItems(rawMapping, prefix) }));
        rawMapping = { ...rawMapping, prefix, version: rawMapping.version + 1 };
      },
    },
    f.catalog.operation,
    ...f.products.operations,
    ...f.authoring.operations,
  ];
}

/** How noisy the machine is (measured at the start, and again at the end of a full run). */
let NOISE: NoiseFigures | undefined;

function line(label: string, value: string, ok?: boolean): string {
  const mark = ok === undefined ? '' : `  ${verdict(ok, NOISE)}`;
  return `  ${label.padEnd(44)} ${value}${mark}`;
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'commerce-bench-'));
  progress('bundling every function as the stack does');
  const bundles = await bundleFunctions(join(workDir, 'bundles'), {}, ONLY_FUNCTIONS ?? ALL_FUNCTIONS);
  const bundle_kb = Object.fromEntries(Object.entries(bundles).map(([name, b]) => [name, b.kib]));

  progress('starting DynamoDB Local');
  const database = await startBenchDatabase();
  let objects: ObjectStoreLocal | undefined;
  const childEnv: NodeJS.ProcessEnv = {
    ...deployedEnv(),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  try {
    progress('measuring the machine: node -e 0 spread and load');
    NOISE = await measureNoise();
    if (STAGE === 'rate_limit') {
      const rate_limit = await benchRateLimit(childEnv, {
        bundle: bundles['list-child-products'],
        coldRuns: COLD_RUNS,
      });
      // The other stages' figures in results.json stay as the last full run left them.
      const file = join(import.meta.dirname, 'results.json');
      const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as object) : {};
      writeFileSync(file, `${JSON.stringify({ ...previous, rate_limit }, null, 2)}\n`);
      const missed = reportStage((check, note) => describeRateLimit(rate_limit, check, note));
      if (JSON_OUTPUT) process.stdout.write(`${JSON.stringify({ rate_limit })}\n`);
      process.exitCode = missed > 0 ? 1 : 0;
      return;
    }
    if (STAGE === 'publish') {
      const publish = await measurePublish({
        products: CLI.products === undefined ? 20_000 : LARGE_PRODUCTS,
        productBytes: 1024,
        writers: WRITERS,
        databasePid: Number(process.env.BENCH_DYNAMODB_PID) || undefined,
      });
      const missed = reportStage((check, note) => {
        note(describePublish(publish));
        for (const run of publish.runs) {
          checkPeakRss(check, `publish, ${run.writers} writers`, run.peak_rss_mb);
          check(
            `publish, ${run.writers} writers: release poll p99 while publishing`,
            `${run.poll_ms.p99_ms} ms (target ≤ ${BUSY_P99_MS_MAX} ms)`,
            run.poll_ms.p99_ms <= BUSY_P99_MS_MAX,
          );
        }
        const again = publish.reupload;
        if (again !== undefined) {
          checkPeakRss(check, 'publish again', again.peak_rss_mb);
          check(
            'publish again: release poll p99 while publishing',
            `${again.poll_ms.p99_ms} ms (target ≤ ${BUSY_P99_MS_MAX} ms)`,
            again.poll_ms.p99_ms <= BUSY_P99_MS_MAX,
          );
          check(
            'publish again: shopper read p99 while publishing',
            `${again.shopper_read_ms.p99_ms} ms (target ≤ ${BUSY_P99_MS_MAX} ms)`,
            again.shopper_read_ms.p99_ms <= BUSY_P99_MS_MAX,
          );
        }
      });
      if (JSON_OUTPUT) process.stdout.write(`${JSON.stringify({ publish })}\n`);
      process.exitCode = missed > 0 ? 1 : 0;
      return;
    }
    if (STAGE === 'authored') {
      const authored = await measureAuthoredPublish({ products: LARGE_PRODUCTS, setup: SETUP });
      const missed = reportStage((check, note) => {
        note(describeAuthored(authored));
        checkPeakRss(check, 'authored publish', authored.peak_rss_mb);
      });
      if (JSON_OUTPUT) process.stdout.write(`${JSON.stringify({ authored })}\n`);
      process.exitCode = missed > 0 ? 1 : 0;
      return;
    }
    if (STAGE === 'delta') {
      const delta = await measureDeltaPublish({ products: LARGE_PRODUCTS, setup: SETUP });
      const worst = Math.max(...delta.deltas.map((d) => d.items_written));
      const slowest = Math.max(...delta.deltas.map((d) => d.published_s));
      // Both once the machine is quiet: after a publish, DynamoDB Local and the cleanup still run for a while.
      const { whole, layered } = delta.reads_ms;
      const ratio = layered.settled_p50 / whole.settled_p50;
      const atOnce = layered.warm_p50 / whole.warm_p50;
      const missed = reportStage((check, note) => {
        note(describeDelta(delta));
        check('delta publish: items a one-price publish writes', `${worst} (target ≤ 1,000)`, worst <= 1000);
        check('delta publish: a one-price publish, wall time', `${slowest} s (target ≤ 10 s)`, slowest <= 10);
        check(
          'delta publish: warm product read on a quiet machine, layered / whole',
          `${ratio.toFixed(2)} (target ≤ 1.05; read at once after the publish: ${atOnce.toFixed(2)})`,
          ratio <= 1.05,
        );
        checkPeakRss(check, 'delta publish', delta.peak_rss_mb);
      });
      if (JSON_OUTPUT) process.stdout.write(`${JSON.stringify({ delta })}\n`);
      process.exitCode = missed > 0 ? 1 : 0;
      return;
    }
    if (STAGE === 'catalog_products') {
      const products = await setUpCatalogProductsBench(LARGE_PRODUCTS);
      const operations: Record<string, OperationFigures> = {};
      for (const op of products.operations) {
        progress(`operation: ${op.function} (${OPERATION_ITERATIONS} calls against its raw DynamoDB calls)`);
        operations[op.function] = await benchOperation(op, OPERATION_ITERATIONS);
      }
      const catalog_products = await products.figures(CATALOG_PRODUCTS_ITERATIONS);
      // Only this stage's figures are printed; results.json and the README table are left alone.
      const missed = reportStage((check, note) =>
        describeCatalogProducts(operations, catalog_products, check, note),
      );
      if (JSON_OUTPUT) process.stdout.write(`${JSON.stringify({ operations, catalog_products })}\n`);
      process.exitCode = missed > 0 ? 1 : 0;
      return;
    }
    // The catalog API's documents, the workflow steps' files: the local object store, for this process
    // and the measured ones.
    progress('starting the local object store');
    objects = await startObjectStoreLocal({ buckets: [getConfig().documentsBucket] });
    Object.assign(process.env, { S3_ENDPOINT: objects.endpoint });
    Object.assign(childEnv, { S3_ENDPOINT: objects.endpoint });
    resetConfig();
    resetObjectStoreClient();
    const fixtures = await setUp();
    if (AGAINST !== undefined) {
      try {
        await compareColdStarts(
          AGAINST,
          join(workDir, 'against'),
          bundles,
          coldStartSpecs(fixtures),
          childEnv,
        );
      } finally {
        await fixtures.cold.stop();
      }
      return;
    }
    let cold_start: Record<string, ColdStart>;
    let cold_start_floor: ColdStart;
    try {
      progress(`cold start: an empty function (${COLD_RUNS_NOW} fresh processes, beside node -e 0)`);
      cold_start_floor = await measureEmptyFunction(childEnv, COLD_RUNS_NOW);
      cold_start = await measureColdStarts(bundles, coldStartSpecs(fixtures), childEnv);
    } finally {
      // The webhook receiver serves the delivery function's cold starts only.
      await fixtures.cold.stop();
    }
    if (STAGE === 'cold_start') {
      // Alone in results.json (beside the other stages' figures of the last full run), unless only some ran.
      if (ONLY_FUNCTIONS === undefined && COLD_RUNS_NOW === COLD_START_RUNS) {
        const file = join(import.meta.dirname, 'results.json');
        const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as object) : {};
        writeFileSync(
          file,
          `${JSON.stringify({ ...previous, noise: NOISE, bundle_kb, cold_start, cold_start_floor }, null, 2)}\n`,
        );
        updateReadmeTable();
      }
      const missed = reportStage((check, note) =>
        describeColdStarts(bundle_kb, cold_start, cold_start_floor, check, note),
      );
      if (JSON_OUTPUT)
        process.stdout.write(`${JSON.stringify({ bundle_kb, cold_start, cold_start_floor })}\n`);
      process.exitCode = missed > 0 ? 1 : 0;
      return;
    }

    const operations: Record<string, OperationFigures> = {};
    for (const op of await operationBenches(fixtures)) {
      progress(`operation: ${op.function} (${OPERATION_ITERATIONS} calls against its raw DynamoDB calls)`);
      operations[op.function] = await benchOperation(op, OPERATION_ITERATIONS);
    }

    progress('storefront product reads: one product warm, eq(slug,…) on 100 and many products');
    const catalog_products = await fixtures.products.figures(CATALOG_PRODUCTS_ITERATIONS);

    progress('child products at offsets 0 and 9,975: cold (fresh processes) and warm');
    const child_products_deep_offset = await fixtures.catalog.deepOffset();

    progress('publishing 10,000 children against raw BatchWriteItem of the same items');
    const publish_10k = await fixtures.catalog.publish10k();

    progress('local API under autocannon beside a bare node:http server');
    const request = fixtures.catalog.httpRequest();
    const local_server = await benchLocalServer(request.path, request.headers, childEnv);

    progress('the first requests of fresh local API processes, then a 50,000-child filtered page');
    const http_first_requests: HttpFirstRequestsFigures = {
      first_requests: await measureFirstRequests(request.path, request.headers, childEnv, CHILDREN),
      filtered_cold: await measureFilteredCold(childEnv),
    };

    progress('memory: one fresh process caching every page of the 10,000-child parent');
    const list_child_products_rss_mb = await measureRssAfter(
      bundles['list-child-products']?.file ?? '',
      fixtures.catalog.everyPageEvents(),
      childEnv,
      workDir,
    );

    progress(
      'memory: worst-case catalogs (the most tags of 250 characters the response budget allows) on 6 stores, in a 256 MB heap',
    );
    const worst_case_cache = await measureWorstCaseInProcess(childEnv);

    const rate_limit = await benchRateLimit(childEnv, {
      bundle: bundles['list-child-products'],
      coldRuns: COLD_RUNS,
    });

    NOISE = noisier(NOISE, await measureNoise());
    const results = {
      noise: NOISE,
      rate_limit,
      catalog_products,
      bundle_kb,
      cold_start,
      cold_start_floor,
      operations,
      child_products_deep_offset,
      publish_10k,
      local_server,
      http_first_requests,
      memory: { list_child_products_rss_mb, worst_case_cache },
    };
    writeFileSync(join(import.meta.dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    updateReadmeTable();
    const missed = report(results);
    if (JSON_OUTPUT) process.stdout.write(`${JSON.stringify(results)}\n`);
    process.exitCode = missed > 0 ? 1 : 0;
  } finally {
    await objects?.stop();
    await database.stop();
  }
}

/**
 * Every bundled function's cold start, COLD_START_RUNS (or --runs) fresh processes each. A function without an event, or whose
 * runs fail, fails the stage with an error naming it (after the others were measured).
 */
async function measureColdStarts(
  bundles: Record<string, { file: string }>,
  specs: Record<string, ColdStartSpec>,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, ColdStart>> {
  const cold_start: Record<string, ColdStart> = {};
  const failed: string[] = [];
  for (const [name, bundle] of Object.entries(bundles)) {
    const spec = specs[name];
    if (!spec) {
      failed.push(`${name}: no cold-start event`);
      continue;
    }
    progress(`cold start: ${name} (${COLD_RUNS_NOW} fresh processes, beside node -e 0)`);
    try {
      cold_start[name] = await measureColdStart(
        bundle.file,
        spec.event,
        spec.expect,
        { ...env, ...spec.env },
        COLD_RUNS_NOW,
      );
    } catch (error) {
      failed.push(`${name}: ${(error as Error).message}`);
    }
  }
  if (failed.length > 0)
    throw new Error(`cold starts not measured for ${failed.length} function(s):\n${failed.join('\n')}`);
  return cold_start;
}

/**
 * `--against REF`: each function's cold start beside REF's bundle of it, rounds alternating (bench/against.ts),
 * printed as they are measured with the machine's noise; no target is judged and nothing is written.
 */
async function compareColdStarts(
  ref: string,
  outDir: string,
  bundles: Record<string, { file: string }>,
  specs: Record<string, ColdStartSpec>,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  progress(`bundling ${Object.keys(bundles).length} function(s) as ${ref} builds them`);
  const refBundles = bundlesAt(ref, Object.keys(bundles), outDir);
  const lines: string[] = [];
  const compared: Record<string, ColdStartComparison> = {};
  for (const [name, bundle] of Object.entries(bundles)) {
    const spec = specs[name];
    const refBundle = refBundles[name];
    if (!spec || !refBundle) throw new Error(`${name}: no cold-start event`);
    progress(
      `cold start: ${name}, ${ref} and now in turn (${AGAINST_ROUNDS} rounds of ${COLD_RUNS_NOW} each)`,
    );
    const comparison = await compareColdStart(
      refBundle.file,
      bundle.file,
      spec,
      { ...env, ...spec.env },
      COLD_RUNS_NOW,
    );
    compared[name] = comparison;
    lines.push(describeComparison(name, ref, comparison));
  }
  const noise = NOISE === undefined ? undefined : noisier(NOISE, await measureNoise());
  process.stdout.write(`Cold starts, ${ref} against the working tree (ms)\n${lines.join('\n')}\n`);
  if (noise) process.stdout.write(`${describeNoise(noise)}\n`);
  if (JSON_OUTPUT)
    process.stdout.write(`${JSON.stringify({ against: { ref, noise, cold_start: compared } })}\n`);
}

type Results = {
  noise: NoiseFigures;
  bundle_kb: Record<string, number>;
  cold_start: Record<string, ColdStart>;
  /** The empty function's cold start (bench/cold-start.ts): what the harness costs every function. */
  cold_start_floor: ColdStart;
  operations: Record<string, OperationFigures>;
  child_products_deep_offset: Awaited<ReturnType<CatalogBench['deepOffset']>>;
  publish_10k: Awaited<ReturnType<CatalogBench['publish10k']>>;
  local_server: Awaited<ReturnType<typeof benchLocalServer>>;
  http_first_requests: HttpFirstRequestsFigures;
  memory: { list_child_products_rss_mb: number; worst_case_cache: WorstCaseFigures };
  rate_limit: RateLimitFigures;
  catalog_products: CatalogProductsFigures;
};

type Check = (label: string, value: string, ok: boolean) => void;

/** Prints one stage's lines (stderr with --json, stdout otherwise); returns how many targets were missed. */
/** The processes of a publish, each at most 512 MB: the API's, and the workflow's when it was measured. */
function checkPeakRss(check: Check, what: string, peak: { api: number; workflow?: number }): void {
  check(`${what}: API process peak RSS`, `${peak.api} MB (target ≤ 512 MB)`, peak.api <= 512);
  if (peak.workflow !== undefined) {
    check(
      `${what}: workflow process peak RSS`,
      `${peak.workflow} MB (target ≤ 512 MB)`,
      peak.workflow <= 512,
    );
  }
}

function reportStage(write: (check: Check, note: (text: string) => void) => void): number {
  const out: string[] = [];
  let missed = 0;
  write(
    (label, value, ok) => {
      if (!ok) missed += 1;
      out.push(line(label, value, ok));
    },
    (text) => out.push(text),
  );
  out.push('', missed === 0 ? 'All targets met.' : `${missed} target(s) missed.`);
  if (NOISE) out.push(describeNoise(NOISE));
  out.push('');
  (JSON_OUTPUT ? process.stderr : process.stdout).write(`${out.join('\n')}\n`);
  return missed;
}

/**
 * The storefront product reads' lines: their operations (when this stage ran alone), the warm product p50
 * (target <= 1 ms in-process) and eq(slug,…) on the large release against the 100-product one (target:
 * the same products-table round trips).
 */
function describeCatalogProducts(
  operations: Record<string, OperationFigures>,
  f: CatalogProductsFigures,
  check: Check,
  note: (text: string) => void,
): void {
  note('Storefront product reads (in-process, ms)');
  for (const [name, o] of Object.entries(operations)) {
    check(
      name,
      `p50 ${o.p50_ms}  p99 ${o.p99_ms}  db p50 ${o.db_p50_ms}  ratio ${o.ratio}`,
      o.ratio <= TARGETS.operation_ratio_max,
    );
  }
  check(
    'GET /catalog/products/{id} warm p50 / p99',
    `${f.product_warm_p50_ms} / ${f.product_warm_p99_ms}`,
    f.product_warm_p50_ms <= 1,
  );
  const [small, large] = [f.slug_100, f.slug_100k];
  for (const s of [small, large]) {
    note(
      line(
        `eq(slug) on ${s.products.toLocaleString('en-US')} products: cold / warm p50`,
        `${s.cold_p50_ms} / ${s.warm_p50_ms}  round trips ${s.cold_round_trips} / ${s.warm_round_trips}`,
      ),
    );
  }
  const filters = f.filters_100k?.rows ?? [];
  if (filters.length > 0) {
    const slowest = filters.reduce((a, b) => (b.cold_p50_ms > a.cold_p50_ms ? b : a));
    check(
      `slowest filter's first page cold, ${f.filters_100k?.products.toLocaleString('en-US')} products (${filters.length} filters)`,
      `${slowest.cold_p50_ms} ms p50, ${slowest.filter}`,
      slowest.cold_p50_ms <= FILTERED_FIRST_PAGE_MS_MAX,
    );
  }
  check(
    'eq(slug) round trips, large release = 100 products',
    `${large.cold_round_trips} / ${large.warm_round_trips} vs ${small.cold_round_trips} / ${small.warm_round_trips}`,
    large.cold_round_trips === small.cold_round_trips && large.warm_round_trips === small.warm_round_trips,
  );
}

/** The bundles' and cold starts' lines: each function's size, wall time over `node -e 0` and phases. */
function describeColdStarts(
  bundle_kb: Record<string, number>,
  cold_start: Record<string, ColdStart>,
  floor: ColdStart,
  check: Check,
  note: (text: string) => void,
): void {
  note('');
  note('Bundles (KiB, minified, every dependency bundled)  target <= 350');
  for (const [name, kib] of Object.entries(bundle_kb)) check(name, `${kib}`, kib <= TARGETS.bundle_kib_max);
  note('');
  note(
    `Cold start (median of fresh processes, ms)  target: median - node -e 0 <= ${TARGETS.cold_start_over_node_ms_max}`,
  );
  const floorOver = Math.round((floor.median_ms - floor.node_baseline_ms) * 10) / 10;
  note(
    line(
      '  (an empty function, the harness alone: not judged)',
      `${floor.median_ms} (node ${floor.node_baseline_ms}, +${floorOver}); boot ${floor.phases?.boot}, import+init ${floor.phases?.init}, exit ${floor.phases?.exit}`,
    ),
  );
  for (const [name, c] of Object.entries(cold_start)) {
    const over = Math.round((c.median_ms - c.node_baseline_ms) * 10) / 10;
    const ownOver = Math.round((over - floorOver) * 10) / 10;
    check(
      name,
      `${c.median_ms} (node ${c.node_baseline_ms}, +${over}; ${ownOver < 0 ? '' : '+'}${ownOver} over the empty function)`,
      over <= TARGETS.cold_start_over_node_ms_max,
    );
    const ph = c.phases;
    if (ph)
      note(
        line(
          '  phases (boot, import+init, auth+limiter, handler, response, exit)',
          `${ph.boot}, ${ph.init}, ${ph.before_handler}, ${ph.handler}, ${ph.response}, ${ph.exit}`,
        ),
      );
  }
}

/** Prints the readable table (stderr with --json, stdout otherwise) and returns how many targets were missed. */
function report(r: Results): number {
  const out: string[] = [];
  let missed = 0;
  const check = (label: string, value: string, ok: boolean) => {
    if (!ok) missed += 1;
    out.push(line(label, value, ok));
  };
  describeColdStarts(r.bundle_kb, r.cold_start, r.cold_start_floor, check, (text) => out.push(text));
  out.push('', 'Operations in-process, warm (ms)  target: p50 / raw DynamoDB p50 <= 1.3');
  for (const [name, o] of Object.entries(r.operations)) {
    check(
      name,
      `p50 ${o.p50_ms}  p99 ${o.p99_ms}  db p50 ${o.db_p50_ms}  ratio ${o.ratio}`,
      o.ratio <= TARGETS.operation_ratio_max,
    );
  }
  const d = r.child_products_deep_offset;
  out.push('', 'Child products, parent with 10,000 live children (medians, ms)');
  check(
    'cold offset 0 / 9,975',
    `${d.cold_offset0_ms} / ${d.cold_offset9975_ms}  ratio ${d.cold_ratio}`,
    d.cold_ratio <= TARGETS.cold_ratio_max,
  );
  check(
    'warm offset 0 / 9,975',
    `${d.warm_offset0_ms} / ${d.warm_offset9975_ms}  ratio ${d.warm_ratio}`,
    d.warm_ratio <= TARGETS.warm_ratio_max,
  );
  check(
    'read units at offset 9,975 (cold)',
    `${d.rcu_offset9975}`,
    d.rcu_offset9975 <= TARGETS.rcu_offset9975_max,
  );
  check(
    `warm include=${d.include.include} / without`,
    `${d.include.warm.with_p50_ms} / ${d.include.warm.without_p50_ms}  ratio ${d.include.warm.ratio}`,
    d.include.warm.ratio <= TARGETS.include_warm_ratio_max,
  );
  out.push(
    line(
      `cold include=${d.include.include} / without`,
      `${d.include.cold.with_p50_ms} / ${d.include.cold.without_p50_ms}  ratio ${d.include.cold.ratio}, ${d.include.cold.read_units_with} / ${d.include.cold.read_units_without} RU`,
    ),
  );
  out.push(
    line('naive: read every child from the base table', `${d.naive_full_read_ms} ms, ${d.naive_rcu} RCU`),
  );
  const p = r.publish_10k;
  out.push('', 'Publish of the 10,000-child release');
  check(
    'publisher vs raw BatchWriteItem',
    `${p.seconds} s (${p.items_per_s} items/s) vs ${p.raw_batchwrite_seconds} s  ratio ${p.ratio}`,
    p.ratio <= TARGETS.publish_ratio_max,
  );
  const l = r.local_server;
  out.push('', 'Local API (npm start) under load, warm child list (information: no target)');
  out.push(
    line(
      'local vs bare node:http',
      `${l.rps} rps (p99 ${l.p99_ms} ms) vs ${l.bare_node_rps} rps  ratio ${l.ratio}`,
    ),
  );
  if (l.gateway_floor_rps !== undefined)
    out.push(
      `  the local gateway alone, answering the same bytes at once: ${l.gateway_floor_rps} rps (ratio ${l.gateway_floor_ratio}: the most any function behind it could reach)`,
    );
  describeConcurrency(l, (text) => out.push(text));
  out.push('', 'Local API (npm start), a fresh process: its first requests');
  describeHttpFirstRequests(r.http_first_requests, check);
  out.push('', `Memory (Lambda memory in the stack: ${FUNCTION_MEMORY_MB} MB)`);
  check(
    'list-child-products RSS after every page (MB)',
    `${r.memory.list_child_products_rss_mb}`,
    r.memory.list_child_products_rss_mb <= TARGETS.rss_mb_max,
  );
  const w = r.memory.worst_case_cache;
  check(
    `worst-case catalogs, ${w.stores} stores (${w.tags_per_child} tags a child): heap growth / held / charged (MB)`,
    `${w.heap_growth_mb} / ${w.held_mb} / ${w.charged_mb} (budget ${w.budget_mb})`,
    w.heap_growth_mb <= w.budget_mb && w.held_mb <= w.charged_mb + 1,
  );
  out.push('');
  describeCatalogProducts({}, r.catalog_products, check, (text) => out.push(text));
  out.push('');
  describeRateLimit(r.rate_limit, check, (text) => out.push(text));
  out.push('', missed === 0 ? 'All targets met.' : `${missed} target(s) missed.`, describeNoise(r.noise), '');
  (JSON_OUTPUT ? process.stderr : process.stdout).write(`${out.join('\n')}\n`);
  return missed;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
