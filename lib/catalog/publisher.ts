import { uuidv7 } from '../ids';
import {
  type CatalogRegistry,
  catalogRepository,
  type RegisteredCatalog,
  type ReleaseMarker,
} from '../store/catalog-repository';
import { type CurrencySettings, DEFAULT_CURRENCIES, storeRepository } from '../store/store-repository';
import { CHILD_CHUNK_SIZE, chunkEntries, encodeChunk } from './child-index';
import { prepareRelease, type ReleaseCounts } from './derive';
import { deriveReleaseStream } from './derive-stream';
import { FILTER_INDEX_VERSION, filterIndexItems } from './filter-index';
import { buildHierarchyItems } from './hierarchy-items';
import { hierarchyReleaseItems } from './nodes';
import { productLookupItems } from './product-lookups';
import { assertRegistryFits } from './registry-size';
import { cleanupReleases } from './release-cleanup';
import { ABANDONED_AFTER_MS, KEPT_REPLACED, RELEASE_SHARDS, RETAIN_REPLACED_MS } from './release-settings';
import { type CatalogRule, storeRules, unselectableReason } from './rules';
import { nodePageWeights, pageBudgetIssues, productBudgetIssues } from './size-budget';
import type { ReleaseDocument, ReleaseLayout } from './types';
import { ReleaseValidationError, type ValidationIssue } from './validate-release';
import { validateRelease, validateReleaseStream } from './validate-stream';

export { type CleanupOptions, cleanupReleases } from './release-cleanup';
export { ABANDONED_AFTER_MS, KEPT_REPLACED, RELEASE_SHARDS, RETAIN_REPLACED_MS };

const HEARTBEAT_MS = 20 * 1000;
/** DynamoDB's item limit is 400 KB; leave room for keys and attribute names. */
const MAX_ITEM_BYTES = 390 * 1024;
const MAX_ACTIVATION_ATTEMPTS = 10;

