import './quiet-sdk';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { getConfig, resetConfig } from '../lib/config/index';
import { parseCorsOrigins } from '../lib/http/cors';
import { ensureTables } from '../lib/store/tables';
import {
  type DynamoDbLocal,
  JAVA_MISSING_MESSAGE,
  javaAvailable,
  startDynamoDbLocal,
} from './dynamodb-local';
import { DEMO_PARENT_ID, seedDemo } from './seed';
import { createLocalServer, listen } from './server';

/** `npm start`: DynamoDB Local (unless DYNAMODB_ENDPOINT is set), tables, demo seed, local API. */
async function main(): Promise<void> {
  const inMemory = process.argv.includes('--in-memory');
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

  const server = createLocalServer();
  const port = await listen(server, Number(process.env.PORT || 3000));
  const base = `http://127.0.0.1:${port}`;
  process.stdout.write(
    [
      '',
      `Local API listening on ${base} (DynamoDB: ${config.dynamodbEndpoint})`,
      `API docs: ${base}/docs (OpenAPI document: ${base}/openapi.json)`,
      `Browsers may call it from: ${parseCorsOrigins(process.env.CORS_ORIGINS).join(', ')} (CORS_ORIGINS)`,
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
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
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
