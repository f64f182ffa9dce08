import { pipeline, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { deltaFileKey } from '../../store/delta-objects';
import { settleAll, startedEarly } from '../../store/items';
import { objectStore } from '../../store/object-store';
import { storeRepository } from '../../store/store-repository';
import { productLocale, renderProduct } from '../render';
import type { StoredProduct } from '../types';

/*
 * A release's delta file (docs/catalog-api.md, "Delta files"): gzipped JSON Lines, one line per product the
 * release created or updated (`"delta_type": "createupdate"`, the product as `GET /catalog/products/{id}`
 * renders it without request headers: the store's default locale, the release's default currency) or
 * removed (`"delta_type": "delete"`); every live product when the publish is full. `delta_type` sits at the
 * top level beside the product's own fields: the platform's search integration maps `attributes.name`,
 * `attributes.sku`, `main_image`... from the root of each document, so a line is a product plus its kind.
 * Written as a stream (bounded memory whatever the release's size) with the release's other objects of the
 * catalog, under `deltas/` (not the workflow's `work/`, which is deleted after each publish).
 */

export type DeltaChange = { type: 'createupdate'; stored: StoredProduct } | { type: 'delete'; id: string };

export interface DeltaFileInput {
  storeId: string;
  catalogId: string;
  releaseId: string;
  full: boolean;
  changes: AsyncIterable<DeltaChange>;
  /** The store's record when the caller has asked for it already (read here otherwise). */
  store?: Promise<{ default_locale: string } | undefined>;
  /**
   * Called once every line is counted, while the file's last bytes are still on their way: work that needs
   * the count runs beside the upload instead of after it. The write answers once both have settled (and
   * fails with the upload's error first).
   */
  counted?: (delta: { key: string; lines: number }) => Promise<unknown>;
}

export { deleteDeltaFile, deltaFileKey } from '../../store/delta-objects';

/** The delta file's media type: the bytes are the gzip file itself (no `Content-Encoding` a client would undo). */
export const DELTA_CONTENT_TYPE = 'application/gzip';

/**
 * Lines are handed to gzip in batches of about this many characters: one write per line would cost a
 * stream round per product, and a batch is still far below what the object store holds for a part.
 */
const BATCH_CHARS = 64 * 1024;

/**
 * One line of the delta file, without its newline; undefined for a change that has none. A created or
 * updated product that is not live (a draft, or a product the release does not show shoppers) is not in the
 * catalog shoppers see, so it is not a `createupdate`; a live product that became a draft is the caller's
 * `delete`. A full file (`full`) is the whole catalog, which its reader reloads after purging its own copy:
 * it has no `delete` lines.
 */
export function deltaLine(change: DeltaChange, defaultLocale: string, full = false): string | undefined {
  if (change.type === 'delete') {
    if (full) return undefined;
    return JSON.stringify({ delta_type: 'delete', id: change.id, type: 'product' });
  }
  const { stored } = change;
  if (!stored.live) return undefined;
  const product = JSON.stringify(renderProduct(stored, productLocale(stored, undefined, defaultLocale)));
  return `{"delta_type":"createupdate",${product.slice(1)}`;
}

/**
 * The delta file's bytes as the reader pulls them: the changes are read only as fast as gzip's output is
 * consumed, so neither the changes nor the file are ever held. `onLine` is called for each line written.
 */
export function deltaFileBytes(
  changes: AsyncIterable<DeltaChange>,
  options: { defaultLocale: string; full: boolean; onLine?: () => void; onEnd?: () => void },
): AsyncIterable<Buffer> {
  async function* text(): AsyncGenerator<string> {
    let batch = '';
    for await (const change of changes) {
      const line = deltaLine(change, options.defaultLocale, options.full);
      if (line === undefined) continue;
      options.onLine?.();
      batch += `${line}\n`;
      if (batch.length >= BATCH_CHARS) {
        yield batch;
        batch = '';
      }
    }
    if (batch !== '') yield batch;
    options.onEnd?.();
  }
  const gzip = createGzip();
  // A failing source destroys gzip with its error, which the reader of the bytes then gets.
  pipeline(Readable.from(text()), gzip, () => undefined);
  return gzip;
}

/** Streams the delta file into the object store; returns its key and the number of lines. */
export async function writeDeltaFile(input: DeltaFileInput): Promise<{ key: string; lines: number }> {
  const store = await (input.store ?? storeRepository.get(input.storeId, true));
  if (!store) throw new Error(`store ${input.storeId} does not exist`);
  const key = deltaFileKey(input.storeId, input.catalogId, input.releaseId);
  let lines = 0;
  let counted: Promise<unknown> | undefined;
  const bytes = deltaFileBytes(input.changes, {
    defaultLocale: store.default_locale,
    full: input.full,
    onLine: () => {
      lines += 1;
    },
    onEnd: () => {
      counted = input.counted && startedEarly(input.counted({ key, lines }));
    },
  });
  // The upload reads the bytes to their end (so `onEnd` has run) before it succeeds.
  const written = objectStore.put(key, bytes, { contentType: DELTA_CONTENT_TYPE });
  await settleAll([written, written.finally(() => counted)]);
  return { key, lines };
}
