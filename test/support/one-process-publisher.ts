import { resolveNodePaths } from '../../lib/catalog/breadcrumbs';
import { CHILD_CHUNK_SIZE, chunkEntries, encodeChunk } from '../../lib/catalog/child-index';
import {
  countProduct,
  type DeriveScope,
  deriveProduct,
  emptyCounts,
  type FamilyFacts,
  indexEntry,
  type PrepareContext,
  type ReleaseCounts,
  renderFile,
} from '../../lib/catalog/derive';
import { FILTER_INDEX_VERSION, filterIndexItems } from '../../lib/catalog/filter-index';
import { buildHierarchyItems } from '../../lib/catalog/hierarchy-items';
import { hierarchyReleaseItems } from '../../lib/catalog/nodes';
import {
  indexEntryOf,
  LOOKUP_ATTRIBUTES,
  type LookupEntry,
  lookupItem,
  RELEASE_SEGMENT,
  releasePostings,
  releaseSummaryItem,
} from '../../lib/catalog/product-lookups';
import {
  activate,
  checkLayout,
  cleanupReleases,
  RELEASE_SHARDS,
  StoreNotFoundError,
  selectionWarnings,
} from '../../lib/catalog/publisher';
import { nodePageWeights, pageBudgetIssues, productBudgetIssues } from '../../lib/catalog/size-budget';
import type {
  ChildIndexEntry,
  FileResource,
  ProductInput,
  ReleaseDocument,
  ReleaseLayout,
  StoredProduct,
} from '../../lib/catalog/types';
import { ReleaseValidationError, type ValidationIssue } from '../../lib/catalog/validate-release';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { uuidv7 } from '../../lib/ids';
import { catalogLookupRepository } from '../../lib/store/catalog-lookup-repository';
import {
  type CatalogRegistry,
  catalogRepository,
  type ReleaseMarker,
} from '../../lib/store/catalog-repository';
import { type CurrencySettings, DEFAULT_CURRENCIES, storeRepository } from '../../lib/store/store-repository';

/**
 * The one-process publisher, kept for tests, fuzzing, histories and benchmarks only: it validates a whole
 * document in memory, derives every item of the release with the whole-document derivation
 * (`prepareRelease`), writes them and switches, in one process. It checks the streamed derivation the
 * publishing workflow runs (lib/catalog/derive-stream.ts: the same items for the same document) and sets up
 * catalogs quickly; what the service itself publishes, documents and authored catalogs alike, goes through
 * the workflow (lib/catalog/pipeline/).
 */

const HEARTBEAT_MS = 20 * 1000;
/** DynamoDB's item limit is 400 KB; leave room for keys and attribute names. */
const MAX_ITEM_BYTES = 390 * 1024;

/** Everything a release stores, derived from a validated document. */
export interface PreparedRelease {
  /** Products in document order. */
  products: StoredProduct[];
  /** Live children of each parent, in publish (document) order, with their filterable attributes. */
  childIndex: Map<string, ChildIndexEntry[]>;
  /** The document's files, rendered in the platform's file shape. */
  files: FileResource[];
  counts: ReleaseCounts;
}

/**
 * Derives what a release stores from a validated document: parent/child links, child
 * prices inherited from the parent with the modifiers applied per currency (tiers and sale prices too),
 * display prices, breadcrumbs, variation matrices, bundle component prices, and each parent's live
 * children in publish order. Children inherit from their parent what they do not set: description,
 * commodity_type, price, sale, extensions, custom_inputs, files, main_image and node_ids.
 */
