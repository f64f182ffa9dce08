import { catalogRepository } from '../../store/catalog-repository';
import { type AskedFirst, askedFirst, startedEarly } from '../../store/items';
import { ObjectNotFoundError, objectStore } from '../../store/object-store';
import { pcmRepository } from '../../store/pcm-repository';
import type { ReleaseLayout } from '../types';
import { readBytes, readLines, readText, streamOf } from './codec';
import { ManifestTable, readManifestEntries } from './item-manifest';
import { type ReleaseIds, releaseObjectsPrefix, type WriteChunk } from './workflow';

/**
 * Releases that share what did not change (docs/publishing.md, "Releases that share"). A release is read
 * through its layers: its own items, then those of the releases it lists in `layers` (newest first), the
 * first layer holding a key giving the item (a tombstone there: no item). A publish compares every item it
 * derived with the item manifest of the release it builds on and writes only the items whose content
 * differs, and a tombstone for each key that release had and this one has not.
 */

/** A release and the releases below it: at most this many layers are read for one key. */
export const MAX_LAYERS = 4;

/**
 * A release compared with its compaction base (the bottom layer) that differs from it in more than this
 * share of its items is written whole: reading it through layers would buy nothing.
 */
export const WHOLE_WRITE_SHARE = 0.5;

/**
 * A publish this long after the release before it is a full publish (its delta file holds the whole
 * catalog), as the platform does after 90 days.
 */
export const FULL_PUBLISH_AFTER_MS = 90 * 24 * 3600 * 1000;

/**
 * The release a publish builds on, when it compares its items with what that release or one below it
 * holds: `base`, unless the publish is full (asked, or 90 days on) or `base` is laid out differently.
 */
export function buildsOn(
  base: ReleaseLayout | undefined,
  layout: Pick<ReleaseLayout, 'shards' | 'chunk_size' | 'filter_index'>,
  askedFullDelta: boolean,
  now: number,
): string | undefined {
  if (base === undefined || askedFullDelta) return undefined;
  if (now - Date.parse(base.published_at) > FULL_PUBLISH_AFTER_MS) return undefined;
  return sameLayout(base, layout) ? base.id : undefined;
}

/** Whether two releases lay their items out alike (a release is compared only with one laid out as it is). */
const sameLayout = (a: ReleaseLayout, b: Pick<ReleaseLayout, 'shards' | 'chunk_size' | 'filter_index'>) =>
  a.shards === b.shards && a.chunk_size === b.chunk_size && a.filter_index === b.filter_index;

/** Where a release's objects live: its item manifest (and its delta file), kept as long as its items. */
export const releaseObjects = {
  prefix: releaseObjectsPrefix,
  /** The item manifest as one object: how releases published before manifests had parts keep it. */
  manifest: (storeId: string, catalogId: string, releaseId: string) =>
    `${releaseObjects.prefix(storeId, catalogId, releaseId)}items.manifest`,
  /** The item manifest's parts, in order (`{ parts: ManifestPart[] }`), written once they all are. */
  manifestParts: (storeId: string, catalogId: string, releaseId: string) =>
    `${releaseObjects.prefix(storeId, catalogId, releaseId)}manifest-parts.json`,
  /** The part of the entries no range's key names: the merge's items, and ranges derived without a key. */
  mergedManifest: (storeId: string, catalogId: string, releaseId: string) =>
    `${releaseObjects.prefix(storeId, catalogId, releaseId)}merged.manifest`,
};

/**
 * One part of a release's item manifest: an object of entries. A range's part is the entries its
 * derivation kept (derive-memo.ts), named by the range's key: every release with a range of that key has
 * the same entries in it, so two releases' manifests are compared without reading the parts they share.
 */
export interface ManifestPart {
  key: string;
  /** Its entries (unknown for a manifest of one object, from before parts). */
  items?: number;
  /** The range's key. */
  range?: string;
}

/** A release's item manifest, its parts in order (one object for a release from before parts). */
async function manifestParts(
  ids: Pick<ReleaseIds, 'store_id' | 'catalog_id'>,
  releaseId: string,
): Promise<ManifestPart[]> {
  try {
    const text = await readText(
      objectStore.read(releaseObjects.manifestParts(ids.store_id, ids.catalog_id, releaseId)),
    );
    return (JSON.parse(text) as { parts: ManifestPart[] }).parts;
  } catch (error) {
    if (!(error instanceof ObjectNotFoundError)) throw error;
    // Read as any part: when it is not there either, the release has no manifest (ObjectNotFoundError).
    return [{ key: releaseObjects.manifest(ids.store_id, ids.catalog_id, releaseId) }];
  }
}

