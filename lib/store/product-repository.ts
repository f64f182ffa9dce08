import { createHash } from 'node:crypto';
import { transactAsCaller, type WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { DeleteCommand, GetCommand, type TransactWriteCommand, UpdateCommand } from './dynamodb';
import { FileNotFoundError, fileRepository } from './file-repository';
import {
  backoff,
  batchGetItems,
  batchWriteItems,
  countItems,
  queryAll,
  queryPage,
  withoutKeys,
} from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';
import { variationKeys } from './variation-repository';

/**
 * The products merchants author through the platform's product API (`/pcm/products`, docs/products.md), in
 * the products table beside the catalog registry and the catalogs:
 *
 * - `STORE#<store>` / `PRODUCT#<id>`: a product: its `attributes` as the API took them (JSON text), `created_at`,
 *   `updated_at`, a `version` every write moves (updates are conditioned on the version they read, so two
 *   concurrent partial updates never lose each other's attributes: the later one reads again and re-applies
 *   its own), and `deleting` while a delete checks that no bundle uses it (its mark: the time it was set and
 *   a random id, so one delete at a time holds it and only the holder's transaction deletes the product);
 *   `main_image` (a file id) and
 *   `files` (`[{id, created_at, tags?}]`), the files it names. Every write that changes which files it names
 *   moves those files' `link_count` in the same transaction (file-repository.ts), as does its delete, so a
 *   file is never deleted while a product names it.
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
 * - `STORE#<store>` / `PCHILD#<parent>#<option ids joined by +>`: a child a build made of the parent, keyed
 *   by its combination of options in link order (`child_id`, `options`, `generation`, the `sku` and
 *   `external_ref` it claims): the parent's children list and variation matrix read them with one Query, and
 *   a rebuild finds the child of a combination there (lib/store/child-repository.ts writes them).
 *
 * A parent's linked variations are a list on its item (`variations`, in link order). Each variation item
 * counts the products linking it (`links`): a link or unlink moves the count in the same transaction as the
 * product, and a variation is deleted only on condition that its count is zero, so a variation in use can
 * never be deleted, whatever runs concurrently.
 *
 * A claim is written (`attribute_not_exists`) or freed in the same transaction as the product that takes or
 * gives it up, so two products can never hold one sku, whatever runs concurrently, and a deleted product's
 * sku is free at once.
 *
 * Partitions and throughput: a store's products share one partition key (`STORE#<store>`), so the list
 * (`Query sk` under the prefix `PRODUCT#` (key-prefix.ts), in id order: ids are UUID v7, so creation order) and its COUNT
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

/** A file of a product's `files` relationship: its id, when the product started naming it, its tags. */
export interface ProductFile {
  id: string;
  created_at: string;
  tags?: string[];
}

export interface ProductRecord {
  id: string;
  attributes: ProductAttributes;
  created_at: string;
  updated_at: string;
  version: number;
  /** The file of its `main_image` relationship. */
  main_image?: string;
  /** The files of its `files` relationship, in order. */
  files?: ProductFile[];
  /** When a delete started checking that no bundle uses the product (a bundle cannot take it then). */
  deleting?: string;
  /** A parent's linked variations, in link order (the order of its variation matrix). */
  variations?: VariationLink[];
  /** Moves whenever the set or order of linked variations changes: a build then replaces every child. */
  variations_generation?: number;
  /** When the linked variations last changed (the time part of the ids of that generation's children). */
  variations_changed_at?: string;
  /** A built child's parent, its option ids in link order and the generation it was built for. */
  parent_id?: string;
  child_options?: string[];
  child_generation?: number;
  /** A child's variations and options, as `meta.child_variations` shows them. */
  child_variations?: ChildVariation[];
  /** The price book price modifiers a child's `price` modifiers name. */
  price_modifiers?: string[];
  /** A child edited directly: builds leave it alone from then on. */
  detached?: boolean;
}

/** A variation linked to a product. */
export interface VariationLink {
  id: string;
  created_at: string;
}

/** One of a child's variations with the option it was built from. */
export interface ChildVariation {
  id: string;
  name: string;
  sort_order?: number;
  options: null;
  option: { id: string; name: string; description: string };
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
/** A variation to link does not exist (in the store). */
export class VariationMissingError extends Error {
  override name = 'VariationMissingError';
  constructor(readonly variationId: string) {
    super(`variation ${variationId} not found`);
  }
}
/** A transaction kept losing to concurrent ones on the same items. */
export class ProductWriteConflictError extends Error {
  override name = 'ProductWriteConflictError';
}

const PRODUCT_PREFIX = 'PRODUCT#';
const USED_BY_PREFIX = 'PUSEDBY#';
const CHILD_PREFIX = 'PCHILD#';
const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const productKeys = {
  product: (storeId: string, productId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${PRODUCT_PREFIX}${productId}`,
  }),
  sku: (storeId: string, sku: string) => productKeys.skuOfHash(storeId, hash(sku.toLowerCase())),
  skuOfHash: (storeId: string, skuHash: string) => ({ pk: `PSKU#${storeId}#${skuHash}`, sk: 'CLAIM' }),
  externalRef: (storeId: string, ref: string) => ({ pk: `PEXTREF#${storeId}#${hash(ref)}`, sk: 'CLAIM' }),
  usedBy: (storeId: string, componentId: string, bundleId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${USED_BY_PREFIX}${componentId}#${bundleId}`,
  }),
  child: (storeId: string, parentId: string, optionIds: readonly string[]) => ({
    pk: `STORE#${storeId}`,
    sk: `${CHILD_PREFIX}${parentId}#${optionIds.join('+')}`,
  }),
  childPrefix: (parentId: string) => `${CHILD_PREFIX}${parentId}#`,
};

/** Moves the count of products linking a variation, on condition that the variation exists. */
export function variationLinkCount(storeId: string, variationId: string, delta: 1 | -1) {
  return {
    Update: {
      TableName: tableName('products'),
      Key: variationKeys.variation(storeId, variationId),
      UpdateExpression: 'ADD links :delta',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

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
 * a failed claim throws its error unless the product itself (the first item) refused too, any other
 * cancellation is returned (undefined: written).
 */
async function transact(items: TransactItems, claims: Claim[], caller: WriteCaller | undefined) {
  for (let attempt = 1; ; attempt += 1) {
    const codes = await transactAsCaller(items, caller);
    if (codes === undefined) return undefined;
    // The product itself refused (gone, or changed since it was read): it is read again before any claim
    // is judged. A product deleted meanwhile answers 404 whoever holds the sku by then, and the claim may
    // be held by a concurrent update of this very product.
    if (codes[0] === 'ConditionalCheckFailed') return codes;
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

/** The Put of `after` in place of `before`, on condition that it is still the version read and not being deleted. */
function versionedPut(storeId: string, before: ProductRecord, after: ProductRecord) {
  return {
    Put: {
      TableName: tableName('products'),
      Item: toItem(storeId, after),
      ConditionExpression: 'version = :version AND attribute_not_exists(deleting)',
      ExpressionAttributeValues: { ':version': before.version },
    },
  };
}

/**
 * Why a write of the product (its first item, conditioned on the version read) was refused:
 * ProductNotFoundError when it is gone, ProductChangedError when it changed; any other refusal is unexpected.
 */
async function refusedWrite(
  storeId: string,
  productId: string,
  codes: string[],
  what: string,
): Promise<never> {
  if (codes[0] === 'ConditionalCheckFailed') {
    if (!(await productRepository.get(storeId, productId))) throw new ProductNotFoundError();
    throw new ProductChangedError();
  }
  throw new Error(`product ${productId} could not be ${what} (${codes.join(', ')})`);
}

const productsQuery = (storeId: string) => ({
  TableName: tableName('products'),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ...skPrefix(PRODUCT_PREFIX) },
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
/**
 * The items `create` puts for a product that links no variation: the product and its sku and external_ref
 * claims, without the conditions. For loading a store known to hold none of them in batches (the `delta`
 * bench's million products): nothing checks that the claims are free.
 */
export function newProductItems(storeId: string, product: ProductRecord): Record<string, unknown>[] {
  if ((product.variations ?? []).length > 0)
    throw new Error('a product linking variations is created one by one');
  const { items } = claimPuts(storeId, product.id, product.attributes, 0);
  return [toItem(storeId, product), ...items.map((item) => item.Put?.Item as Record<string, unknown>)];
}

/** A product as stored, without its keys and with its attributes parsed. */
export const toRecord = (item: Record<string, unknown>): ProductRecord => {
  const record = withoutKeys(item) as unknown as Omit<ProductRecord, 'attributes'> & { attributes: string };
  return { ...record, attributes: JSON.parse(record.attributes) as ProductAttributes };
};

/**
 * The most files a product's `files` relationship may list: a replacement that swaps all of them for as
 * many others moves 96 link counts, which with the product and the caller's two checks is 99 items of one
 * transaction (DynamoDB takes at most 100).
 */
export const MAX_PRODUCT_FILES = 48;

/** How many times the product names each file: once as its main image, once if its files list it. */
function fileLinks(product: ProductRecord | undefined): Map<string, number> {
  const links = new Map<string, number>();
  const add = (id: string) => links.set(id, (links.get(id) ?? 0) + 1);
  if (product?.main_image !== undefined) add(product.main_image);
  for (const file of product?.files ?? []) add(file.id);
  return links;
}

/** How the files' link counts move when `before` becomes `after` (files whose count does not move left out). */
function linkDeltas(
  before: ProductRecord | undefined,
  after: ProductRecord | undefined,
): Map<string, number> {
  const deltas = fileLinks(after);
  for (const [id, count] of fileLinks(before)) deltas.set(id, (deltas.get(id) ?? 0) - count);
  for (const [id, delta] of deltas) if (delta === 0) deltas.delete(id);
  return deltas;
}

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

  /** The product ids holding the skus of these claim hashes (`skuHash`, lib/store/catalog-changes.ts). */
  async idsOfSkuHashes(storeId: string, hashes: string[]): Promise<string[]> {
    const keys = hashes.map((skuHash) => productKeys.skuOfHash(storeId, skuHash));
    return (await batchGetItems('products', keys, true)).map((item) => item.product_id as string);
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

  /**
   * Creates a product with its claims and the counts of the variations it links: SkuTakenError /
   * ExternalRefTakenError when another holds a claim, VariationMissingError for a variation not there.
   */
  async create(storeId: string, product: ProductRecord, caller?: WriteCaller): Promise<void> {
    const { items, claims } = claimPuts(storeId, product.id, product.attributes, 1);
    const links = product.variations ?? [];
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
        ...links.map((link) => variationLinkCount(storeId, link.id, 1)),
      ],
      claims,
      caller,
    );
    if (codes === undefined) return;
    const missing = codes.slice(1 + items.length).indexOf('ConditionalCheckFailed');
    if (missing >= 0) throw new VariationMissingError((links[missing] as VariationLink).id);
    throw new Error(`product ${product.id} could not be created (${codes.join(', ')})`);
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
    const items: TransactItems = [versionedPut(storeId, before, after)];
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
    if (codes !== undefined) await refusedWrite(storeId, before.id, codes, 'updated');
  },

  /**
   * Replaces `before` (as read: its version) by `after`, which names other files (`main_image`, `files`),
   * moving the link counts of the files it starts or stops naming in the same transaction, each on
   * condition that the file exists. ProductChangedError when the product changed since it was read (or a
   * delete is checking it), ProductNotFoundError when it is gone, FileNotFoundError (naming the file) when
   * a file it starts naming does not exist. A product lists at most MAX_PRODUCT_FILES files besides its
   * main image, so the transaction stays within DynamoDB's 100 items.
   */
  async relink(
    storeId: string,
    before: ProductRecord,
    after: ProductRecord,
    caller?: WriteCaller,
  ): Promise<void> {
    const deltas = linkDeltas(before, after);
    const codes = await transact(
      [
        {
          Put: {
            TableName: tableName('products'),
            Item: toItem(storeId, after),
            ConditionExpression: 'version = :version AND attribute_not_exists(deleting)',
            ExpressionAttributeValues: { ':version': before.version },
          },
        },
        ...fileRepository.linkUpdates(storeId, deltas),
      ],
      [],
      caller,
    );
    if (codes === undefined) return;
    if (codes[0] === 'ConditionalCheckFailed') {
      if (!(await productRepository.get(storeId, before.id))) throw new ProductNotFoundError();
      throw new ProductChangedError();
    }
    const missing = [...deltas.keys()].find((_, index) => codes[index + 1] === 'ConditionalCheckFailed');
    if (missing !== undefined) throw new FileNotFoundError(missing);
    throw new Error(`product ${before.id} could not be updated (${codes.join(', ')})`);
  },

  /**
   * Deletes the product as read (its version), still marked with `mark` (markDeleting), frees its claims and
   * uncounts its links to files, in one transaction: ProductChangedError when it changed since or another
   * delete holds the mark. Only the mark's holder can delete the product, so a product found gone after a
   * refused attempt was deleted by this very call: its first attempt applied and its answer was lost.
   */
  async delete(storeId: string, product: ProductRecord, mark: string, caller?: WriteCaller): Promise<void> {
    const items: TransactItems = [
      {
        Delete: {
          TableName: tableName('products'),
          Key: productKeys.product(storeId, product.id),
          ConditionExpression: 'version = :version AND deleting = :mark',
          ExpressionAttributeValues: { ':version': product.version, ':mark': mark },
        },
      },
    ];
    const { sku, external_ref } = product.attributes;
    if (sku !== undefined) items.push(claimDelete(productKeys.sku(storeId, sku), product.id));
    if (external_ref !== undefined) {
      items.push(claimDelete(productKeys.externalRef(storeId, external_ref), product.id));
    }
    // The files it names are named once fewer (at most 49), and so are the variations linked to it.
    items.push(...fileRepository.linkUpdates(storeId, linkDeltas(product, undefined)));
    if (product.parent_id !== undefined && product.child_options !== undefined) {
      const key = productKeys.child(storeId, product.parent_id, product.child_options);
      items.push({ Delete: { TableName: tableName('products'), Key: key } });
    }
    for (const link of product.variations ?? []) items.push(variationLinkCount(storeId, link.id, -1));
    const codes = await transact(items, [], caller);
    if (codes === undefined) return;
    // Gone after a refused attempt: this call's own first attempt deleted it (only the mark's holder can).
    if (codes[0] === 'ConditionalCheckFailed' && !(await productRepository.get(storeId, product.id))) return;
    await refusedWrite(storeId, product.id, codes, 'deleted');
  },

  /**
   * Replaces `before` (as read) by `after`, whose linked variations differ: the variations `added` count one
   * more link and those `removed` one less, in the same transaction. ProductChangedError /
   * ProductNotFoundError as for `replace`; VariationMissingError naming a variation to add that does not exist.
   */
  async setVariationLinks(
    storeId: string,
    before: ProductRecord,
    after: ProductRecord,
    change: { added: string[]; removed: string[] },
    caller?: WriteCaller,
  ): Promise<void> {
    const items: TransactItems = [
      versionedPut(storeId, before, after),
      ...change.added.map((id) => variationLinkCount(storeId, id, 1)),
      ...change.removed.map((id) => variationLinkCount(storeId, id, -1)),
    ];
    const codes = await transact(items, [], caller);
    if (codes === undefined) return;
    const missing = codes.slice(1, 1 + change.added.length).indexOf('ConditionalCheckFailed');
    if (missing >= 0) throw new VariationMissingError(change.added[missing] as string);
    await refusedWrite(storeId, before.id, codes, 'updated');
  },

  /**
   * Marks the product as being deleted (`deleting` = `mark`, without moving its version), on condition that
   * it is still the version read and that no other delete holds a mark newer than `staleBefore` (a mark
   * begins with the time it was set): false when it changed, is gone, or another delete holds it. A bundle
   * write that reads the mark refuses to name the product; only the mark's holder can delete it.
   */
  async markDeleting(
    storeId: string,
    product: ProductRecord,
    mark: string,
    staleBefore: string,
  ): Promise<boolean> {
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('products'),
          Key: productKeys.product(storeId, product.id),
          UpdateExpression: 'SET deleting = :mark',
          ConditionExpression:
            'version = :version AND (attribute_not_exists(deleting) OR deleting = :mark OR deleting < :stale)',
          ExpressionAttributeValues: { ':mark': mark, ':version': product.version, ':stale': staleBefore },
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
      KeyConditionExpression: SK_PREFIX_CONDITION,
      ExpressionAttributeValues: {
        ':pk': `STORE#${storeId}`,
        ...skPrefix(`${USED_BY_PREFIX}${componentId}#`),
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
