import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { CatalogRule } from '../catalog/rules';
import type { FileResource, ReleaseLayout, StoredProduct } from '../catalog/types';
import { transactAsCaller, type WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { deleteDeltaFile } from './delta-objects';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from './dynamodb';
import { backoff, batchGetItems, settleWorkers } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';
import type { CurrencySettings } from './store-repository';
import { storeRepository } from './store-repository';
import { cancellationCodes } from './transactions';

/**
 * Products-table layout. Only `pk`/`sk`, no indexes:
 *
 * - `STORE#<store>` / `CATALOGS`: the store's catalog registry: every catalog with its rules and its current
 *   release (id and layout), plus a version for optimistic locking. Switching a release rewrites this one
 *   item, so readers see the old release or the new one, never a mix.
 * - `STORE#<store>` / `RELEASE#<catalog>#<release>`: one marker per release (writing, complete, superseded),
 *   so abandoned and old releases can be found and deleted.
 * - `REL#<release>#<shard>` / `P#<product>`: a product, prepared for rendering (JSON in `d`). Products hash
 *   to `shards` partitions so a publish spreads its writes.
 * - `REL#<release>#<shard>` / `F#<file>`: a file of the release's `files[]`, rendered (JSON in `d`); products
 *   name files by id, and the child list's `include` reads them.
 * - `REL#<release>#<shard of parent>` / `C#<parent>#<n>`: chunk n of a parent's index of live children in
 *   publish order: ids and filterable attributes only, CHILD_CHUNK_SIZE per item, deflated (`z`).
 *   Offset k lives in chunk floor(k / chunk_size), so skipping to offset 9,975 reads one small item.
 * - `REL#<release>#<shard of parent>` / `X#<parent>#<attribute>#<bucket>`: one bucket of a parent's filter
 *   index (`lib/catalog/filter-index.ts`): the child-index positions of each value hashing to it, deflated (`z`).
 * - `REL#<release>#<shard>` / `N#<node>`: a node of the release's hierarchies, rendered, with the lengths
 *   of its id lists (JSON in `d`); `N#*` holds the release-wide lists' lengths (lib/catalog/hierarchy-items.ts).
 * - `REL#<release>#<shard of owner>` / `T#<owner>#<kind>#<n>`: chunk n of a node's list of children,
 *   descendants or products, or of a hierarchy's products (`hierarchy_products`: those of all its
 *   nodes) (ids, NODE_LIST_CHUNK per item, deflated in `z`).
 */
export const catalogKeys = {
  registry: (storeId: string) => ({ pk: `STORE#${storeId}`, sk: 'CATALOGS' }),
  releaseMarker: (storeId: string, catalogId: string, releaseId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `RELEASE#${catalogId}#${releaseId}`,
  }),
  releaseMarkerPrefix: (catalogId: string) => `RELEASE#${catalogId}#`,
  shardPartition: (releaseId: string, shard: number) => `REL#${releaseId}#${shard}`,
  product: (layout: Pick<ReleaseLayout, 'id' | 'shards'>, productId: string) => ({
    pk: `REL#${layout.id}#${shardOf(productId, layout.shards)}`,
    sk: `P#${productId}`,
  }),
  file: (layout: Pick<ReleaseLayout, 'id' | 'shards'>, fileId: string) => ({
    pk: `REL#${layout.id}#${shardOf(fileId, layout.shards)}`,
    sk: `F#${fileId}`,
  }),
  childChunk: (layout: Pick<ReleaseLayout, 'id' | 'shards'>, parentId: string, chunk: number) => ({
    pk: `REL#${layout.id}#${shardOf(parentId, layout.shards)}`,
    sk: `C#${parentId}#${String(chunk).padStart(6, '0')}`,
  }),
  filterPostings: (
    layout: Pick<ReleaseLayout, 'id' | 'shards'>,
    parentId: string,
    attribute: string,
    bucket: number,
  ) => ({
    pk: `REL#${layout.id}#${shardOf(parentId, layout.shards)}`,
    sk: `X#${parentId}#${attribute}#${String(bucket).padStart(6, '0')}`,
  }),
  node: (layout: Pick<ReleaseLayout, 'id' | 'shards'>, nodeId: string) => ({
    pk: `REL#${layout.id}#${shardOf(nodeId, layout.shards)}`,
    sk: `N#${nodeId}`,
  }),
  nodeList: (layout: Pick<ReleaseLayout, 'id' | 'shards'>, list: NodeListRef) => ({
    pk: `REL#${layout.id}#${shardOf(list.owner, layout.shards)}`,
    sk: `T#${list.owner}#${list.kind}#${String(list.chunk).padStart(6, '0')}`,
  }),
};

