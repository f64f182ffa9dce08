import { type PcmCatalog, type PcmRelease, progressOf, type ReleaseState } from '../store/pcm-repository';

/**
 * The platform's catalog and release resources (`type: "catalog"`, `type: "catalog-release"`), as its
 * tools read them: the SDK's `Catalogs` and `Catalogs.Releases`, the command-line tool's publish-and-poll.
 */

export const catalogUrl = (origin: string, catalogId: string) => `${origin}/pcm/catalogs/${catalogId}`;
export const releaseUrl = (origin: string, catalogId: string, releaseId: string) =>
  `${catalogUrl(origin, catalogId)}/releases/${releaseId}`;

export function renderCatalog(catalog: PcmCatalog, origin: string): Record<string, unknown> {
  return {
    id: catalog.id,
    type: 'catalog',
    attributes: {
      name: catalog.name,
      description: catalog.description,
      hierarchy_ids: catalog.hierarchy_ids,
      pricebook_id: catalog.pricebook_id,
      ...((catalog.pricebook_ids ?? []).length > 0 ? { pricebook_ids: catalog.pricebook_ids } : {}),
      created_at: catalog.created_at,
      updated_at: catalog.updated_at,
      owner: 'store',
    },
    relationships: {
      // The route the SDK's `Catalogs.Releases.All` calls (the platform's path shape, under /pcm).
      releases: { links: { related: `${catalogUrl(origin, catalog.id)}/releases` } },
    },
    links: { self: catalogUrl(origin, catalog.id) },
    meta: {
      owner: 'store',
      document:
        catalog.document === undefined
          ? null
          : { bytes: catalog.document.bytes, updated_at: catalog.document.updated_at },
      publishing_release_id: catalog.publishing ?? null,
    },
  };
}

/** The API state of a release, also for releases the CLI published before the API kept one. */
export function releaseState(release: PcmRelease): ReleaseState {
  if (release.state !== undefined) return release.state;
  if (release.status === 'complete') return 'PUBLISHED';
  if (release.status === 'writing') return 'IN_PROGRESS';
  return 'FAILED';
}

/** `relationships.delta` and the meta fields that describe the publish and its delta file. */
export function deltaFields(
  release: Pick<PcmRelease, 'delta' | 'full_delta' | 'is_full_publish'>,
  link: string | undefined,
): {
  relationships?: { delta: { links: { related: string } } };
  is_full_publish: boolean;
  is_full_delta: boolean;
} {
  return {
    ...(link === undefined ? {} : { relationships: { delta: { links: { related: link } } } }),
    is_full_publish: release.is_full_publish ?? true,
    is_full_delta: release.delta?.full ?? release.full_delta === true,
  };
}

/** A release's texts, as the shopper's `GET /catalog` shows them (`releaseTexts`). */
export interface ReleaseTexts {
  name: string;
  description: string;
  hierarchies: { id: string; name: string }[];
}

/**
 * The release resource. `deltaLink` is its delta file's pre-signed URL (`deltaLink` of lib/pcm/delta-link.ts),
 * rendered as `relationships.delta` when there is one.
 */
export function renderRelease(
  release: PcmRelease,
  origin: string,
  current: boolean,
  texts: ReleaseTexts = { name: release.name ?? '', description: '', hierarchies: [] },
  deltaLink?: string,
): Record<string, unknown> {
  const state = releaseState(release);
  const { relationships, is_full_publish, is_full_delta } = deltaFields(release, deltaLink);
  const meta: Record<string, unknown> = {
    created_at: release.created_at ?? release.started_at,
    started_at: release.started_at,
    updated_at: release.updated_at ?? release.heartbeat_at,
    release_status: state,
    is_full_publish,
    is_full_delta,
    total_products: release.total_products ?? null,
    total_nodes: release.total_nodes ?? null,
    percent_completed: state === 'PUBLISHED' ? 100 : progressOf(release),
    owner: 'store',
    current,
  };
  if (state === 'PUBLISHED') {
    // Published, yet no shopper can ever be given it (no rule for it where the store has rules, say).
    meta.warnings = (release.warnings ?? []).map((detail) => ({ code: 'not_selectable', detail }));
  }
  if (state === 'FAILED') {
    const errors = (release.errors ?? []).map((issue) => ({
      status: '422',
      title: 'Unprocessable Entity',
      detail: issue.message,
      source: issue.path,
      rule: issue.rule,
    }));
    meta.errors = errors;
    meta.errors_total = release.errors_total ?? errors.length;
  }
  return {
    id: release.release_id,
    type: 'catalog-release',
    attributes: {
      name: texts.name,
      published_at: state === 'PUBLISHED' ? (release.published_at ?? release.activated_at ?? null) : null,
      catalog_id: release.catalog_id,
      description: texts.description,
      hierarchies: texts.hierarchies,
    },
    ...(relationships === undefined ? {} : { relationships }),
    links: { self: releaseUrl(origin, release.catalog_id, release.release_id) },
    meta,
  };
}