export function prepareRelease(document: ReleaseDocument, context: PrepareContext): PreparedRelease {
  const { paths } = resolveNodePaths(document.nodes);
  const byId = new Map(document.products.map((product) => [product.id, product]));
  const childrenOf = new Map<string, ProductInput[]>();
  for (const product of document.products) {
    const parentId = product.attributes.base_product_id;
    if (parentId === undefined) continue;
    const siblings = childrenOf.get(parentId);
    if (siblings) siblings.push(product);
    else childrenOf.set(parentId, [product]);
  }
  const families = new Map<string, FamilyFacts & { liveInputs: ProductInput[] }>();
  for (const [parentId, children] of childrenOf) {
    const live = children.filter((child) => child.attributes.status === 'live');
    families.set(parentId, { children: children.length, liveChildren: live.length, live, liveInputs: live });
  }
  const scope: DeriveScope = {
    document,
    paths,
    context,
    product: (id) => byId.get(id),
    family: (id) => families.get(id),
  };
  const cache: Parameters<typeof deriveProduct>[2] = new Map();
  const counts = emptyCounts();
  const childIndex = new Map<string, ChildIndexEntry[]>();
  const products: StoredProduct[] = [];
  for (const input of document.products) {
    const derived = deriveProduct(input, scope, cache);
    products.push(derived.stored);
    if (derived.isBase) {
      const live = families.get(input.id)?.liveInputs ?? [];
      childIndex.set(
        input.id,
        live.map((child) => indexEntry(child, context.publishedAt)),
      );
    }
    countProduct(counts, derived);
  }
  return { products, childIndex, files: document.files.map(renderFile), counts };
}

/**
 * The items of a release's product indexes (summary, release-wide index chunks and their filter index,
 * lookups), built from the prepared release at publish time.
 */
export function productLookupItems(
  document: ReleaseDocument,
  prepared: Pick<PreparedRelease, 'products'>,
  context: { catalogId: string; layout: ReleaseLayout; releaseSegment?: number },
): ReturnType<typeof catalogLookupRepository.summaryItem>[] {
  const { layout } = context;
  const segment = context.releaseSegment ?? RELEASE_SEGMENT;
  const entries = prepared.products.filter((stored) => stored.live).map(indexEntryOf);
  const items: ReturnType<typeof catalogLookupRepository.summaryItem>[] = [];
  const buckets = chunkEntries(entries, segment).map((part, n) => {
    const postings = releasePostings(layout, n, part);
    for (const item of postings.items) items.push(item);
    return postings.counts;
  });
  items.push(releaseSummaryItem(document, context, entries.length, { segment, buckets }));
  chunkEntries(entries, layout.chunk_size).forEach((chunk, n) => {
    items.push(catalogLookupRepository.indexChunkItem(layout, n, encodeChunk(chunk)));
  });
  for (const attribute of LOOKUP_ATTRIBUTES) {
    const byValue = new Map<string, LookupEntry[]>();
    entries.forEach((entry, pos) => {
      const value = entry[attribute];
      if (value === '') return;
      const list = byValue.get(value);
      if (list) list.push({ ...entry, pos });
      else byValue.set(value, [{ ...entry, pos }]);
    });
    for (const [value, list] of byValue) items.push(lookupItem(layout, attribute, value, list));
  }
  return items;
}

export interface PublishProgress {
  written: number;
  total: number;
}

export interface PublishOptions {
  /** Called as items are written (for a progress bar). */
  onProgress?: (progress: PublishProgress) => void;
  /** Called once the release's `writing` marker exists, before its items are written. */
  onStart?: (release: { catalog_id: string; release_id: string }) => void;
  /** Batches of 25 items in flight. */
  concurrency?: number;
  now?: () => Date;
  /** Delete replaced and abandoned releases after the switch (default true; the release is live before). */
  cleanup?: boolean;
  /** Live products per segment of the release-wide filter index (RELEASE_SEGMENT; tests use fewer). */
  releaseSegment?: number;
}

export interface PublishResult {
  catalog_id: string;
  release_id: string;
  products: ReleaseCounts;
  /** Items written: products, files, child-index chunks and the product indexes (lib/catalog/product-lookups.ts). */
  items: number;
  /** Old or abandoned releases deleted after the switch. */
  cleaned_up: string[];
  /** Why shoppers can never be given the new catalog (see `unselectableReason`); empty when they can. */
  warnings: string[];
}

/**
 * Every item of a release (products, files, child-index chunks, then the product indexes), derived from a
 * validated document; an item too large for DynamoDB is a validation error.
 */