/** FNV-1a: a stable, cheap hash that spreads ids over a release's partitions. */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** A catalog as the registry holds it: rules, and the current release readers use. */
export interface RegisteredCatalog {
  id: string;
  name: string;
  /** First publish: "the oldest published catalog" wins when a store has no rules. */
  created_at: string;
  release: ReleaseLayout;
  rules: CatalogRule[];
}

export interface CatalogRegistry {
  version: number;
  catalogs: Record<string, RegisteredCatalog>;
  /**
   * The catalog rules API's rules (`/pcm/catalogs/rules`), oldest first, whether or not their catalog is
   * published: held here so that shoppers' selection reads them with the releases in one item, and a rule
   * write is one conditional write of this item (its version bumped).
   */
  rules?: CatalogRule[];
}

/**
 * `writing` while its items are written; `complete` once the switch made it current; `abandoned` when its
 * publish failed before the switch (no switch can happen any more, so it can be deleted at once); `failed`
 * once a failed publish of the API deleted its items: only the marker is left, to say why it failed.
 */
export type ReleaseStatus = 'writing' | 'complete' | 'abandoned' | 'failed';

export interface ReleaseMarker {
  store_id: string;
  catalog_id: string;
  release_id: string;
  shards: number;
  status: ReleaseStatus;
  started_at: string;
  /** Refreshed while a publish writes; a `writing` release with an old heartbeat was abandoned. */
  heartbeat_at: string;
  activated_at?: string;
  /** When a newer release replaced this one (or the catalog API deleted it while it was current). */
  superseded_at?: string;
  /**
   * Set by the switch that made it current: what the registry points at, so that deleting a later current
   * release can make this one current again. Releases activated before it was recorded have none.
   */
  layout?: ReleaseLayout;
  /**
   * When the catalog API deleted it: from then on it is gone for the API, and its items wait for the
   * cleanup (`cleanupReleases`), which reclaims them once no reader can still hold the release.
   */
  deleted_at?: string;
  /**
   * The releases whose items it shares (lib/catalog/pipeline/share.ts), recorded before its first write:
   * from then on the cleanup keeps their items as long as this release may be read.
   */
  layers?: string[];
  /**
   * How many items the release holds, recorded by the publishing workflow's Merge before any of them is
   * written (the catalog API's releases; see `deleteRelease`).
   */
  total_items?: number;
}

/**
 * False when the release cannot hold an item, so its partitions (64 Queries) need not be searched: a
 * catalog-API release (one with a `state`) gets items only from the workflow's Write steps, which start
 * after Merge recorded its `total_items`; without it (the publish failed before) or at 0 it has none.
 * Releases of other publishers record no total and are searched.
 */
export function mayHoldItems(marker: ReleaseMarker): boolean {
  return !('state' in marker) || (marker.total_items ?? 0) > 0;
}

/** The condition that the registry is still at `version` (undefined: that there is none yet). */
function registryCondition(version: number | undefined) {
  return version === undefined
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } };
}

/** Read capacity consumed through this repository's reads since the last reset (benchmarks). */
export const catalogCapacity = {
  read: 0,
  reset(): void {
    this.read = 0;
  },
};

function meter(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
  if (consumed === undefined) return;
  for (const entry of Array.isArray(consumed) ? consumed : [consumed]) {
    catalogCapacity.read += entry.CapacityUnits ?? 0;
  }
}

const BATCH_WRITE_MAX = 25;
const MAX_BATCH_ATTEMPTS = 10;
/** Keys a release deletion reads per Query: 10 BatchWriteItem requests, sent together. */
const DELETE_PAGE = 250;
/** Partitions a release deletion empties at once (so up to 40 BatchWriteItem requests in flight). */
const DELETE_PARTITIONS = 4;

