import type { DynamoDbLocal } from '../../local/dynamodb-local';

export default async function globalTeardown(): Promise<void> {
  const database = (globalThis as { __dynamodbLocal__?: DynamoDbLocal }).__dynamodbLocal__;
  await database?.stop();
}
