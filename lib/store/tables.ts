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

/** Deletes every item of every table (the local harness's `reset-demo`; never used against AWS). */
export async function emptyTables(client: DynamoDBClient): Promise<number> {
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
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      const keys = page.Items ?? [];
      for (let i = 0; i < keys.length; i += 25) {
        let requests: Record<string, WriteRequest[]> | undefined = {
          [table]: keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })),
        };
        while (requests && Object.keys(requests).length > 0) {
          const result: { UnprocessedItems?: Record<string, WriteRequest[]> } = await client.send(
            new BatchWriteItemCommand({ RequestItems: requests }),
          );
          requests = result.UnprocessedItems;
        }
      }
      deleted += keys.length;
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return deleted;
}
