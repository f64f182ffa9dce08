import { type DynamoDBClient as Client, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { getConfig, resetConfig } from '../lib/config/index';
import { catalogRepository } from '../lib/store/catalog-repository';
import { keysTable, tableName } from '../lib/store/schema';
import { emptyTables, ensureTables } from '../lib/store/tables';
import { count } from './messages';
import { seedDemo } from './seed';

/** How often a reset says how far it got, while it deletes. */
export const RESET_PROGRESS_MS = 2000;

/** The ids of every store in the keys table (a small table: stores, keys, clients and tokens). */
async function storeIds(client: Client): Promise<string[]> {
  const ids: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName('keys'),
        ProjectionExpression: 'pk',
        FilterExpression: 'sk = :store',
        ExpressionAttributeValues: { ':store': { S: keysTable.store('').sk } },
        ...(start ? { ExclusiveStartKey: start as never } : {}),
      }),
    );
    for (const item of page.Items ?? []) ids.push((item.pk?.S ?? '').slice('STORE#'.length));
    start = page.LastEvaluatedKey;
  } while (start);
  return ids;
}

/**
 * `npm run admin -- reset-demo`: empties the local tables (every store, key, mapping, token, catalog
 * and rate-limit window in them) and seeds the demo store again, as a fresh `npm start` has it, with
 * the same ids and credentials, so the export line printed by `npm start` stays valid. Local only: the
 * caller refuses DYNAMODB_ENDPOINT=aws. Returns how many items were deleted.
 *
 * Every store's catalog releases go first, as the cleanup of old releases deletes them (by partition,
 * keys only, in parallel: lib/store/catalog-repository.ts), then whatever is left. `report` gets a line
 * per release and, every RESET_PROGRESS_MS while deleting, the number of items deleted so far.
 */
export async function resetDemo(report: (line: string) => void = () => {}): Promise<number> {
  resetConfig();
  const config = getConfig();
  const client = new DynamoDBClient({
    endpoint: config.dynamodbEndpoint,
    region: config.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let done = 0;
  let current = 0;
  let reported = 0;
  const timer = setInterval(() => {
    if (done + current === reported) return;
    reported = done + current;
    report(`${count(reported, 'item')} deleted so far`);
  }, RESET_PROGRESS_MS);
  try {
    await ensureTables(client);
    for (const storeId of await storeIds(client)) {
      for (const marker of await catalogRepository.listReleases(storeId)) {
        report(`deleting release ${marker.release_id} of catalog ${marker.catalog_id} (store ${storeId})`);
        // Its items, then its marker.
        done += 1;
        done += await catalogRepository.deleteRelease(marker, {
          onProgress: (deleted) => {
            current = deleted;
          },
        });
        current = 0;
      }
    }
    done += await emptyTables(client, (deleted) => {
      current = deleted;
    });
    current = 0;
  } finally {
    clearInterval(timer);
    client.destroy();
  }
  await seedDemo();
  return done;
}