/**
 * The bytes of `parts`, in order: a range's part read whole, a few ahead (one round trip each, bounded by
 * the range's size), any other streamed when its turn comes (the merged part may hold a whole catalog's).
 */
async function* readParts(parts: ManifestPart[]): AsyncGenerator<Uint8Array> {
  const ahead = readAhead(parts.length, MANIFEST_READ_AHEAD, (n) => {
    const part = parts[n] as ManifestPart;
    return part.range === undefined ? Promise.resolve(undefined) : readBytes(objectStore.read(part.key));
  });
  for (const [n, part] of parts.entries()) {
    const bytes = await ahead(n);
    if (bytes === undefined) yield* objectStore.read(part.key);
    else yield bytes;
  }
}

/** A release's item manifest as one stream of entries' bytes (ObjectNotFoundError when it has none). */
export async function* releaseManifest(
  ids: Pick<ReleaseIds, 'store_id' | 'catalog_id'>,
  releaseId: string,
): AsyncGenerator<Uint8Array> {
  yield* readParts(await manifestParts(ids, releaseId));
}

/**
 * Deletes the objects of the catalog's releases (every catalog's when `catalogId` is undefined) that have
 * no marker any more (the cleanup deleted them, or a function without access to the bucket did); answers
 * how many releases' objects went. Run after every switch and by `catalog cleanup`; the bucket's lifecycle
 * expires what is left after 90 days.
 *
 * The objects are listed before the markers: a release's marker is written when it is created, before any
 * of its objects, so every release whose objects the listing saw is in the markers read after it unless
 * it is gone. Read the other way round, a release created between the two reads would lose its objects.
 * `markersAfter`: the markers are read once it has fulfilled too (a cleanup deleting markers meanwhile: the
 * listing, which only needs to come first, runs beside it); when it rejects, nothing is swept and 0 is
 * answered (what was to make releases' objects unneeded did not happen: a switch that failed).
 */
export async function sweepReleaseObjects(
  storeId: string,
  catalogId: string | undefined,
  markersAfter?: Promise<unknown>,
): Promise<number> {
  const prefix = catalogId === undefined ? `releases/${storeId}/` : `releases/${storeId}/${catalogId}/`;
  const seen = new Map<string, string>();
  for await (const object of objectStore.list(prefix)) {
    // releases/<store>/<catalog>/<release>/<name>
    const [, , catalog, release] = object.key.split('/') as [string, string, string, string];
    seen.set(release, catalog);
  }
  try {
    await markersAfter;
  } catch {
    return 0;
  }
  if (seen.size === 0) return 0;
  const markers = new Set(
    (await catalogRepository.listReleases(storeId, catalogId)).map((marker) => marker.release_id),
  );
  let swept = 0;
  for (const [release, catalog] of seen) {
    if (markers.has(release)) continue;
    await objectStore.deletePrefix(releaseObjects.prefix(storeId, catalog, release));
    swept += 1;
  }
  return swept;
}

/** A chunk file's manifest part (its items' entries, in its order), beside it in the work prefix. */
export const manifestPartKey = (chunkKey: string) => chunkKey.replace(/\.jsonl$/, '.manifest');

/** Manifest parts read ahead of the one the comparison reads (each one round trip, ~200 KB at most). */
const MANIFEST_READ_AHEAD = 4;

/**
 * `read(n)` for n = 0, 1, ... count - 1, asked in that order: each read starts up to `ahead` places before
 * it is asked for, so the round trips overlap the work between the asks. A read that fails is thrown when
 * asked for (not before, and never unhandled).
 */
export function readAhead<T>(count: number, ahead: number, read: (n: number) => Promise<T>) {
  const started = new Map<number, Promise<T>>();
  let next = 0;
  return (n: number): Promise<T> => {
    while (next < count && next <= n + ahead) {
      started.set(next, startedEarly(read(next)));
      next += 1;
    }
    const reading = started.get(n);
    started.delete(n);
    if (reading === undefined) throw new Error(`part ${n} was asked for out of order`);
    return reading;
  };
}

