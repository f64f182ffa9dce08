import { getDocumentClient } from './client';
import { GetCommand } from './dynamodb';
import { type TableRole, tableName } from './schema';

/** Strips the table's key attributes from an item. */
export function withoutKeys<T extends Record<string, unknown>>(item: T): Omit<T, 'pk' | 'sk'> {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest;
}

/** One item by key, without its key attributes, or undefined when it does not exist. */
export async function getRecord<T>(
  role: TableRole,
  key: { pk: string; sk: string },
  consistent: boolean,
): Promise<T | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(role), Key: key, ConsistentRead: consistent }),
  );
  return result.Item ? (withoutKeys(result.Item) as T) : undefined;
}
