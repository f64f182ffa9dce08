import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resetConfig } from '../../lib/config/index';
import { objectStore, resetObjectStoreClient } from '../../lib/store/object-store';
import { ensureTables } from '../../lib/store/tables';
import { JAVA_MISSING_MESSAGE, javaAvailable, startDynamoDbLocal } from '../../local/dynamodb-local';
import { startObjectStoreLocal } from '../../local/object-store-local';
import { TEST_ENV } from './test-env';

/**
 * Starts one DynamoDB Local and one local object store on free ports for the whole run (unless
 * DYNAMODB_ENDPOINT or S3_ENDPOINT is given), and creates the tables and the documents bucket.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Workers are started after this runs and inherit process.env, so the endpoints reach every test file.
export default async function globalSetup(): Promise<void> {
  let endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) {
    if (!javaAvailable()) throw new Error(JAVA_MISSING_MESSAGE);
    const database = await startDynamoDbLocal();
    (globalThis as { __dynamodbLocal__?: unknown }).__dynamodbLocal__ = database;
    endpoint = database.endpoint;
  }
  let s3Endpoint = process.env.S3_ENDPOINT;
  if (!s3Endpoint) {
    const objects = await startObjectStoreLocal({ buckets: [TEST_ENV.DOCUMENTS_BUCKET] });
    (globalThis as { __objectStoreLocal__?: unknown }).__objectStoreLocal__ = objects;
    s3Endpoint = objects.endpoint;
  }
  const env = { ...TEST_ENV, DYNAMODB_ENDPOINT: endpoint, S3_ENDPOINT: s3Endpoint };
  Object.assign(process.env, env);
  resetConfig();
  resetObjectStoreClient();
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTables(client);
  client.destroy();
  // A given S3_ENDPOINT may not have the bucket yet.
  await objectStore.ensureBucket();
  resetObjectStoreClient();
}