/**
 * The objects at `keys` in order, each as its bytes: the next object's request is sent as the one before
 * it starts to be read, so a run of objects read one after another waits about one round trip, not one
 * each, and holds at most the next object's first bytes besides the one read. A reader that stops early
 * (or moves on before an object's end) closes what was started for it.
 */
export async function* objectsInTurn(keys: readonly string[]): AsyncGenerator<AsyncIterable<Uint8Array>> {
  const started = (key: string | undefined) =>
    key === undefined ? undefined : askedFirst(objectStore.read(key));
  let ahead = started(keys[0]);
  try {
    for (let n = 0; n < keys.length; n += 1) {
      const current = ahead as AskedFirst<Uint8Array>;
      ahead = started(keys[n + 1]);
      try {
        yield current;
      } finally {
        await current.close();
      }
    }
  } finally {
    await ahead?.close();
  }
}

/** What the publish writes and how readers reach the rest. */
export interface SharePlan {
  /** The chunk files the write map writes: the derived ones (whole write), or the changes and tombstones. */
  chunks: WriteChunk[];
  /** Items those chunks hold. */
  items: number;
  /** The releases below this one (newest first); empty when it is written whole. */
  layers: string[];
  /** `meta.is_full_publish`: the first release, a source added or removed, asked for, or 90 days on. */
  full_publish: boolean;
  /** `meta.is_full_delta`: the delta file holds the whole catalog. */
  full_delta: boolean;
  /** Why the release is written whole, when it is (for the release record and the logs). */
  whole?: string;
  /** Products the release changed or added, and removed, against the release before it. */
  changed_products: number;
  removed_products: number;
}

/**
 * A range's chunks among the derivation's, in order: how many, and, when the range has a key
 * (derive-memo.ts), the key and the object where the release keeps the range's entries.
 */
export type ShareRange = { chunks: number } | { chunks: number; key: string; manifest: string };

interface ShareInput {
  ids: ReleaseIds;
  layout: ReleaseLayout;
  /**
   * Every chunk file the derivation wrote, in order, each with its manifest part; a range taken up from
   * the release before is one chunk of entries only (`kept`).
   */
  chunks: WriteChunk[];
  /** The ranges' chunks, the first of `chunks` in order (the rest are the merge's). */
  ranges?: ShareRange[];
  /**
   * Derives again the kept chunks at the indexes given: for each, the chunk files of its item lines (with
   * their manifest parts), in order. Called only for chunks whose lines are read.
   */
  materialize?: (chunks: ReadonlySet<number>) => Promise<Map<number, WriteChunk[]>>;
  /** Manifest parts the caller holds already (of chunk files it wrote itself), by chunk key: not read. */
  held?: ReadonlyMap<string, Uint8Array>;
  /** The release's `export_full_delta`. */
  askedFullDelta: boolean;
  /** An authored release's sources (compared with the base's: a source added or removed is a full publish). */
  authored?: { hierarchy_ids: string[]; pricebook_ids: string[] };
  /** The catalog's current release when the publish compares (undefined: none). */
  base: ReleaseLayout | undefined;
  /**
   * Records, before anything is compared, the releases this one may share (a superset of its final
   * layers): from then on the cleanup keeps them, even when the catalog API deletes the current release
   * meanwhile. Not called without a base (nothing to keep).
   */
  protect: (layers: string[]) => Promise<void>;
  /** Writes delta chunk files: the caller's chunk writer (lines are encoded items). */
  emitLine: (line: string) => Promise<void>;
  doneLines: () => Promise<WriteChunk[]>;
  now?: Date;
}

const isProductKey = (sk: string) => sk.startsWith('P#');

/**
 * A release's manifest for a comparison, without the parts of the ranges `shared` names (the new release
 * has the same entries there): the parts read (in order), the ranges' keys it has, the entries left out,
 * and the table of the rest (only the sort keys `only` accepts, when given). Undefined when the release
 * has no manifest (published before manifests existed, or expired).
 */
async function loadCompared(
  ids: ReleaseIds,
  releaseId: string,
  shared: ReadonlySet<string>,
  only?: (sk: string) => boolean,
) {
  try {
    const parts = await manifestParts(ids, releaseId);
    const read = parts.filter((part) => part.range === undefined || !shared.has(part.range));
    let skipped = 0;
    for (const part of parts) if (!read.includes(part)) skipped += part.items ?? 0;
    const ranges = new Set(parts.flatMap((part) => (part.range === undefined ? [] : [part.range])));
    return { read, ranges, skipped, table: await ManifestTable.load(readParts(read), only) };
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return undefined;
    throw error;
  }
}

