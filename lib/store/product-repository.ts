import { createHash } from 'node:crypto';
import { transactAsCaller, type WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { DeleteCommand, GetCommand, type TransactWriteCommand, UpdateCommand } from './dynamodb';
import {
  backoff,
  batchGetItems,
  batchWriteItems,
  countItems,
  queryAll,
  queryPage,
  withoutKeys,
} from './items';
import { tableName } from './schema';

/**
 * The products merchants author through the platform's product API (`/pcm/products`, docs/products.md), in
 * the products table beside the catalog registry and the catalogs:
 *
 * - `STORE#<store>` / `PRODUCT#<id>`: a product: its `attributes` as the API took them (JSON text), `created_at`,
 *   `updated_at`, a `version` every write moves (updates are conditioned on the version they read, so two
 *   concurrent partial updates never lose each other's attributes: the later one reads again and re-applies
 *   its own), and `deleting` while a delete checks that no bundle uses it.
 * - `STORE#<store>` / `PUSEDBY#<component>#<bundle>`: a version of the bundle `<bundle>` names
 *   `<component>` in its `components` (`version`: the bundle version whose write recorded it; written
 *   before that write, for every component it names): a delete of `<component>` finds its bundles with one
 *   Query. A record whose bundle no longer names the component, once that write is done, is stale: the
 *   delete removes it (on condition it was not written again meanwhile).
 * - `PSKU#<store>#<sha256 of the sku in lower case>` / `CLAIM`: the product that holds a sku. SKUs are
 *   unique per store without regard to case (`ABC-1` and `abc-1` cannot both exist), as the platform's
 *   tools compare them. The hash bounds the key whatever the sku's length.
 * - `PEXTREF#<store>#<sha256 of the external_ref>` / `CLAIM`: the product that holds an `external_ref`,
 *   compared exactly (it is an import key).
 *
 * A claim is written (`attribute_not_exists`) or freed in the same transaction as the product that takes or
 * gives it up, so two products can never hold one sku, whatever runs concurrently, and a deleted product's
 * sku is free at once.
 *
 * Partitions and throughput: a store's products share one partition key (`STORE#<store>`), so the list
 * (`Query begins_with(sk, "PRODUCT#")`, in id order: ids are UUID v7, so creation order) and its COUNT
 * need no index. DynamoDB serves one partition key at up to 3,000 read and 1,000 write units a second
 * before splitting it by sort key (no local index holds the table to 10 GB per key), so a store's product
 * writes are bounded by what that collection sustains: far above the store's rate limit (100 requests/s).
 * The claims are one partition each (spread over the table), so uniqueness checks add no load to the store's
 * partition. The list's `meta.results.total` counts the store's products with COUNT queries (read units
 * grow with the store's products, no items transferred); a filtered list reads every product of the store
 * once, so its cost grows with the store, not with the page.
 */

/** The attributes of a product as stored (docs/products.md). */
export interface ProductAttributes {
  name: string;
  sku?: string;
  slug?: string;
  description?: string;
  status: 'draft' | 'live';
  commodity_type: 'physical' | 'digital';
  upc_ean?: string;
  mpn?: string;
  external_ref?: string;
  tags?: string[];
  locales?: Record<string, { name: string; description?: string }>;
  custom_inputs?: Record<string, unknown>;
  build_rules?: { default: 'include' | 'exclude'; include?: string[][]; exclude?: string[][] };
  components?: Record<string, ProductComponent>;
  extensions?: Record<string, Record<string, string | number | boolean | null>>;
}

export interface ProductComponent {
  name: string;
  min?: number;
  max?: number;
  sort_order?: number;
  options: {
    id: string;
    type: 'product';
    quantity: number;
    sort_order?: number;
    default?: boolean;
    min?: number;
    max?: number;
  }[];
}

export interface ProductRecord {
  id: string;
  attributes: ProductAttributes;
  created_at: string;
  updated_at: string;
  version: number;
  /** When a delete started checking that no bundle uses the product (a bundle cannot take it then). */
  deleting?: string;
}

/** A bundle's record that a version of it names a product (`PUSEDBY#`). */
export interface ProductUse {
  bundle_id: string;
  /** The bundle version whose write recorded it. */
  version: number;
  created_at: string;
}

/** The sku belongs to another product of the store. */
export class SkuTakenError extends Error {
  override name = 'SkuTakenError';
}
/** The external_ref belongs to another product of the store. */
export class ExternalRefTakenError extends Error {
  override name = 'ExternalRefTakenError';
}
/** The product is not there (any more). */
export class ProductNotFoundError extends Error {
  override name = 'ProductNotFoundError';
}
/** The product changed since it was read: read it again and re-apply. */
export class ProductChangedError extends Error {
  override name = 'ProductChangedError';
}
/** A transaction kept losing to concurrent ones on the same items. */
export class ProductWriteConflictError extends Error {
  override name = 'ProductWriteConflictError';
}

const PRODUCT_PREFIX = 'PRODUCT#';
const USED_BY_PREFIX = 'PUSEDBY#';
const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const productKeys = {
  product: (storeId: string, productId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${PRODUCT_PREFIX}${productId}`,
  }),
  sku: (storeId: string, sku: string) => ({ pk: `PSKU#${storeId}#${hash(sku.toLowerCase())}`, sk: 'CLAIM' }),
  externalRef: (storeId: string, ref: string) => ({ pk: `PEXTREF#${storeId}#${hash(ref)}`, sk: 'CLAIM' }),
  usedBy: (storeId: string, componentId: string, bundleId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${USED_BY_PREFIX}${componentId}#${bundleId}`,
  }),
};

/** True when two skus are the same claim (they compare without regard to case). */
export const sameSku = (a: string | undefined, b: string | undefined) =>
  a?.toLowerCase() === b?.toLowerCase();

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;
type Claim = { kind: 'sku' | 'external_ref'; index: number };

const ATTEMPTS = 8;

/** The claim items a product's sku and external_ref take: Puts conditioned on nobody holding them. */
function claimPuts(storeId: string, productId: string, attributes: ProductAttributes, from: number) {
  const items: TransactItems = [];
  const claims: Claim[] = [];
  if (attributes.sku !== undefined) {
    claims.push({ kind: 'sku', index: from + items.length });
    items.push(claimPut(productKeys.sku(storeId, attributes.sku), productId, { sku: attributes.sku }));
  }
  if (attributes.external_ref !== undefined) {
    claims.push({ kind: 'external_ref', index: from + items.length });
    items.push(
      claimPut(productKeys.externalRef(storeId, attributes.external_ref), productId, {
        external_ref: attributes.external_ref,
      }),
    );
  }
  return { items, claims };
}

function claimPut(key: { pk: string; sk: string }, productId: string, value: Record<string, string>) {
  return {
    Put: {
      TableName: tableName('products'),
      Item: { ...key, product_id: productId, ...value },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Frees a claim the product holds (conditioned on it holding it, so another's claim is never freed). */
function claimDelete(key: { pk: string; sk: string }, productId: string) {
  return {
    Delete: {
      TableName: tableName('products'),
      Key: key,
      ConditionExpression: 'product_id = :id',
      ExpressionAttributeValues: { ':id': productId },
    },
  };
}

/**
 * Runs a transaction with the caller's checks, retrying while it only lost to concurrent transactions;
 * a failed claim throws its error, any other cancellation is returned (undefined: written).
 */
async function transact(items: TransactItems, claims: Claim[], caller: WriteCaller | undefined) {
  for (let attempt = 1; ; attempt += 1) {
    const codes = await transactAsCaller(items, caller);
    if (codes === undefined) return undefined;
    for (const claim of claims) {
      if (codes[claim.index] !== 'ConditionalCheckFailed') continue;
      throw claim.kind === 'sku' ? new SkuTakenError() : new ExternalRefTakenError();
    }
    const conflictOnly = codes.every((code) => code === 'None' || code === 'TransactionConflict');
    if (!conflictOnly) return codes;
    if (attempt >= ATTEMPTS) throw new ProductWriteConflictError();
    await backoff(attempt);
  }
}

const productsQuery = (storeId: string) => ({
  TableName: tableName('products'),
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ':prefix': PRODUCT_PREFIX },
  ConsistentRead: true,
});

/**
 * Attributes are stored as their JSON text: their maps have keys the merchant chose (`constructor`,
 * `__proto__`...), which the DynamoDB marshaller would misread as object machinery, and the text's length
 * is the item's size.
 */
const toItem = (storeId: string, product: ProductRecord) => ({
  ...productKeys.product(storeId, product.id),
  ...product,
  attributes: JSON.stringify(product.attributes),
});
const toRecord = (item: Record<string, unknown>): ProductRecord => {
  const record = withoutKeys(item) as unknown as Omit<ProductRecord, 'attributes'> & { attributes: string };
  return { ...record, attributes: JSON.parse(record.attributes) as ProductAttributes };
};

export const productRepository = {
  async get(storeId: string, productId: string): Promise<ProductRecord | undefined> {
    const found = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('products'),
        Key: productKeys.product(storeId, productId),
        ConsistentRead: true,
      }),
    );
    return found.Item ? toRecord(found.Item) : undefined;
  },

  /** The store's products of these ids that exist, in no particular order. */
  async getMany(storeId: string, productIds: string[]): Promise<ProductRecord[]> {
    const keys = [...new Set(productIds)].map((id) => productKeys.product(storeId, id));
    return (await batchGetItems('products', keys, true)).map(toRecord);
  },

  /** One page of the store's products in id (creation) order, and how many the store has. */
  async page(
    storeId: string,
    page: { limit: number; offset: number },
  ): Promise<{ products: ProductRecord[]; total: number }> {
    const [total, items] = await Promise.all([
      countItems(productsQuery(storeId)),
      queryPage(productsQuery(storeId), page),
    ]);
    return { products: items.map(toRecord), total };
  },

  /** Every product of the store, in id order (for filtered lists). */
  async all(storeId: string): Promise<ProductRecord[]> {
    return (await queryAll(productsQuery(storeId))).map(toRecord);
  },

  /** The product id holding the sku (any case), if any. */
  async idOfSku(storeId: string, sku: string): Promise<string | undefined> {
    const found = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('products'),
        Key: productKeys.sku(storeId, sku),
        ConsistentRead: true,
      }),
    );
    return found.Item?.product_id as string | undefined;
  },

  /** The product ids holding each of these skus (any case) and external_refs, keyed by the value as given. */
  async claimsOf(
    storeId: string,
    values: { skus: string[]; externalRefs: string[] },
  ): Promise<{ skus: Map<string, string>; externalRefs: Map<string, string> }> {
    const skus = [...new Set(values.skus)];
    const refs = [...new Set(values.externalRefs)];
    const keys = [
      ...skus.map((sku) => productKeys.sku(storeId, sku)),
      ...refs.map((ref) => productKeys.externalRef(storeId, ref)),
    ];
    const held = new Map(
      (await batchGetItems('products', keys, true)).map((item) => [item.pk, item.product_id as string]),
    );
    const holders = (list: string[], key: (value: string) => { pk: string }) =>
      new Map(
        list.flatMap((value) => {
          const id = held.get(key(value).pk);
          return id === undefined ? [] : [[value, id] as const];
        }),
      );
    return {
      skus: holders(skus, (sku) => productKeys.sku(storeId, sku)),
      externalRefs: holders(refs, (ref) => productKeys.externalRef(storeId, ref)),
    };
  },

  /** Creates a product with its claims: SkuTakenError / ExternalRefTakenError when another holds one. */
  async create(storeId: string, product: ProductRecord, caller?: WriteCaller): Promise<void> {
    const { items, claims } = claimPuts(storeId, product.id, product.attributes, 1);
    const codes = await transact(
      [
        {
          Put: {
            TableName: tableName('products'),
            Item: toItem(storeId, product),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...items,
      ],
      claims,
      caller,
    );
    if (codes) throw new Error(`product ${product.id} could not be created (${codes.join(', ')})`);
  },

  /**
   * Replaces `before` (as read: its version) by `after` (version one more), moving the claims whose values
   * changed in the same transaction. ProductChangedError when the product changed since it was read (or
   * a delete is checking it), ProductNotFoundError when it is gone, SkuTakenError / ExternalRefTakenError.
   */
  async replace(
    storeId: string,
    before: ProductRecord,
    after: ProductRecord,
    caller?: WriteCaller,
  ): Promise<void> {
    const items: TransactItems = [
      {
        Put: {
          TableName: tableName('products'),
          Item: toItem(storeId, after),
          ConditionExpression: 'version = :version AND attribute_not_exists(deleting)',
          ExpressionAttributeValues: { ':version': before.version },
        },
      },
    ];
    const claims: Claim[] = [];
    const was = before.attributes;
    const now = after.attributes;
    if (!sameSku(was.sku, now.sku)) {
      if (was.sku !== undefined) items.push(claimDelete(productKeys.sku(storeId, was.sku), before.id));
      if (now.sku !== undefined) {
        claims.push({ kind: 'sku', index: items.length });
        items.push(claimPut(productKeys.sku(storeId, now.sku), after.id, { sku: now.sku }));
      }
    }
    if (was.external_ref !== now.external_ref) {
      if (was.external_ref !== undefined) {
        items.push(claimDelete(productKeys.externalRef(storeId, was.external_ref), before.id));
      }
      if (now.external_ref !== undefined) {
        claims.push({ kind: 'external_ref', index: items.length });
        items.push(
          claimPut(productKeys.externalRef(storeId, now.external_ref), after.id, {
            external_ref: now.external_ref,
          }),
        );
      }
    }
    const codes = await transact(items, claims, caller);
    if (codes === undefined) return;
    if (codes[0] === 'ConditionalCheckFailed') {
      if (!(await productRepository.get(storeId, before.id))) throw new ProductNotFoundError();
      throw new ProductChangedError();
    }
    throw new Error(`product ${before.id} could not be updated (${codes.join(', ')})`);
  },

  /**
   * Deletes the product as read (its version) and frees its claims, in one transaction:
   * ProductChangedError when it changed since, ProductNotFoundError when it is gone.
   */
  async delete(storeId: string, product: ProductRecord, caller?: WriteCaller): Promise<void> {
    const items: TransactItems = [
      {
        Delete: {
          TableName: tableName('products'),
          Key: productKeys.product(storeId, product.id),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': product.version },
        },
      },
    ];
    const { sku, external_ref } = product.attributes;
    if (sku !== undefined) items.push(claimDelete(productKeys.sku(storeId, sku), product.id));
    if (external_ref !== undefined) {
      items.push(claimDelete(productKeys.externalRef(storeId, external_ref), product.id));
    }
    const codes = await transact(items, [], caller);
    if (codes === undefined) return;
    if (codes[0] === 'ConditionalCheckFailed') {
      if (!(await productRepository.get(storeId, product.id))) throw new ProductNotFoundError();
      throw new ProductChangedError();
    }
    throw new Error(`product ${product.id} could not be deleted (${codes.join(', ')})`);
  },

  /**
   * Marks the product as being deleted (`deleting`, without moving its version), on condition that it is
   * still the version read: false when it changed or is gone. A bundle write that reads the mark refuses to
   * name the product.
   */
  async markDeleting(storeId: string, product: ProductRecord, at: string): Promise<boolean> {
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('products'),
          Key: productKeys.product(storeId, product.id),
          UpdateExpression: 'SET deleting = :at',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':at': at, ':version': product.version },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },

  /** Removes the mark (a delete that found a bundle using the product). */
  async unmarkDeleting(storeId: string, productId: string): Promise<void> {
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('products'),
          Key: productKeys.product(storeId, productId),
          UpdateExpression: 'REMOVE deleting',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  },

  /**
   * Records that version `version` of `bundleId` names each of `componentIds` (written before the bundle
   * is, so a delete of a component finds it).
   */
  async addUses(
    storeId: string,
    bundleId: string,
    componentIds: string[],
    version: number,
    at: string,
  ): Promise<void> {
    await batchWriteItems(
      'products',
      componentIds.map((componentId) => ({
        PutRequest: {
          Item: {
            ...productKeys.usedBy(storeId, componentId, bundleId),
            bundle_id: bundleId,
            version,
            created_at: at,
          },
        },
      })),
    );
  },

  /** Removes a stale record, on condition that it is still the one read (false: it was written again). */
  async removeUse(storeId: string, componentId: string, use: ProductUse): Promise<boolean> {
    try {
      await getDocumentClient().send(
        new DeleteCommand({
          TableName: tableName('products'),
          Key: productKeys.usedBy(storeId, componentId, use.bundle_id),
          ConditionExpression: 'version = :version AND created_at = :at',
          ExpressionAttributeValues: { ':version': use.version, ':at': use.created_at },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },

  /** Forgets that the deleted bundle `bundleId` named each of `componentIds`. */
  async removeUses(storeId: string, bundleId: string, componentIds: string[]): Promise<void> {
    await batchWriteItems(
      'products',
      componentIds.map((componentId) => ({
        DeleteRequest: { Key: productKeys.usedBy(storeId, componentId, bundleId) },
      })),
    );
  },

  /** The bundles recorded as naming the product, with when each record was written. */
  async usesOf(storeId: string, componentId: string): Promise<ProductUse[]> {
    const items = await queryAll({
      TableName: tableName('products'),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': `STORE#${storeId}`,
        ':prefix': `${USED_BY_PREFIX}${componentId}#`,
      },
      ConsistentRead: true,
    });
    return items.map((item) => ({
      bundle_id: item.bundle_id as string,
      version: item.version as number,
      created_at: item.created_at as string,
    }));
  },
};
