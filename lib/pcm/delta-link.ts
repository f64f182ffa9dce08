import { getConfig } from '../config/index';
import { presignGet } from '../store/object-urls';
import type { PcmRelease } from '../store/pcm-repository';
import { releaseState } from './render';

/*
 * A release's `relationships.delta` (docs/catalog-api.md, "Delta files"): a link to its delta file, signed
 * afresh at each read (lib/store/object-urls.ts, without the object store).
 */

/** How long a delta file link works: an hour, as the platform's. */
export const DELTA_LINK_SECONDS = 3600;

/**
 * How long a release links its delta file after it was published: the platform keeps delta files for 30
 * days. The bucket expires them a day later (infra/publishing.ts), so a link handed out always finds its
 * file: past these days the release shows none rather than one that answers 404.
 */
export const DELTA_RETENTION_DAYS = 30;

const DAY_MS = 24 * 3600 * 1000;

/**
 * A pre-signed GET URL of the release's delta file, valid DELTA_LINK_SECONDS: for a PUBLISHED release that
 * has one, up to DELTA_RETENTION_DAYS after it was published; undefined otherwise.
 */
export async function deltaLink(release: PcmRelease, now = new Date()): Promise<string | undefined> {
  if (release.delta === undefined || releaseState(release) !== 'PUBLISHED') return undefined;
  const published = Date.parse(release.published_at ?? release.activated_at ?? '');
  if (Number.isNaN(published) || now.getTime() >= published + DELTA_RETENTION_DAYS * DAY_MS) return undefined;
  const { url } = await presignGet(getConfig().documentsBucket, release.delta.key, {
    expiresInSeconds: DELTA_LINK_SECONDS,
  });
  return url;
}
