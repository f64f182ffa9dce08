import { CHANGE_SHARDS, changeKeys, HOUR_MS } from './catalog-changes';
import { queryAll } from './items';

/** What changed in the store since `from` (ms): the products and sku hashes touched, and whether anything else was. */
export interface ChangeSet {
  products: Set<string>;
  skus: Set<string>;
  /** The hierarchies whose nodes or attachments changed. */
  hierarchies: Set<string>;
  structure: boolean;
}

export const catalogChangeRepository = {
  /** Every change logged from `from` on (ms), read from the log's hourly partitions up to now. */
  async since(storeId: string, table: string, from: number, now = Date.now()): Promise<ChangeSet> {
    const out: ChangeSet = { products: new Set(), skus: new Set(), hierarchies: new Set(), structure: false };
    const partitions: string[] = [];
    for (let at = from - (from % HOUR_MS); at <= now; at += HOUR_MS) {
      for (let shard = 0; shard < CHANGE_SHARDS; shard += 1)
        partitions.push(changeKeys.log(storeId, at, shard));
    }
    const stamp = new Date(from).toISOString();
    const pages = await Promise.all(
      partitions.map((pk) =>
        queryAll({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND sk >= :from',
          ExpressionAttributeValues: { ':pk': pk, ':from': stamp },
          ConsistentRead: true,
        }),
      ),
    );
    for (const item of pages.flat()) {
      if (item.kind === 'product') out.products.add(String(item.id));
      else if (item.kind === 'sku') out.skus.add(String(item.id));
      else if (item.kind === 'hierarchy') out.hierarchies.add(String(item.id));
      else out.structure = true;
    }
    return out;
  },
};