export function buildReleaseItems(
  document: ReleaseDocument,
  context: {
    catalogId: string;
    layout: ReleaseLayout;
    currencies: Record<string, CurrencySettings>;
    releaseSegment?: number;
  },
): { items: ReturnType<typeof catalogRepository.productItem>[]; counts: ReleaseCounts } {
  const { layout } = context;
  const prepared = prepareRelease(document, {
    catalogId: context.catalogId,
    publishedAt: layout.published_at,
    currencies: context.currencies,
  });
  const items = prepared.products.map((stored) => catalogRepository.productItem(layout, stored));
  for (const file of prepared.files) items.push(catalogRepository.fileItem(layout, file));
  for (const [parentId, entries] of prepared.childIndex) {
    chunkEntries(entries, layout.chunk_size).forEach((chunk, n) => {
      items.push(catalogRepository.chunkItem(layout, parentId, n, encodeChunk(chunk)));
    });
    for (const item of filterIndexItems(layout, parentId, entries)) items.push(item);
  }
  // A loop, not push(...): a release's lookups and node lists can be hundreds of thousands of items, more
  // arguments than one call's stack takes.
  for (const item of productLookupItems(document, prepared, context)) items.push(item);
  const hierarchy = buildHierarchyItems(document, {
    catalogId: context.catalogId,
    publishedAt: layout.published_at,
  });
  for (const item of hierarchyReleaseItems(hierarchy, layout)) items.push(item);
  const oversized: ValidationIssue[] = [];
  items.forEach((item, index) => {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes: only strings that could be too large are measured.
    if (typeof item.d === 'string' && item.d.length * 3 <= MAX_ITEM_BYTES) return;
    const bytes = typeof item.d === 'string' ? Buffer.byteLength(item.d) : (item.z as Uint8Array).byteLength;
    if (bytes > MAX_ITEM_BYTES) {
      const product = index < prepared.products.length;
      const fileIndex = index - prepared.products.length;
      const file = !product && fileIndex < prepared.files.length;
      oversized.push({
        path: product ? `products[${index}]` : file ? `files[${fileIndex}]` : 'products',
        rule: 'item_size',
        message: `${product ? 'the product' : file ? 'the file' : 'a child index chunk'} takes ${bytes} bytes as stored; at most ${MAX_ITEM_BYTES} fit in one item`,
      });
    }
  });
  // No page of any read may be past what one Lambda response carries (lib/catalog/size-budget.ts).
  const chars = (item: (typeof items)[number]) => (typeof item.d === 'string' ? item.d.length : 0);
  oversized.push(
    ...productBudgetIssues(prepared.products, prepared.files, {
      productChars: items.slice(0, prepared.products.length).map(chars),
      fileChars: items
        .slice(prepared.products.length, prepared.products.length + prepared.files.length)
        .map(chars),
    }),
  );
  oversized.push(
    ...pageBudgetIssues(
      nodePageWeights(
        document.nodes.map((node) => node.id),
        hierarchy.nodes,
      ),
      'nodes',
    ),
  );
  if (oversized.length > 0) throw new ReleaseValidationError(oversized, oversized.length);
  return { items, counts: prepared.counts };
}

/**
 * Everything a publish checks before it writes, without a database, for a document built in memory: the
 * document (schema and code checks) and that every item fits in DynamoDB, sized with the document's
 * currencies (else the defaults; the store's would only change display strings). Throws
 * ReleaseValidationError with every issue.
 */
export function checkRelease(input: unknown): {
  document: ReleaseDocument;
  counts: ReleaseCounts;
  items: number;
} {
  const validation = validateRelease(input);
  if (!validation.ok) throw new ReleaseValidationError(validation.issues, validation.total);
  const document = validation.document;
  const { items, counts } = buildReleaseItems(document, {
    catalogId: document.catalog.id ?? uuidv7(),
    layout: checkLayout(),
    currencies: document.currencies ?? DEFAULT_CURRENCIES,
  });
  return { document, counts, items: items.length };
}