export class StoreNotFoundError extends Error {
  override name = 'StoreNotFoundError';
  constructor(storeId: string) {
    super(`store ${storeId} does not exist`);
  }
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

/** The registry entry's rules: ids and ages kept for rules that existed, new ones generated and stamped. */
function registeredRules(
  document: SwitchFacts,
  catalogId: string,
  previous: RegisteredCatalog | undefined,
  publishedMs: number,
): CatalogRule[] {
  const known = new Map((previous?.rules ?? []).map((rule) => [rule.id, rule]));
  return document.rules.map((rule, index) => {
    const id = rule.id ?? uuidv7(publishedMs);
    return {
      id,
      name: rule.name,
      catalog_id: catalogId,
      channels: rule.channels,
      tags: rule.tags,
      schedules: rule.schedules,
      // Rules of one document are as old as their order, so ties go to the first listed.
      created_at: known.get(id)?.created_at ?? new Date(publishedMs + index).toISOString(),
    };
  });
}

/**
 * Every item of a release (products, files, child-index chunks, then the product indexes), derived from a
 * validated document; an item too large for DynamoDB is a validation error.
 */
export function buildReleaseItems(
  document: ReleaseDocument,
  context: { catalogId: string; layout: ReleaseLayout; currencies: Record<string, CurrencySettings> },
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

/** A release layout for checks that write nothing (`checkRelease`, `checkReleaseStream`). */
function checkLayout(): ReleaseLayout {
  return {
    id: uuidv7(),
    shards: RELEASE_SHARDS,
    chunk_size: CHILD_CHUNK_SIZE,
    published_at: new Date().toISOString(),
    filter_index: FILTER_INDEX_VERSION,
  };
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

/**
 * `checkRelease` for a document read as a stream (`npm run catalog -- validate`), holding a product at a
 * time whatever the document's size: the streamed validation, then the items derived as the workflow
 * derives them (lib/catalog/derive-stream.ts), counted and dropped, for their sizes. `open` reads the
 * document from its start, `openRange` a run of its bytes. Throws ReleaseValidationError with every issue,
 * and DocumentReadError for a source that is not a JSON object.
 */
export async function checkReleaseStream(
  open: () => AsyncIterable<Uint8Array>,
  openRange?: (offset: number, length: number) => AsyncIterable<Uint8Array>,
): Promise<{ counts: ReleaseCounts; items: number }> {
  const validation = await validateReleaseStream(open());
  if (!validation.ok) throw new ReleaseValidationError(validation.issues, validation.total);
  const { counts, items } = await deriveReleaseStream({
    open,
    ...(openRange === undefined ? {} : { openRange }),
    catalogId: uuidv7(),
    layout: checkLayout(),
    storeCurrencies: DEFAULT_CURRENCIES,
    emit: () => undefined,
  });
  return { counts, items };
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

/**
 * What to tell whoever published `catalogId` when no shopper can ever be given it (`unselectableReason`
 * over the store's registry as the switch left it): one line, or none. The CLI prints it, the catalog
 * API's release carries it in `meta.warnings`.
 */
export function selectionWarnings(
  registry: CatalogRegistry | undefined,
  catalogId: string,
  now: Date,
): string[] {
  const catalogs = Object.values(registry?.catalogs ?? {});
  const reason = unselectableReason(
    registry === undefined ? [] : storeRules(registry),
    catalogs.map((catalog) => ({ id: catalog.id, created_at: catalog.created_at })),
    catalogId,
    now,
  );
  return reason === undefined ? [] : [`catalog ${catalogId} can never be selected: ${reason}`];
}

/** What the switch needs of a release's document: small, so the workflow keeps it beside the release. */
export interface SwitchFacts {
  catalog: { name: string };
  rules: ReleaseDocument['rules'];
  currencies?: ReleaseDocument['currencies'];
}

/** The facts of a document the switch needs. */
export function switchFacts(
  document: Pick<ReleaseDocument, 'catalog' | 'rules' | 'currencies'>,
): SwitchFacts {
  return {
    catalog: { name: document.catalog.name },
    rules: document.rules,
    ...(document.currencies === undefined ? {} : { currencies: document.currencies }),
  };
}

/** The one-step switch, retried while other publishes of the same store change the registry. */
export async function activate(
  storeId: string,
  document: SwitchFacts,
  catalogId: string,
  layout: ReleaseLayout,
  now: () => Date,
): Promise<CatalogRegistry | undefined> {
  const publishedMs = Date.parse(layout.published_at);
  let generatedRules: CatalogRule[] | undefined;
  for (let attempt = 1; attempt <= MAX_ACTIVATION_ATTEMPTS; attempt += 1) {
    const registry = await catalogRepository.getRegistry(storeId);
    const previous = registry?.catalogs[catalogId];
    generatedRules ??= registeredRules(document, catalogId, previous, publishedMs);
    const catalog: RegisteredCatalog = {
      id: catalogId,
      name: document.catalog.name,
      created_at: previous?.created_at ?? layout.published_at,
      release: layout,
      rules: generatedRules,
    };
    const next: CatalogRegistry = {
      version: (registry?.version ?? 0) + 1,
      catalogs: { ...(registry?.catalogs ?? {}), [catalogId]: catalog },
      // The catalog rules API's rules ride along unchanged (a rule write bumps the version too).
      ...(registry?.rules === undefined ? {} : { rules: registry.rules }),
    };
    // A registry past one item would fail in DynamoDB with a bare ValidationException: say why instead.
    assertRegistryFits(storeId, next);
    const switched = await catalogRepository.activateRelease({
      storeId,
      expectedVersion: registry?.version,
      registry: next,
      catalogId,
      releaseId: layout.id,
      replacedReleaseId: previous?.release.id,
      currencies: document.currencies,
      at: now().toISOString(),
    });
    if (switched) return next;
    await activationBackoff(attempt);
  }
  throw new Error('the catalog registry kept changing during the switch; publish again');
}

/**
 * The pause before the next switch attempt: random (full jitter) up to 25 ms * 2^attempt, at most 1 s.
 * A refused switch is either another publish's switch that won (the re-read sees it) or a transaction
 * conflict in which nobody may have won; retrying at once puts the same publishes back in step, so
 * under load they can lose every attempt together.
 */
function activationBackoff(attempt: number): Promise<void> {
  const ceiling = Math.min(1000, 25 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
