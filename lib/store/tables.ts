import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  ScanCommand,
  UpdateTimeToLiveCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { TABLE_KEY, TABLE_ROLES, type TableRole, TTL_ATTRIBUTE, TTL_ROLES, tableName } from './schema';

/** Keys emptyTables reads per Scan: 10 BatchWriteItem requests, sent together. */
const EMPTY_PAGE = 250;

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

/**
 * Deletes every item of every table (local harness and tests). Each Scan page (EMPTY_PAGE keys) is deleted
 * in BatchWriteItem requests of 25 sent together; `onProgress` gets the number deleted so far after each
 * page. Returns how many items were deleted.
 */
export async function emptyTables(
  client: DynamoDBClient,
  onProgress?: (deleted: number) => void,
): Promise<number> {
  let deleted = 0;
  for (const role of TABLE_ROLES) {
    const table = tableName(role);
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: table,
          ProjectionExpression: '#pk, #sk',
          ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#sk': TABLE_KEY.sortKey },
          Limit: EMPTY_PAGE,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      const keys = page.Items ?? [];
      const batches: Record<string, AttributeValue>[][] = [];
      for (let i = 0; i < keys.length; i += 25) batches.push(keys.slice(i, i + 25));
      await Promise.all(
        batches.map(async (batch) => {
          let requests: Record<string, WriteRequest[]> | undefined = {
            [table]: batch.map((Key) => ({ DeleteRequest: { Key } })),
          };
          while (requests && Object.keys(requests).length > 0) {
            const result: { UnprocessedItems?: Record<string, WriteRequest[]> } = await client.send(
              new BatchWriteItemCommand({ RequestItems: requests }),
            );
            requests = result.UnprocessedItems;
          }
        }),
      );
      deleted += keys.length;
      if (keys.length > 0) onProgress?.(deleted);
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return deleted;
}
