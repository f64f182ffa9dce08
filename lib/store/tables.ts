import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
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