const sameSet = (a: string[] = [], b: string[] = []) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** Lines of chunk files by chunk number (ascending line numbers). */
type Lines = Map<number, number[]>;

function mark(lines: Lines, n: number, line: number): void {
  const list = lines.get(n);
  if (list === undefined) lines.set(n, [line]);
  else list.push(line);
}

/**
 * The chunk list with the chunks at `replaced`'s indexes replaced by their files, and where the lines
 * marked in a list of the old chunks are in the new one (a replaced chunk's lines run through its files).
 */
export function relocation(chunks: WriteChunk[], replaced: ReadonlyMap<number, WriteChunk[]>) {
  const starts: number[] = [];
  const next: WriteChunk[] = [];
  for (const [n, chunk] of chunks.entries()) {
    starts.push(next.length);
    next.push(...(replaced.get(n) ?? [chunk]));
  }
  const lines = (marked: Lines): Lines => {
    const out: Lines = new Map();
    for (const [n, list] of marked) {
      const start = starts[n] as number;
      const files = replaced.get(n);
      if (files === undefined) {
        out.set(start, list);
        continue;
      }
      let file = 0;
      let first = 0;
      for (const line of list) {
        while (line >= first + (files[file] as WriteChunk).items) {
          first += (files[file] as WriteChunk).items;
          file += 1;
        }
        mark(out, start + file, line - first);
      }
    }
    return out;
  };
  return { chunks: next, lines };
}

/** The lines `lines` names of the chunk files, in order. */
export async function* pickLines(chunks: WriteChunk[], lines: Lines): AsyncGenerator<string> {
  const picked = [...lines].sort((a, b) => a[0] - b[0]);
  let file = 0;
  for await (const body of objectsInTurn(picked.map(([n]) => (chunks[n] as WriteChunk).key))) {
    const wanted = (picked[file] as [number, number[]])[1];
    file += 1;
    let at = 0;
    let next = 0;
    for await (const line of readLines(body)) {
      if (at === wanted[next]) {
        yield line;
        next += 1;
        if (next === wanted.length) break;
      }
      at += 1;
    }
  }
}

/** Every product item of the chunk files, as created or updated (a full delta file). */
async function* everyProduct(chunks: WriteChunk[]): AsyncGenerator<ShareChange> {
  for await (const body of objectsInTurn(chunks.map((chunk) => chunk.key))) {
    for await (const line of readLines(body)) {
      // The item's own sort key (encodeItem writes pk, then sk): the product's JSON inside is escaped.
      if (line.includes('"sk":"P#')) yield { type: 'createupdate', line };
    }
  }
}

/** What the delta file lists: a product created or updated (its item's line), or removed (its id). */
export type ShareChange = { type: 'createupdate'; line: string } | { type: 'delete'; id: string };

/**
 * Compares the derived release with the catalog's current one and decides what to write: stores the new
 * release's item manifest (the derived items' entries, whatever is written), then either every chunk file
 * (a whole write) or new chunk files of the changed items and the tombstones (`emitLine`).
 *
 * The ranges this release and the compared one share (the same key: the same entries) are neither read
 * nor compared: a one-price change reads the entries of the range that holds it and the merge's, whatever
 * the catalog's size. The new manifest is the ranges' parts, which Derive already keeps among the
 * release's objects, and one merged part of the other entries.
 */
