import type { DynamoDbLocal } from '../../local/dynamodb-local';
import type { ObjectStoreLocal } from '../../local/object-store-local';

export default async function globalTeardown(): Promise<void> {
  const started = globalThis as {
    __dynamodbLocal__?: DynamoDbLocal;
    __objectStoreLocal__?: ObjectStoreLocal;
  };
  await Promise.all([started.__dynamodbLocal__?.stop(), started.__objectStoreLocal__?.stop()]);
}
