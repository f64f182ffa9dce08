import { uuidv7 } from '../ids';
import { type CatalogRegistry, catalogRepository, type RegisteredCatalog } from '../store/catalog-repository';
import { DEFAULT_CURRENCIES } from '../store/store-repository';
import { CHILD_CHUNK_SIZE } from './child-index';
import type { ReleaseCounts } from './derive';
import { deriveReleaseStream } from './derive-stream';
import { FILTER_INDEX_VERSION } from './filter-index';
import { assertRegistryFits } from './registry-size';
import { ABANDONED_AFTER_MS, KEPT_REPLACED, RELEASE_SHARDS, RETAIN_REPLACED_MS } from './release-settings';
import { type CatalogRule, storeRules, unselectableReason } from './rules';
import type { ReleaseDocument, ReleaseLayout } from './types';
import { ReleaseValidationError } from './validate-release';
import { validateReleaseStream } from './validate-stream';

/*
 * What every publish shares, whatever publishes: the check of a streamed document (`npm run catalog --
 * validate`), the switch that makes a release current (`activate`, the workflow's Switch step) and what to
 * warn of once it is. Publishing itself is the workflow's (lib/catalog/pipeline/); the one-process
 * publisher it replaced is kept for tests only (test/support/one-process-publisher.ts).
 */

export { type CleanupOptions, cleanupReleases } from './release-cleanup';
export { ABANDONED_AFTER_MS, KEPT_REPLACED, RELEASE_SHARDS, RETAIN_REPLACED_MS };

const MAX_ACTIVATION_ATTEMPTS = 10;

export class StoreNotFoundError extends Error {
  override name = 'StoreNotFoundError';
  constructor(storeId: string) {
    super(`store ${storeId} does not exist`);
  }
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

/** A release layout for checks that write nothing (`checkReleaseStream`). */
export function checkLayout(): ReleaseLayout {
  return {
    id: uuidv7(),
    shards: RELEASE_SHARDS,
    chunk_size: CHILD_CHUNK_SIZE,
    published_at: new Date().toISOString(),
    filter_index: FILTER_INDEX_VERSION,
  };
}

/**
 * Everything a publish checks before it writes, for a document read as a stream (`npm run catalog --
 * validate`), holding a product at a time whatever the document's size: the streamed validation, then the items derived as the workflow
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
  registryRead?: Promise<CatalogRegistry | undefined>,
): Promise<CatalogRegistry | undefined> {
  const publishedMs = Date.parse(layout.published_at);
  let generatedRules: CatalogRule[] | undefined;
  for (let attempt = 1; attempt <= MAX_ACTIVATION_ATTEMPTS; attempt += 1) {
    // A registry read before the call serves the first attempt: a stale one only fails its condition.
    const registry =
      attempt === 1 && registryRead ? await registryRead : await catalogRepository.getRegistry(storeId);
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
