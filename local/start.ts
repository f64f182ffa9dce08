import './quiet-sdk';
import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { getConfig, resetConfig } from '../lib/config/index';
import { ensureTables } from '../lib/store/tables';
import { createDevServer } from './dev';
import {
  type DynamoDbLocal,
  JAVA_MISSING_MESSAGE,
  javaAvailable,
  startDynamoDbLocal,
} from './dynamodb-local';
import { CDK_OUT, localTables, prepareAssembly, runtimeEnvironment } from './from-template';
import { closeServer, listen, publicUrlFrom } from './gateway';
import { DEMO_PARENT_ID, seedDemo } from './seed';
import { createLocalServer } from './server';
import { createTemplateServer } from './template/server';

const USAGE = `Usage: npm start [-- --in-memory] [-- --from-template]      npm run dev [-- --in-memory]
Starts DynamoDB Local (unless DYNAMODB_ENDPOINT is set), creates the tables, seeds the demo store and
serves the local API on PORT (default 3000).
  --in-memory      keep nothing on disk (default: data in .data/)
  --from-template  serve what cdk deploy uploads: routes, functions, handlers and environments from
                   the synthesized template, each function's bundle from cdk.out (synthesized first
                   when missing or older than the sources)
  --reload         (npm run dev) rebuild a function when functions/ or lib/ change, for the next request`;

function parseOptions(): { inMemory: boolean; fromTemplate: boolean; reload: boolean } {
  try {
    const { values } = parseArgs({
      options: {
        'in-memory': { type: 'boolean', default: false },
        'from-template': { type: 'boolean', default: false },
        reload: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    if (values.reload && values['from-template'])
      throw new Error('--reload and --from-template do not combine (the template serves built bundles)');
    return { inMemory: values['in-memory'], fromTemplate: values['from-template'], reload: values.reload };
  } catch (error) {
    process.stderr.write(`npm start: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

/** `npm start`: DynamoDB Local (unless DYNAMODB_ENDPOINT is set), tables, demo seed, local API. */
async function main(): Promise<void> {
  const { inMemory, fromTemplate, reload } = parseOptions();
  // Synthesis (when cdk.out is stale) runs while DynamoDB Local starts.
  const assembly = fromTemplate ? prepareAssembly() : undefined;
  assembly?.catch(() => undefined);
  let database: DynamoDbLocal | undefined;
  if (!process.env.DYNAMODB_ENDPOINT) {
    if (!javaAvailable()) {
      process.stderr.write(`${JAVA_MISSING_MESSAGE}\n`);
      process.exit(1);
    }
    const port = Number(process.env.DYNAMODB_PORT || 8000);
    process.stdout.write(
      `starting DynamoDB Local on 127.0.0.1:${port} (${inMemory ? 'in memory' : 'data in .data/'})...\n`,
    );
    database = await startDynamoDbLocal({ port, ...(inMemory ? {} : { dataDir: '.data' }) });
    process.env.DYNAMODB_ENDPOINT = database.endpoint;
    const stopDatabase = database;
    process.once('exit', () => stopDatabase.process.kill('SIGKILL'));
  }
  resetConfig();
  const config = getConfig();
  const raw = new DynamoDBClient({
    endpoint: config.dynamodbEndpoint,
    region: config.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTables(raw);
  raw.destroy();
  const demo = await seedDemo();

  let server: Server;
  let stopFunctions = async () => {};
  let mode = 'handlers run in-process from functions/';
  if (assembly) {
    await assembly;
    const template = createTemplateServer({
      outdir: CDK_OUT,
      tables: localTables(config),
      runtimeEnv: runtimeEnvironment(config),
      publicUrl: publicUrlFrom(process.env),
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
  } else server = createLocalServer();
  const port = await listen(server, Number(process.env.PORT || 3000));
  const base = `http://127.0.0.1:${port}`;
  process.stdout.write(
    [
      '',
      `Local API listening on ${base} (DynamoDB: ${config.dynamodbEndpoint})`,
      `Serving: ${mode}`,
      assembly
        ? 'API docs: not served with --from-template (only the template routes, as in API Gateway)'
        : `API docs: ${base}/docs (OpenAPI document: ${base}/openapi.json)`,
      `Demo store ${demo.created ? 'created' : 'already present'}:`,
      `  store_id:      ${demo.storeId}`,
      `  mapping_id:    ${demo.mappingId}`,
      `  client_id:     ${demo.clientId}`,
      `  client_secret: ${demo.clientSecret}   (local demo only)`,
      '',
      'Get an admin token:',
      `  curl -s -X POST ${base}/oauth/access_token -d grant_type=client_credentials -d client_id=${demo.clientId} -d client_secret=${demo.clientSecret}`,
      '',
      "List the demo parent product's live children with a storefront (implicit) token:",
      `  curl -sg "${base}/catalog/products/${DEMO_PARENT_ID}/relationships/children?page[limit]=5" -H 'SVC-Channel: web' -H "Authorization: Bearer $(curl -s -X POST ${base}/oauth/access_token -d grant_type=implicit -d client_id=${demo.clientId} | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')"`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping...\n`);
    await closeServer(server);
    await stopFunctions();
    await database?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${(error as Error).message}\n`);
  process.exit(1);
});
