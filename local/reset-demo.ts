import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { getConfig, resetConfig } from '../lib/config/index';
import { objectStore } from '../lib/store/object-store';
import { recreateTables } from '../lib/store/tables';
import { count } from './messages';
import { seedDemo } from './seed';

/**
 * `npm run admin -- reset-demo`: empties the local tables (every store, key, mapping, token, catalog
 * and rate-limit window in them) and seeds the demo store again, as a fresh `npm start` has it, with
 * the same ids and credentials, so the export line printed by `npm start` stays valid. Local only: the
 * caller refuses DYNAMODB_ENDPOINT=aws. Returns how many items were dropped.
 *
 * The tables are dropped and created again (`recreateTables`), which DynamoDB Local does at once
 * whatever they hold; `report` gets a line per table with the items it held.
 */
export async function resetDemo(report: (line: string) => void = () => {}): Promise<number> {
  resetConfig();
  const config = getConfig();
  const client = new DynamoDBClient({
    endpoint: config.dynamodbEndpoint,
    region: config.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let dropped: number;
  try {
    dropped = await recreateTables(client, (table, items) => {
      report(`dropping table ${table} (${count(items, 'item')})`);
    });
  } finally {
    client.destroy();
  }
  await objectStore.ensureBucket();
  await seedDemo();
  return dropped;
}
