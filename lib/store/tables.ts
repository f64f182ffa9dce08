import {
  type AttributeValue,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  ScanCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLE_KEY, TABLE_ROLES, type TableRole, TTL_ATTRIBUTE, TTL_ROLES, tableName } from './schema';

/**
 * Creates the tables when they are missing (local harness and tests; the CDK stack creates them
 * in AWS with the same key schema). Safe to run concurrently and repeatedly.
 */
export async function ensureTables(client: DynamoDBClient): Promise<void> {
  await Promise.all(TABLE_ROLES.map((role) => ensureTable(client, role)));
}

async function ensureTable(client: DynamoDBClient, role: TableRole): Promise<void> {
  const name = tableName(role);
  try {
    await client.send(new DescribeTableCommand({ TableName: name }));
    return;
  } catch (error) {
    if (
      !(error instanceof ResourceNotFoundException) &&
      (error as Error).name !== 'ResourceNotFoundException'
    ) {
      throw error;
    }
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: TABLE_KEY.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEY.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: TABLE_KEY.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEY.sortKey, KeyType: 'RANGE' },
        ],
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ResourceInUseException') throw error;
    return;
  }
  if (TTL_ROLES.includes(role)) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
  }
}

/** How often `recreateTables` asks whether a deleted table is gone. */
const GONE_POLL_MS = 50;

/**
 * Deletes every table and creates it again, empty (the local harness's reset: DynamoDB Local drops a
 * table of any size at once, where deleting its items one by one took minutes after a catalog of 30,000
 * products). `onTable` gets each table's name and its item count before the drop. Returns the items
 * dropped. Never for AWS: tables there are the stack's, with its settings.
 */
export async function recreateTables(
  client: DynamoDBClient,
  onTable?: (table: string, items: number) => void,
): Promise<number> {
  let dropped = 0;
  for (const role of TABLE_ROLES) {
    const table = tableName(role);
    const items = await itemCount(client, table);
    onTable?.(table, items);
    dropped += items;
    try {
      await client.send(new DeleteTableCommand({ TableName: table }));
    } catch (error) {
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
    while (await exists(client, table)) await new Promise((resolve) => setTimeout(resolve, GONE_POLL_MS));
  }
  await ensureTables(client);
  return dropped;
}

/** The table's items, counted (a Select COUNT scan: no item is read out), 0 when there is no table. */
async function itemCount(client: DynamoDBClient, table: string): Promise<number> {
  let total = 0;
  let start: Record<string, AttributeValue> | undefined;
  try {
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: table,
          Select: 'COUNT',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      total += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return 0;
    throw error;
  }
  return total;
}

async function exists(client: DynamoDBClient, table: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: table }));
    return true;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return false;
    throw error;
  }
}