export interface DeleteReleaseOptions {
  /** Partitions emptied at once (DELETE_PARTITIONS). */
  concurrency?: number;
  /**
   * When to stop (epoch ms): no page is read after it, and a release not emptied by then keeps its marker
   * (a later deletion finishes it). A request has a deadline; the workflow's steps and the CLIs do not.
   */
  deadline?: number;
}

/** What a release deletion did: the items it deleted, and whether the release is gone (marker and all). */
export interface ReleaseDeletion {
  items: number;
  complete: boolean;
}

export type Key = { pk: string; sk: string };
export type Item = Record<string, unknown> & Key;

const keyOf = (key: Key) => `${key.pk}\u0000${key.sk}`;

/** The products table's BatchGetItem, metered (benchmarks count its read units). */
async function batchGet(keys: Key[], consistent: boolean): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  for (const item of await batchGetItems('products', keys, consistent, meter)) found.set(keyOf(item), item);
  return found;
}

/**
 * Reads keys with eventually consistent reads (half the cost) and re-reads the missing ones that `recheck`
 * selects strongly: a release is complete before the registry points at it, so a miss is either truly
 * absent or a replica that has not caught up yet.
 */
async function readReleaseItems(keys: Key[], recheck: (key: Key) => boolean): Promise<Map<string, Item>> {
  const found = await batchGet(keys, false);
  const missing = keys.filter((key) => !found.has(keyOf(key)) && recheck(key));
  if (missing.length > 0) for (const [k, item] of await batchGet(missing, true)) found.set(k, item);
  return found;
}

/** The same key in another release's partitions (`REL#<release>#<shard>`). */
function inRelease(key: Key, from: string, to: string): Key {
  return { pk: `REL#${to}#${key.pk.slice(from.length + 5)}`, sk: key.sk };
}

/**
 * Reads keys of a release (its own partition keys) through its layers (ReleaseLayout.layers): each key in
 * every layer at once, one round trip as for a release that holds all its items, the first layer holding
 * the key giving the item, and a tombstone there (`x`) meaning no item. The layers above the bottom one are
 * read strongly consistent: a key missing there because a replica lags would show the bottom's older item,
 * and so mix two releases on one page. The bottom is read as a whole release is (eventually consistent,
 * then the keys found nowhere that `recheck` selects, strongly). Answers by the key as asked.
 */
export async function readReleaseKeys(
  layout: Pick<ReleaseLayout, 'id' | 'layers'>,
  keys: Key[],
  recheck: (key: Key) => boolean,
): Promise<Map<string, Item>> {
  const layers = [layout.id, ...(layout.layers ?? [])];
  if (layers.length === 1) return readReleaseItems(keys, recheck);
  const bottom = layers[layers.length - 1] as string;
  const upper = layers.slice(0, -1);
  const [above, below] = await Promise.all([
    batchGet(
      keys.flatMap((key) => upper.map((layer) => inRelease(key, layout.id, layer))),
      true,
    ),
    batchGet(
      keys.map((key) => inRelease(key, layout.id, bottom)),
      false,
    ),
  ]);
  const found = new Map<string, Item>();
  const missing: Key[] = [];
  for (const key of keys) {
    let item: Item | undefined;
    for (const layer of upper) {
      item = above.get(keyOf(inRelease(key, layout.id, layer)));
      if (item) break;
    }
    item ??= below.get(keyOf(inRelease(key, layout.id, bottom)));
    if (item === undefined) {
      if (recheck(key)) missing.push(key);
    } else if (item.x === undefined) found.set(keyOf(key), item);
  }
  if (missing.length > 0) {
    const again = await batchGet(
      missing.map((key) => inRelease(key, layout.id, bottom)),
      true,
    );
    for (const key of missing) {
      const item = again.get(keyOf(inRelease(key, layout.id, bottom)));
      if (item && item.x === undefined) found.set(keyOf(key), item);
    }
  }
  return found;
}

export interface ReleaseReadRequest {
  products: string[];
  /** File ids (absent ones are re-read strongly, like products). */
  files?: string[];
  chunks: { parentId: string; chunk: number }[];
  /**
   * The chunks may lie past the end of the index (fetched ahead, before the count is known): a missing one
   * is then not re-read strongly. Missing products always are.
   */
  speculativeChunks?: boolean;
  /** Buckets of a parent's filter index (a missing one is re-read strongly, then means "no value here"). */
  postings?: { parentId: string; attribute: string; bucket: number }[];
}

