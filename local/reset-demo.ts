import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { getConfig, resetConfig } from '../lib/config/index';
import { emptyTables, ensureTables } from '../lib/store/tables';
import { seedDemo } from './seed';

/**
 * `npm run admin -- reset-demo`: empties the local tables (every store, key, mapping, token, catalog
 * and rate-limit window in them) and seeds the demo store again, as a fresh `npm start` has it, with
 * the same ids and credentials, so the export line printed by `npm start` stays valid. Local only: the
 * caller refuses DYNAMODB_ENDPOINT=aws. Returns how many items were deleted.
 */
export async function resetDemo(): Promise<number> {
  resetConfig();
  const config = getConfig();
  const client = new DynamoDBClient({
    endpoint: config.dynamodbEndpoint,
    region: config.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let deleted: number;
  try {
    await ensureTables(client);
    deleted = await emptyTables(client);
  } finally {
    client.destroy();
  }
  await seedDemo();
  return deleted;
}