/** The catalog id: the document's, else the store's only catalog of the same name, else a new one. */
function chooseCatalogId(document: ReleaseDocument, registry: CatalogRegistry | undefined): string {
  if (document.catalog.id !== undefined) return document.catalog.id;
  const sameName = Object.values(registry?.catalogs ?? {}).filter(
    (catalog) => catalog.name === document.catalog.name,
  );
  return sameName.length === 1 && sameName[0] ? sameName[0].id : uuidv7();
}

/**
 * Publishes a release document for a store: validates all of it first (throws
 * ReleaseValidationError, nothing written), writes the release's items under a new release id with batched,
 * retried writes, then makes it the catalog's current release in one transaction (with the catalog's rules
 * and, when given, the store's currencies). Until that switch readers keep the previous release; a failed
 * publish deletes what it wrote (or, if the process died, a later publish or `cleanupReleases` does). A
 * switch that went through although its response was lost counts as published.
 */
export async function publishRelease(
  storeId: string,
  input: unknown,
  options: PublishOptions = {},
): Promise<PublishResult> {
  const validation = validateRelease(input);
  if (!validation.ok) throw new ReleaseValidationError(validation.issues, validation.total);
  const document = validation.document;
  const now = options.now ?? (() => new Date());
  const store = await storeRepository.get(storeId, true);
  if (!store) throw new StoreNotFoundError(storeId);

  const startRegistry = await catalogRepository.getRegistry(storeId);
  const catalogId = chooseCatalogId(document, startRegistry);
  const published = now();
  const publishedAt = published.toISOString();
  const releaseId = uuidv7(published.getTime());
  const layout: ReleaseLayout = {
    id: releaseId,
    shards: RELEASE_SHARDS,
    chunk_size: CHILD_CHUNK_SIZE,
    published_at: publishedAt,
    filter_index: FILTER_INDEX_VERSION,
  };
  const { items, counts } = buildReleaseItems(document, {
    catalogId,
    layout,
    currencies: document.currencies ?? store.currencies,
    ...(options.releaseSegment === undefined ? {} : { releaseSegment: options.releaseSegment }),
  });

  const marker: ReleaseMarker = {
    store_id: storeId,
    catalog_id: catalogId,
    release_id: releaseId,
    shards: layout.shards,
    status: 'writing',
    started_at: publishedAt,
    heartbeat_at: publishedAt,
  };
  let registry: CatalogRegistry | undefined;
  await catalogRepository.startRelease(marker);
  options.onStart?.({ catalog_id: catalogId, release_id: releaseId });
  const heartbeat = setInterval(() => {
    catalogRepository.heartbeat(storeId, catalogId, releaseId, now().toISOString()).catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  try {
    options.onProgress?.({ written: 0, total: items.length });
    await catalogRepository.writeItems(items, {
      concurrency: options.concurrency ?? 16,
      onProgress: (written) => options.onProgress?.({ written, total: items.length }),
    });
    registry = await activate(storeId, document, catalogId, layout, now);
  } catch (error) {
    clearInterval(heartbeat);
    // The switch may have happened with its response lost: fence the release first (a switch after the
    // fence cannot happen), and delete it only once it is certainly not live. When even the fence fails,
    // the `writing` marker stays for cleanupReleases, which never touches a current release.
    const status = await catalogRepository.abandonRelease(marker).catch(() => undefined);
    if (status !== 'complete') {
      if (status === 'abandoned') await catalogRepository.deleteRelease(marker).catch(() => undefined);
      throw error;
    }
  }
  clearInterval(heartbeat);
  const cleaned =
    options.cleanup === false
      ? { releases: [] }
      : await cleanupReleases(storeId, { catalogId, now: now() }).catch(() => ({ releases: [] }));
  // A switch whose response was lost left no registry here: read the one it wrote.
  registry ??= await catalogRepository.getRegistry(storeId);
  return {
    catalog_id: catalogId,
    release_id: releaseId,
    products: counts,
    items: items.length,
    cleaned_up: cleaned.releases,
    warnings: selectionWarnings(registry, catalogId, now()),
  };
}
