import './quiet-sdk';
import './lambda-env';
import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { getConfig, resetConfig } from '../lib/config/index';
import { parseCorsOrigins } from '../lib/http/cors';
import { objectStore } from '../lib/store/object-store';
import { ensureTables } from '../lib/store/tables';
import { DATABASE_HELP, fail, parseCli, toolPort, usageError } from './cli';
import { localDeliveryEnvironment } from './delivery-queue';
import { createDevServer } from './dev';
import {
  type DynamoDbLocal,
  JAVA_MISSING_MESSAGE,
  javaAvailable,
  startDynamoDbLocal,
} from './dynamodb-local';
import { CDK_OUT, localTables, prepareAssembly, runtimeEnvironment } from './from-template';
import { closeServer, listen, publicUrlFrom } from './gateway';
import { type ObjectStoreLocal, objectStoreEnvironment } from './object-store-local';
import { startObjectStoreThread } from './object-store-thread';
import { portInUseMessage, portsProblem } from './ports';
import { DEMO_PARENT_ID, seedDemo } from './seed';
import { createLocalServer } from './server';
import { createTemplateServer } from './template/server';

const USAGE = `Usage: npm start [-- --in-memory] [-- --from-template]      npm run dev [-- --in-memory]
Starts DynamoDB Local on 127.0.0.1:$DYNAMODB_PORT (default 8000; data under .data/, or nothing on disk
with --in-memory) and the local object store (S3-compatible) on 127.0.0.1:$S3_PORT (default 9000; objects
under .data/s3/, or in a temporary folder removed on stop with --in-memory), creates the tables and the
documents bucket, seeds the demo store and serves the local API on 127.0.0.1:$PORT (default 3000). It
then prints one \`export ...\` line with BASE, STORE_ID, CLIENT_ID, CLIENT_SECRET (the admin key),
STOREFRONT_CLIENT_ID (the storefront's own key, for implicit grants), MAPPING_ID and PRODUCT_ID: paste it
into the terminal you run the docs' examples in.

With DYNAMODB_ENDPOINT set to a URL it uses that DynamoDB instead of starting one (and creates the
tables and the demo there); with DYNAMODB_ENDPOINT=aws it serves the deployed tables (AWS credentials
and region from the environment, table names from KEYS_TABLE, MAPPINGS_TABLE and PRODUCTS_TABLE) and
creates and seeds nothing. With S3_ENDPOINT set to a URL it uses that object store instead of starting
one (and creates the bucket DOCUMENTS_BUCKET there); with DYNAMODB_ENDPOINT=aws and no S3_ENDPOINT, the
deployed bucket named by DOCUMENTS_BUCKET.

  --in-memory      keep nothing on disk (default: data in .data/)
  --from-template  serve what cdk deploy uploads: routes, functions, handlers and environments from
                   the synthesized template, each function's bundle from cdk.out (synthesized first
                   when missing or older than the sources)
  --reload         (npm run dev) rebuild a function when functions/ or lib/ change, for the next request`;

/** `npm run dev` is `npm start -- --reload`: its messages say `dev:`. */
const TOOL = process.argv.slice(2).includes('--reload') ? 'dev' : 'start';

/** The shell line that sets what the docs' examples use (values are ids and URLs: no quoting needed). */
function exportLine(values: Record<string, string>): string {
  return `export ${Object.entries(values)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')}`;
}

/**
 * `npm start`: DynamoDB Local (unless DYNAMODB_ENDPOINT is set), the local object store (unless S3_ENDPOINT
 * is set), tables, bucket, demo seed, local API.
 */