export async function planSharing(
  input: ShareInput,
): Promise<SharePlan & { changes: () => AsyncIterable<ShareChange>; listed: Promise<void> }> {
  const { ids, layout, base } = input;
  const now = (input.now ?? new Date()).getTime();
  // Compared with the base, or, once the base has MAX_LAYERS layers, with its bottom layer (compaction:
  // the new layer then holds everything that differs from the bottom, and reads go two layers deep).
  const chain = base === undefined ? [] : [base.id, ...(base.layers ?? [])];
  const compacting = chain.length >= MAX_LAYERS;
  const against = compacting ? chain[chain.length - 1] : chain[0];
  // The base's record (its sources) is read beside the protection: neither waits on the other. Without a
  // base there is nothing to protect, and no write.
  const [baseRelease] = await Promise.all([
    base === undefined ? undefined : pcmRepository.getRelease(ids.store_id, ids.catalog_id, base.id),
    chain.length === 0 ? undefined : input.protect(chain),
  ]);
  const stale = base !== undefined && now - Date.parse(base.published_at) > FULL_PUBLISH_AFTER_MS;
  const sourcesChanged =
    input.authored !== undefined &&
    baseRelease?.authored !== undefined &&
    !(
      sameSet(input.authored.hierarchy_ids, baseRelease.authored.hierarchy_ids) &&
      sameSet(input.authored.pricebook_ids, baseRelease.authored.pricebook_ids)
    );

  // Each chunk's range key (the merge's chunks have none), and the new manifest's range parts.
  const rangeOf: (string | undefined)[] = [];
  const ownParts: ManifestPart[] = [];
  for (const range of input.ranges ?? []) {
    const key = 'key' in range ? range.key : undefined;
    let items = 0;
    for (let i = 0; i < range.chunks; i += 1) {
      items += (input.chunks[rangeOf.length] as WriteChunk).items;
      rangeOf.push(key);
    }
    if ('key' in range) ownParts.push({ key: range.manifest, items, range: range.key });
  }
  const ownRanges = new Set(ownParts.map((part) => part.range as string));

  let whole: string | undefined;
  if (base === undefined || against === undefined) whole = 'the first release of the catalog';
  else if (!sameLayout(base, layout)) whole = 'the release before it is laid out differently';
  const compared = whole === undefined ? await loadCompared(ids, against as string, ownRanges) : undefined;
  const table = compared?.table;
  if (whole === undefined && table === undefined) whole = 'the release before it has no item manifest';
  if (whole === undefined && table !== undefined && table.collisions > 0)
    whole = 'two keys of the release before it share a hash';
  // Compacting: the products of the base itself, for what the delta file lists.
  const baseCompared =
    whole === undefined && compacting
      ? await loadCompared(ids, base?.id as string, ownRanges, isProductKey)
      : undefined;
  const baseProducts = baseCompared?.table;
  if (compacting && whole === undefined && baseProducts === undefined)
    whole = 'the release before it has no item manifest';

  const changed: Lines = new Map();
  const changedProducts: Lines = new Map();
  let changedItems = 0;
  let derivedItems = 0;
  // A kept range's chunk has its entries (the items it would derive) but no item lines: the lines are
  // derived again where they are read (a whole write, a full delta file: all of them; a layered write:
  // the kept ranges holding an item that differs from the compared release, or a product the delta file
  // lists).
  const fullDelta = input.askedFullDelta || stale;
  let chunks = input.chunks;
  const materialize = async (which: (n: number) => boolean) => {
    const targets = new Set(chunks.flatMap((chunk, n) => (chunk.kept && which(n) ? [n] : [])));
    if (targets.size === 0) return undefined;
    if (!input.materialize) throw new Error('kept ranges without a way to derive them again');
    const replaced = await input.materialize(targets);
    const moved = relocation(chunks, replaced);
    chunks = moved.chunks;
    return moved.lines;
  };
  const comparing = whole === undefined ? table : undefined;
  const sharedWith = (ranges: ReadonlySet<string> | undefined, n: number) => {
    const range = rangeOf[n];
    return range !== undefined && ranges?.has(range) === true;
  };
  // What each chunk's entries are read for: the merged part (no range), the comparison with the compared
  // release, the delta file's comparison with the base (compacting); a chunk needed for none is not read.
  const reads = chunks.flatMap((chunk, n) => {
    const merged = rangeOf[n] === undefined;
    const vsCompared = comparing !== undefined && !sharedWith(compared?.ranges, n);
    const vsBase = baseProducts !== undefined && !sharedWith(baseCompared?.ranges, n);
    if (merged || vsCompared || vsBase) return [{ n, merged, vsCompared, vsBase }];
    derivedItems += chunk.items;
    return [];
  });
  const mergedKey = releaseObjects.mergedManifest(ids.store_id, ids.catalog_id, ids.release_id);
  let mergedItems = 0;
  await objectStore.put(
    mergedKey,
    (async function* () {
      const parts = readAhead(reads.length, MANIFEST_READ_AHEAD, (i) => {
        const { key } = chunks[(reads[i] as { n: number }).n] as WriteChunk;
        const held = input.held?.get(key);
        return held === undefined ? readBytes(objectStore.read(manifestPartKey(key))) : Promise.resolve(held);
      });
      for (const [i, { n, merged, vsCompared, vsBase }] of reads.entries()) {
        const bytes = await parts(i);
        if (merged) yield bytes;
        let line = 0;
        for await (const entry of readManifestEntries(streamOf(bytes))) {
          derivedItems += 1;
          if (merged) mergedItems += 1;
          const product = isProductKey(entry.sk);
          if (vsCompared && comparing !== undefined && !comparing.unchanged(entry)) {
            mark(changed, n, line);
            changedItems += 1;
            if (product && baseProducts === undefined) mark(changedProducts, n, line);
          }
          if (product && vsBase && baseProducts !== undefined && !baseProducts.unchanged(entry))
            mark(changedProducts, n, line);
          line += 1;
        }
      }
    })(),
    { contentType: 'application/octet-stream' },
  );
  // The manifest's list last: it names only parts that are there. Nothing below reads it (only a later
  // release's comparison does, once this one is published): it is written while the rest goes on, and
  // the caller waits for it (`listed`) before the step answers.
  const listed = startedEarly(
    objectStore.put(
      releaseObjects.manifestParts(ids.store_id, ids.catalog_id, ids.release_id),
      JSON.stringify({ parts: [...ownParts, { key: mergedKey, items: mergedItems }] }),
      { contentType: 'application/json' },
    ),
  );
  // A failure below waits for the list's write, so the step leaves nothing in flight.
  try {
    if (
      whole === undefined &&
      compared !== undefined &&
      changedItems > (compared.table.count + compared.skipped) * WHOLE_WRITE_SHARE
    )
      whole = `it changes more than ${WHOLE_WRITE_SHARE * 100} % of the items`;
    // The kept ranges whose lines are read, derived again: every one for a whole write or a full delta
    // file, else those with a marked line; the marked lines follow them to their files.
    const moved = await materialize(
      whole !== undefined || fullDelta ? () => true : (n) => changed.has(n) || changedProducts.has(n),
    );
    if (moved && whole === undefined) {
      for (const lines of [changed, changedProducts]) {
        const relocated = moved(lines);
        lines.clear();
        for (const [n, list] of relocated) lines.set(n, list);
      }
    }

    if (whole !== undefined || compared === undefined || against === undefined) {
      // Written whole: its delta file holds the whole catalog.
      return {
        chunks,
        items: derivedItems,
        layers: [],
        full_publish: true,
        full_delta: true,
        whole: whole ?? 'no release to compare with',
        changed_products: -1,
        removed_products: -1,
        changes: () => everyProduct(chunks),
        listed,
      };
    }

    for await (const line of pickLines(chunks, changed)) await input.emitLine(line);
    // A tombstone for every key of the compared release this one no longer has (the parts it shares with
    // this one hold none).
    const removed: string[] = [];
    let index = 0;
    for await (const entry of readManifestEntries(readParts(compared.read))) {
      if (!compared.table.kept(index)) {
        await input.emitLine(
          JSON.stringify({ pk: `REL#${ids.release_id}#${entry.shard}`, sk: entry.sk, x: 1 }),
        );
        changedItems += 1;
        if (baseProducts === undefined && isProductKey(entry.sk)) removed.push(entry.sk.slice(2));
      }
      index += 1;
    }
    if (baseCompared !== undefined) {
      // Products the base had and this release has not (against the base, not the bottom).
      index = 0;
      for await (const entry of readManifestEntries(readParts(baseCompared.read))) {
        if (!isProductKey(entry.sk)) continue;
        if (!baseCompared.table.kept(index)) removed.push(entry.sk.slice(2));
        index += 1;
      }
    }
    const full_delta = fullDelta;
    let createdOrUpdated = 0;
    for (const lines of changedProducts.values()) createdOrUpdated += lines.length;
    return {
      chunks: await input.doneLines(),
      items: changedItems,
      layers: compacting ? [against] : chain,
      full_publish: full_delta || sourcesChanged,
      full_delta,
      changed_products: createdOrUpdated,
      removed_products: removed.length,
      changes: full_delta
        ? () => everyProduct(chunks)
        : async function* () {
            for await (const line of pickLines(chunks, changedProducts))
              yield { type: 'createupdate', line } as const;
            for (const id of removed) yield { type: 'delete', id } as const;
          },
      listed,
    };
  } catch (error) {
    await listed.catch(() => undefined);
    throw error;
  }
}