export interface ReleaseReadResult {
  products: Map<string, { stored: StoredProduct; bytes: number }>;
  /** Found files: the rendered file resource as JSON text. */
  files: Map<string, string>;
  chunks: Map<string, Uint8Array>;
  /** Found filter-index buckets by `postingsId`. */
  postings: Map<string, Uint8Array>;
}

/** One chunk of a node's id list (see lib/catalog/hierarchy-items.ts). */
export interface NodeListRef {
  owner: string;
  kind: string;
  chunk: number;
}

/** Cache/lookup key of a node list chunk within one release. */
export const nodeListId = (list: NodeListRef) => `${list.owner}#${list.kind}#${list.chunk}`;

/** Cache/lookup key of a chunk within one release. */
export const chunkId = (parentId: string, chunk: number) => `${parentId}#${chunk}`;
/** Lookup key of a filter-index bucket within one release. */
export const postingsId = (parentId: string, attribute: string, bucket: number) =>
  `${parentId}#${attribute}#${bucket}`;

/** Catalog registry, release markers, release items: the only code that knows the products-table keys. */
export const catalogRepository = {
  /** The store's catalog registry (strongly consistent: a publish is visible as soon as it returns). */
  async getRegistry(storeId: string): Promise<CatalogRegistry | undefined> {
    const result = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('products'),
        Key: catalogKeys.registry(storeId),
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    meter(result.ConsumedCapacity);
    if (!result.Item) return undefined;
    return {
      version: result.Item.version as number,
      catalogs: result.Item.catalogs as CatalogRegistry['catalogs'],
      ...(result.Item.rules === undefined ? {} : { rules: result.Item.rules as CatalogRule[] }),
    };
  },

  /**
   * Writes the registry `registry` if it is still at `expectedVersion` (undefined: if there is none yet),
   * with the transaction items `checks` (conditions on other items) and the caller's checks. Undefined when
   * it applied, else the cancellation codes: index 0 is the registry's condition, 1.. those of `checks`.
   */
  async replaceRegistry(
    storeId: string,
    expectedVersion: number | undefined,
    registry: CatalogRegistry,
    checks: NonNullable<TransactWriteCommand['input']['TransactItems']>,
    caller: WriteCaller | undefined,
  ): Promise<string[] | undefined> {
    return transactAsCaller(
      [
        {
          Put: {
            TableName: tableName('products'),
            Item: { ...catalogKeys.registry(storeId), ...registry },
            ...registryCondition(expectedVersion),
          },
        },
        ...checks,
      ],
      caller,
    );
  },

  /** A transaction item that holds only while the registry is still at `version` (undefined: absent). */
  registryCheck(storeId: string, version: number | undefined) {
    return {
      ConditionCheck: {
        TableName: tableName('products'),
        Key: catalogKeys.registry(storeId),
        ...registryCondition(version),
      },
    };
  },

  /** Products and child-index chunks of one release, in one round trip (plus retries), whatever is found. */
  async readRelease(layout: ReleaseLayout, request: ReleaseReadRequest): Promise<ReleaseReadResult> {
    const productKeys = request.products.map((id) => catalogKeys.product(layout, id));
    const chunkKeys = request.chunks.map(({ parentId, chunk }) =>
      catalogKeys.childChunk(layout, parentId, chunk),
    );
    const fileIds = request.files ?? [];
    const fileKeys = fileIds.map((id) => catalogKeys.file(layout, id));
    const speculative = request.speculativeChunks === true;
    const postingRequests = request.postings ?? [];
    const postingKeys = postingRequests.map(({ parentId, attribute, bucket }) =>
      catalogKeys.filterPostings(layout, parentId, attribute, bucket),
    );
    const found = await readReleaseKeys(
      layout,
      [...productKeys, ...fileKeys, ...chunkKeys, ...postingKeys],
      (key) => !speculative || !key.sk.startsWith('C#'),
    );
    const products: ReleaseReadResult['products'] = new Map();
    request.products.forEach((id, index) => {
      const item = found.get(keyOf(productKeys[index] as Key));
      if (item)
        products.set(id, {
          stored: JSON.parse(item.d as string) as StoredProduct,
          bytes: (item.d as string).length,
        });
    });
    const files: ReleaseReadResult['files'] = new Map();
    fileIds.forEach((id, index) => {
      const item = found.get(keyOf(fileKeys[index] as Key));
      if (item) files.set(id, item.d as string);
    });
    const chunks: ReleaseReadResult['chunks'] = new Map();
    request.chunks.forEach(({ parentId, chunk }, index) => {
      const item = found.get(keyOf(chunkKeys[index] as Key));
      if (item) chunks.set(chunkId(parentId, chunk), item.z as Uint8Array);
    });
    const postings: ReleaseReadResult['postings'] = new Map();
    postingRequests.forEach(({ parentId, attribute, bucket }, index) => {
      const item = found.get(keyOf(postingKeys[index] as Key));
      if (item) postings.set(postingsId(parentId, attribute, bucket), item.z as Uint8Array);
    });
    return { products, files, chunks, postings };
  },

  /**
   * Nodes and node list chunks of one release in one round trip (plus retries). Missing nodes are re-read
   * strongly; missing list chunks too, unless `speculativeLists` (fetched before the list's length is known).
   */
  async readNodes(
    layout: ReleaseLayout,
    request: { nodes: string[]; lists: NodeListRef[]; speculativeLists?: boolean },
  ): Promise<{ nodes: Map<string, { json: string }>; lists: Map<string, Uint8Array> }> {
    const nodeKeys = request.nodes.map((id) => catalogKeys.node(layout, id));
    const listKeys = request.lists.map((list) => catalogKeys.nodeList(layout, list));
    const speculative = request.speculativeLists === true;
    const found = await readReleaseKeys(
      layout,
      [...nodeKeys, ...listKeys],
      (key) => !speculative || !key.sk.startsWith('T#'),
    );
    const nodes = new Map<string, { json: string }>();
    request.nodes.forEach((id, index) => {
      const item = found.get(keyOf(nodeKeys[index] as Key));
      if (item) nodes.set(id, { json: item.d as string });
    });
    const lists = new Map<string, Uint8Array>();
    request.lists.forEach((list, index) => {
      const item = found.get(keyOf(listKeys[index] as Key));
      if (item) lists.set(nodeListId(list), item.z as Uint8Array);
    });
    return { nodes, lists };
  },

  /** The item that stores a node of a release (`json`: the stored node as JSON text). */
  nodeItem(layout: ReleaseLayout, nodeId: string, json: string): Item {
    return { ...catalogKeys.node(layout, nodeId), d: json };
  },

  /** The item that stores a chunk of a node's id list. */
  nodeListItem(layout: ReleaseLayout, list: NodeListRef, bytes: Uint8Array): Item {
    return { ...catalogKeys.nodeList(layout, list), z: bytes };
  },

  /** The item that stores a product of a release. */
  productItem(layout: ReleaseLayout, stored: StoredProduct): Item {
    return { ...catalogKeys.product(layout, stored.resource.id), d: JSON.stringify(stored) };
  },

  /** The item that stores a file of a release (rendered, as products are). */
  fileItem(layout: ReleaseLayout, file: FileResource): Item {
    return { ...catalogKeys.file(layout, file.id), d: JSON.stringify(file) };
  },

  /** The item that stores chunk `chunk` of a parent's child index. */
  chunkItem(layout: ReleaseLayout, parentId: string, chunk: number, bytes: Uint8Array): Item {
    return { ...catalogKeys.childChunk(layout, parentId, chunk), z: bytes };
  },

  /** The item that stores one bucket of a parent's filter index. */
  postingsItem(
    layout: ReleaseLayout,
    parentId: string,
    attribute: string,
    bucket: number,
    bytes: Uint8Array,
  ): Item {
    return { ...catalogKeys.filterPostings(layout, parentId, attribute, bucket), z: bytes };
  },

  /** Records that a release is being written (before its first item). */
  async startRelease(marker: ReleaseMarker): Promise<void> {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName('products'),
        Item: {
          ...catalogKeys.releaseMarker(marker.store_id, marker.catalog_id, marker.release_id),
          ...marker,
        },
        // Or our own marker already: a retry after DynamoDB stored it but the response was lost.
        ConditionExpression: 'attribute_not_exists(pk) OR (#s = :writing AND started_at = :started)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':writing': 'writing', ':started': marker.started_at },
      }),
    );
  },

  /**
   * After a failed publish: marks its release `abandoned` unless the switch made it `complete` (a switch
   * whose response was lost still happened). Conditional on the marker, which the switch also checks, so
   * exactly one of them wins. Returns the release's status afterwards (undefined: no marker).
   */
  async abandonRelease(
    marker: Pick<ReleaseMarker, 'store_id' | 'catalog_id' | 'release_id'>,
  ): Promise<ReleaseStatus | undefined> {
    const key = catalogKeys.releaseMarker(marker.store_id, marker.catalog_id, marker.release_id);
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('products'),
          Key: key,
          UpdateExpression: 'SET #s = :abandoned',
          // `abandoned` already: a retry of this update after a lost response.
          ConditionExpression: '#s IN (:writing, :abandoned)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':writing': 'writing', ':abandoned': 'abandoned' },
        }),
      );
      return 'abandoned';
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const found = await getDocumentClient().send(
        new GetCommand({ TableName: tableName('products'), Key: key, ConsistentRead: true }),
      );
      return found.Item?.status as ReleaseStatus | undefined;
    }
  },

  /** Refreshes a writing release's heartbeat so cleanup leaves it alone. */
  async heartbeat(storeId: string, catalogId: string, releaseId: string, at: string): Promise<void> {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName('products'),
        Key: catalogKeys.releaseMarker(storeId, catalogId, releaseId),
        UpdateExpression: 'SET heartbeat_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  },

  /**
   * Writes items with BatchWriteItem, `concurrency` batches of 25 in flight; unprocessed items are retried
   * with exponential backoff. `onProgress` gets the number of items written so far. On a failure no new
   * batch starts, and it rejects only once every batch in flight has settled, so nothing is written after
   * it returns (a caller deleting what was written would otherwise miss late writes).
   */
  async writeItems(
    items: Item[],
    options: { concurrency?: number; onProgress?: (written: number) => void } = {},
  ): Promise<void> {
    const table = tableName('products');
    const batches: Item[][] = [];
    for (let start = 0; start < items.length; start += BATCH_WRITE_MAX) {
      batches.push(items.slice(start, start + BATCH_WRITE_MAX));
    }
    let next = 0;
    let written = 0;
    const worker = async (stop: { failed: boolean }) => {
      for (;;) {
        if (stop.failed) return;
        const batch = batches[next];
        next += 1;
        if (batch === undefined) return;
        let pending = batch.map((item) => ({ PutRequest: { Item: item } }));
        for (let attempt = 0; pending.length > 0; attempt += 1) {
          if (attempt >= MAX_BATCH_ATTEMPTS) {
            throw new Error(
              `DynamoDB kept ${pending.length} items unprocessed after ${MAX_BATCH_ATTEMPTS} attempts`,
            );
          }
          if (attempt > 0) await backoff(attempt);
          // No ReturnConsumedCapacity here: write units are not metered, and asking costs time per batch.
          const result = await getDocumentClient().send(
            new BatchWriteCommand({ RequestItems: { [table]: pending } }),
          );
          const unprocessed = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
          written += pending.length - unprocessed.length;
          options.onProgress?.(written);
          pending = unprocessed;
        }
      }
    };
    await settleWorkers(Math.min(options.concurrency ?? 16, batches.length), worker);
  },

  /**
   * Makes a written release current in one transaction: the registry (only if still at `expectedVersion`),
   * the release's marker (only if still `writing`), the replaced release's marker, and, when the document
   * had currencies, the store's currencies. Returns false when the registry changed meanwhile (retry).
   */
  async activateRelease(input: {
    storeId: string;
    expectedVersion: number | undefined;
    registry: CatalogRegistry;
    catalogId: string;
    releaseId: string;
    replacedReleaseId: string | undefined;
    currencies: Record<string, CurrencySettings> | undefined;
    at: string;
  }): Promise<boolean> {
    const table = tableName('products');
    const items: NonNullable<TransactWriteCommand['input']['TransactItems']> = [
      {
        Put: {
          TableName: table,
          Item: { ...catalogKeys.registry(input.storeId), ...input.registry },
          ...registryCondition(input.expectedVersion),
        },
      },
      {
        Update: {
          TableName: table,
          Key: catalogKeys.releaseMarker(input.storeId, input.catalogId, input.releaseId),
          UpdateExpression: 'SET #s = :complete, activated_at = :at, heartbeat_at = :at, layout = :layout',
          ConditionExpression: '#s = :writing',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':complete': 'complete',
            ':writing': 'writing',
            ':at': input.at,
            ':layout': input.registry.catalogs[input.catalogId]?.release,
          },
        },
      },
    ];
    if (input.replacedReleaseId !== undefined) {
      items.push({
        Update: {
          TableName: table,
          Key: catalogKeys.releaseMarker(input.storeId, input.catalogId, input.replacedReleaseId),
          UpdateExpression: 'SET superseded_at = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': input.at },
        },
      });
    }
    if (input.currencies !== undefined)
      items.push(storeRepository.currenciesUpdate(input.storeId, input.currencies));
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      if (codes[1] === 'ConditionalCheckFailed') {
        throw new Error(
          `release ${input.releaseId} was removed while it was being written (abandoned by cleanup)`,
        );
      }
      if (codes[0] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict')) return false;
      if (codes[2] === 'ConditionalCheckFailed' && input.replacedReleaseId !== undefined) {
        // The replaced release's marker is already gone: activate without touching it.
        return catalogRepository.activateRelease({ ...input, replacedReleaseId: undefined });
      }
      throw error;
    }
  },

  /**
   * Deletes the catalog's current release `releaseId` for the API in one transaction: the registry (if still
   * at `expectedVersion`) points the catalog at `restore` (a complete, undeleted release, checked in the
   * same transaction), or drops the catalog when `restore` is undefined (unpublished); the deleted release
   * is marked deleted and superseded now, so its items outlive readers that still hold it
   * (`cleanupReleases`). Undefined when it applied, else the cancellation codes: 0 the registry, 1 the
   * deleted release, 2 the restored one.
   */
  async replaceCurrentRelease(input: {
    storeId: string;
    catalogId: string;
    releaseId: string;
    expectedVersion: number;
    registry: CatalogRegistry;
    restore: string | undefined;
    at: string;
    caller: WriteCaller | undefined;
  }): Promise<string[] | undefined> {
    const table = tableName('products');
    const items: NonNullable<TransactWriteCommand['input']['TransactItems']> = [
      {
        Update: {
          TableName: table,
          Key: catalogKeys.releaseMarker(input.storeId, input.catalogId, input.releaseId),
          UpdateExpression: 'SET deleted_at = :at, superseded_at = :at',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
          ExpressionAttributeValues: { ':at': input.at },
        },
      },
    ];
    if (input.restore !== undefined) {
      items.push({
        ConditionCheck: {
          TableName: table,
          Key: catalogKeys.releaseMarker(input.storeId, input.catalogId, input.restore),
          ConditionExpression: '#s = :complete AND attribute_not_exists(deleted_at)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':complete': 'complete' },
        },
      });
    }
    return catalogRepository.replaceRegistry(
      input.storeId,
      input.expectedVersion,
      input.registry,
      items,
      input.caller,
    );
  },

  /** The release markers of a catalog (all of the store's catalogs when `catalogId` is undefined). */
  async listReleases(storeId: string, catalogId?: string): Promise<ReleaseMarker[]> {
    const markers: ReleaseMarker[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await getDocumentClient().send(
        new QueryCommand({
          TableName: tableName('products'),
          KeyConditionExpression: SK_PREFIX_CONDITION,
          ExpressionAttributeValues: {
            ':pk': catalogKeys.registry(storeId).pk,
            ...skPrefix(catalogId === undefined ? 'RELEASE#' : catalogKeys.releaseMarkerPrefix(catalogId)),
          },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const { pk: _pk, sk: _sk, ...marker } = item;
        markers.push(marker as ReleaseMarker);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return markers;
  },

  /**
   * Marks a release deleted (`deleted_at`), unless it is being written or already deleted, or the registry
   * is no longer at `registryVersion`: false then, or when it is gone. Its items stay for `cleanupReleases`.
   */
  async markReleaseDeleted(
    marker: Pick<ReleaseMarker, 'store_id' | 'catalog_id' | 'release_id'>,
    at: string,
    registryVersion: number | undefined,
    caller: WriteCaller | undefined,
  ): Promise<boolean> {
    // With the registry unchanged since the caller saw the release was not current: a rollback cannot make
    // it current meanwhile.
    const codes = await transactAsCaller(
      [
        {
          Update: {
            TableName: tableName('products'),
            Key: catalogKeys.releaseMarker(marker.store_id, marker.catalog_id, marker.release_id),
            UpdateExpression: 'SET deleted_at = :at',
            ConditionExpression:
              'attribute_exists(pk) AND #s <> :writing AND attribute_not_exists(deleted_at)',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':at': at, ':writing': 'writing' },
          },
        },
        catalogRepository.registryCheck(marker.store_id, registryVersion),
      ],
      caller,
    );
    return codes === undefined;
  },

  /**
   * Deletes every item of a release, then its marker (unless the deadline came first: the marker stays, so
   * the release is found and finished by a later cleanup).
   */
  async deleteRelease(marker: ReleaseMarker, options: DeleteReleaseOptions = {}): Promise<ReleaseDeletion> {
    const deleted = mayHoldItems(marker)
      ? await catalogRepository.deleteReleaseItems(marker, options)
      : { items: 0, complete: true };
    if (!deleted.complete) return deleted;
    // Its delta file, before the marker that names it goes (one DELETE: lib/store/object-urls.ts).
    await deleteDeltaFile(marker.store_id, marker.catalog_id, marker.release_id);
    await getDocumentClient().send(
      new DeleteCommand({
        TableName: tableName('products'),
        Key: catalogKeys.releaseMarker(marker.store_id, marker.catalog_id, marker.release_id),
      }),
    );
    return deleted;
  },

  /**
   * Deletes every item of a release but its marker, without reading them: each of its partitions
   * (`REL#<release>#<shard>`) is queried for keys only, DELETE_PAGE at a time, `concurrency` partitions at
   * once. The keys are pooled across partitions and deleted in full BatchWriteItem requests of 25, sent
   * together (unprocessed deletes retried with backoff); what is left below 25 goes in one request at the
   * end, unless the deadline has passed. A small release (a few items a partition, as a delta's layer or a
   * small catalog has) so takes one request for about every 25 items, not one a partition. Returns the
   * number of items deleted, and whether none is left (false when the deadline stopped it).
   */
  async deleteReleaseItems(
    marker: Pick<ReleaseMarker, 'release_id' | 'shards'>,
    options: DeleteReleaseOptions = {},
  ): Promise<ReleaseDeletion> {
    const table = tableName('products');
    let deleted = 0;
    let next = 0;
    let complete = true;
    const late = () => {
      if (options.deadline === undefined || Date.now() < options.deadline) return false;
      complete = false;
      return true;
    };
    const deleteBatch = async (keys: Key[]) => {
      let pending = keys.map((key) => ({ DeleteRequest: { Key: key } }));
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error('DynamoDB kept delete requests unprocessed');
        if (attempt > 0) await backoff(attempt);
        const result = await getDocumentClient().send(
          new BatchWriteCommand({ RequestItems: { [table]: pending } }),
        );
        pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
      deleted += keys.length;
    };
    // Keys queried but not yet sent: under BATCH_WRITE_MAX once each page's full batches have gone.
    const pool: Key[] = [];
    const worker = async (stop: { failed: boolean }) => {
      for (let shard = next++; shard < marker.shards && !stop.failed; shard = next++) {
        let startKey: Record<string, unknown> | undefined;
        do {
          if (late()) return;
          const page = await getDocumentClient().send(
            new QueryCommand({
              TableName: table,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': catalogKeys.shardPartition(marker.release_id, shard) },
              ProjectionExpression: 'pk, sk',
              Limit: DELETE_PAGE,
              ExclusiveStartKey: startKey,
            }),
          );
          pool.push(...((page.Items ?? []) as Key[]));
          const batches: Key[][] = [];
          while (pool.length >= BATCH_WRITE_MAX) batches.push(pool.splice(0, BATCH_WRITE_MAX));
          await Promise.all(batches.map(deleteBatch));
          startKey = page.LastEvaluatedKey;
        } while (startKey && !stop.failed);
      }
    };
    await settleWorkers(Math.min(options.concurrency ?? DELETE_PARTITIONS, marker.shards), worker);
    // Past the deadline the rest stays for the next cleanup, which queries it again.
    if (pool.length > 0 && !late()) await deleteBatch(pool.splice(0));
    return { items: deleted, complete };
  },
};