async function main(): Promise<void> {
  const { values } = parseCli(TOOL, `${USAGE}\n\n${DATABASE_HELP}`, {
    'in-memory': { type: 'boolean' },
    'from-template': { type: 'boolean' },
    reload: { type: 'boolean' },
  });
  const inMemory = values['in-memory'] === true;
  const fromTemplate = values['from-template'] === true;
  const reload = values.reload === true;
  if (reload && fromTemplate) {
    usageError(TOOL, '--reload and --from-template do not combine (the template serves built bundles)');
  }
  // Webhooks of the local harness may point at loopback listeners (docs/webhooks.md); the stack never allows it.
  process.env.INTEGRATIONS_ALLOW_LOOPBACK ??= 'true';
  const onAws = process.env.DYNAMODB_ENDPOINT === 'aws';
  if (onAws) delete process.env.DYNAMODB_ENDPOINT;
  const startsDatabase = !onAws && !process.env.DYNAMODB_ENDPOINT;
  const startsObjects = !onAws && !process.env.S3_ENDPOINT;
  // The ports of what this run starts, checked alike before anything starts: a bad or taken one stops here.
  const ports = {
    PORT: toolPort(TOOL, 'PORT'),
    ...(startsDatabase ? { DYNAMODB_PORT: toolPort(TOOL, 'DYNAMODB_PORT') } : {}),
    ...(startsObjects ? { S3_PORT: toolPort(TOOL, 'S3_PORT') } : {}),
  };
  const problem = await portsProblem(ports);
  if (problem?.usage) usageError(TOOL, problem.message);
  if (problem) fail(TOOL, problem.message);
  // Synthesis (when cdk.out is stale) runs while DynamoDB Local starts.
  const assembly = fromTemplate ? prepareAssembly() : undefined;
  assembly?.catch(() => undefined);
  let database: DynamoDbLocal | undefined;
  if (ports.DYNAMODB_PORT !== undefined) {
    if (!javaAvailable()) {
      process.stderr.write(`${JAVA_MISSING_MESSAGE}\n`);
      process.exit(1);
    }
    const port = ports.DYNAMODB_PORT;
    process.stdout.write(
      `starting DynamoDB Local on 127.0.0.1:${port} (${inMemory ? 'in memory' : 'data in .data/'})...\n`,
    );
    database = await startDynamoDbLocal({ port, ...(inMemory ? {} : { dataDir: '.data' }) });
    process.env.DYNAMODB_ENDPOINT = database.endpoint;
    const stopDatabase = database;
    process.once('exit', () => stopDatabase.process.kill('SIGKILL'));
  }
  let objects: ObjectStoreLocal | undefined;
  if (ports.S3_PORT !== undefined) {
    const port = ports.S3_PORT;
    process.stdout.write(
      `starting the local object store on 127.0.0.1:${port} (${inMemory ? 'in a temporary folder' : 'data in .data/s3/'})...\n`,
    );
    // On a thread of its own: a publish's chunk files and manifests would otherwise queue the API's requests.
    objects = await startObjectStoreThread({ port, ...(inMemory ? {} : { directory: '.data/s3' }) });
    process.env.S3_ENDPOINT = objects.endpoint;
    if (inMemory) {
      // Ctrl-C removes the temporary folder through stop(); this covers an exit on an error.
      const folder = objects.directory;
      process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    }
  }
  resetConfig();
  const config = getConfig();
  // A given S3_ENDPOINT may not have the bucket yet (a started one does); the demo's publish needs it.
  if (!onAws && !objects) await objectStore.ensureBucket();
  const demo = onAws
    ? undefined
    : await prepareLocalDatabase(config.dynamodbEndpoint as string, config.region);

  // Checked at start: a bad CORS_ORIGINS stops here with a message naming it.
  const corsOrigins = parseCorsOrigins(process.env.CORS_ORIGINS);
  let server: Server;
  let stopFunctions = async () => {};
  let mode = 'handlers run in-process from functions/, publishing in a child process';
  if (assembly) {
    await assembly;
    const template = createTemplateServer({
      outdir: CDK_OUT,
      tables: localTables(config),
      // INTEGRATIONS_ALLOW_LOOPBACK (set above) reaches the functions: local listeners receive webhooks.
      runtimeEnv: {
        ...runtimeEnvironment(config),
        ...objectStoreEnvironment(config),
        ...localDeliveryEnvironment(),
      },
      publicUrl: publicUrlFrom(process.env),
      corsOrigins: process.env.CORS_ORIGINS ? corsOrigins : undefined,
    });
    server = template.server;
    stopFunctions = async () =>
      Promise.all([...template.runtimes.values()].map((r) => r.close())).then(() => {});
    mode = `from the template ${template.api.templateFile}: ${template.api.routes.length} routes, ${template.api.functions.size} bundled functions`;
  } else if (reload) {
    const dev = createDevServer();
    server = dev.server;
    stopFunctions = dev.stop;
    mode = 'reloading: a change under functions/ or lib/ is served by the next request';
  } else server = createLocalServer({ workflow: 'child' });
  const port = await listen(server, ports.PORT).catch((error: unknown) => {
    // Taken since the check (DynamoDB Local takes seconds to start): the same message; the exit stops the rest.
    if ((error as { code?: string }).code === 'EADDRINUSE') fail(TOOL, portInUseMessage(ports.PORT, 'PORT'));
    throw error;
  });
  const base = `http://127.0.0.1:${port}`;
  const lines = [
    '',
    `Local API listening on ${base} (DynamoDB: ${config.dynamodbEndpoint ?? `AWS, ${config.region}`}; documents: bucket ${config.documentsBucket} on ${config.s3Endpoint ?? `AWS S3, ${config.region}`})`,
    `Serving: ${mode}`,
    `Browsers may call it from: ${corsOrigins.join(', ')} (CORS_ORIGINS)`,
    assembly
      ? 'API docs: not served with --from-template (only the template routes, as in API Gateway)'
      : `API docs: ${base}/docs (OpenAPI document: ${base}/openapi.json)`,
  ];
  if (demo) {
    const exported = {
      BASE: base,
      STORE_ID: demo.storeId,
      CLIENT_ID: demo.clientId,
      CLIENT_SECRET: demo.clientSecret,
      STOREFRONT_CLIENT_ID: demo.storefrontClientId,
      MAPPING_ID: demo.mappingId,
      PRODUCT_ID: DEMO_PARENT_ID,
    };
    lines.push(
      `Demo store ${demo.created ? 'created' : 'already present'} (local demo credentials). In another terminal, paste:`,
      '',
      // PORT and DYNAMODB_PORT (or DYNAMODB_ENDPOINT) too when they were set, so the CLIs (`npm run event`, `npm run admin`...)
      // in that terminal find this API and this DynamoDB Local.
      exportLine({
        ...exported,
        ...(process.env.PORT ? { PORT: String(port) } : {}),
        // The same for the object store: S3_PORT when set, S3_ENDPOINT when given by URL.
        ...(process.env.S3_PORT && objects ? { S3_PORT: process.env.S3_PORT } : {}),
        ...(objects ? {} : { S3_ENDPOINT: config.s3Endpoint as string }),
        ...(process.env.DYNAMODB_PORT && database ? { DYNAMODB_PORT: process.env.DYNAMODB_PORT } : {}),
        // A DynamoDB given by URL (not one started here): the CLIs must talk to it, not to port 8000.
        ...(database ? {} : { DYNAMODB_ENDPOINT: config.dynamodbEndpoint as string }),
      }),
      '',
      "then, for example, list the demo parent product's live children with a storefront (implicit) token:",
      '',
      `  curl -sg "$BASE/catalog/products/$PRODUCT_ID/relationships/children?page[limit]=5" -H 'SVC-Channel: web' -H "Authorization: Bearer $(curl -s -X POST $BASE/oauth/access_token -d grant_type=implicit -d client_id=$STOREFRONT_CLIENT_ID | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')"`,
    );
  } else {
    lines.push(
      'Serving the deployed tables (DYNAMODB_ENDPOINT=aws): no demo store.',
      '',
      `export BASE=${base}`,
    );
  }
  lines.push('', 'Press Ctrl-C to stop.', '');
  process.stdout.write(lines.join('\n'));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping...\n`);
    await closeServer(server);
    await stopFunctions();
    await Promise.all([database?.stop(), objects?.stop()]);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** Creates the tables in a local (or given) DynamoDB and seeds the demo store there. */
async function prepareLocalDatabase(endpoint: string, region: string) {
  const raw = new DynamoDBClient({
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTables(raw);
  raw.destroy();
  return seedDemo();
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${(error as Error).message}\n`);
  process.exit(1);
});
