import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resetConfig } from '../../lib/config/index';
import { ensureTables } from '../../lib/store/tables';
import { JAVA_MISSING_MESSAGE, javaAvailable, startDynamoDbLocal } from '../../local/dynamodb-local';
import { TEST_ENV } from './test-env';

/** Starts one DynamoDB Local on a free port for the whole run (unless DYNAMODB_ENDPOINT is given) and creates the tables. */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Workers are started after this runs and inherit process.env, so the endpoint reaches every test file.
export default async function globalSetup(): Promise<void> {
  let endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) {
    if (!javaAvailable()) throw new Error(JAVA_MISSING_MESSAGE);
    const database = await startDynamoDbLocal();
    (globalThis as { __dynamodbLocal__?: unknown }).__dynamodbLocal__ = database;
    endpoint = database.endpoint;
  }
  const env = { ...TEST_ENV, DYNAMODB_ENDPOINT: endpoint };
  Object.assign(process.env, env);
  resetConfig();
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTables(client);
  client.destroy();
}
