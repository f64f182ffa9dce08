import { createHash } from 'node:crypto';
import { ObjectNotFoundError, objectStore } from '../../store/object-store';
import type { DerivePlan, DeriveRange, RangePartial, RangePicks } from '../derive-stream';
import { readText } from './codec';
import { releaseObjects } from './share';
import type { ReleaseIds, WriteChunk } from './workflow';

/**
 * Ranges derived once (docs/publishing.md, "Deriving only the ranges that changed"). A range's derivation
 * is a function of the range's bytes, its picks, its place (its index, first product, live products and
 * list positions before it) and the plan's release-wide facts; of the release itself it reads only the
 * publish time. Each release keeps, beside its item manifest, what every range's derivation left: the
 * manifest entries of its items and its partial for the merge, under a key that hashes all of those
 * inputs. The next release's Derive looks its range's key up in the release it builds on: when it is
 * there, the range's items are the ones that release already has (their entries are its entries) and the
 * derivation is skipped; the merge joins the kept partial like any other.
 *
 * The publish time is the one input that differs: the derivation writes it into the items that have no
 * time of their own, and the item manifest leaves it out of every item's content (item-manifest.ts). A
 * kept partial carries the time of the publish that derived it, replaced by the new one when it is taken
 * up; which is exact only when none of the inputs carries either time otherwise, so a range whose bytes,
 * picks or plan hold either time as text is derived (and neither kept nor taken).
 *
 * A kept range gives no item lines, only its entries (the new release's own, whatever release they are
 * compared with): the merge derives it again where its lines are read (`ShareInput.materialize`): all kept
 * ranges for a whole write or a full delta file, else those holding an item that differs from the compared
 * release or a product the delta file lists.
 */

/**
 * The derivation's version: part of every key. Raise it with any change of what a range's derivation
 * writes (its items or its partial), so that no release takes up what an older derivation left;
 * `test/unit/derive-memo.test.ts` pins the output of a sample range to it.
 */
export const DERIVATION_VERSION = 1;

/** Where a release keeps its ranges' derivations: beside its item manifest, swept with it. */
export const memoObjects = {
  manifest: (ids: Pick<ReleaseIds, 'store_id' | 'catalog_id'>, releaseId: string, key: string) =>
    `${releaseObjects.prefix(ids.store_id, ids.catalog_id, releaseId)}ranges/${key}.manifest`,
  partial: (ids: Pick<ReleaseIds, 'store_id' | 'catalog_id'>, releaseId: string, key: string) =>
    `${releaseObjects.prefix(ids.store_id, ids.catalog_id, releaseId)}ranges/${key}.partial.json`,
};

/** A kept range as the merge's chunk list names it: entries only (its manifest part), no item lines. */
export const memoChunkKey = (
  ids: Pick<ReleaseIds, 'store_id' | 'catalog_id'>,
  releaseId: string,
  key: string,
) => memoObjects.manifest(ids, releaseId, key).replace(/\.manifest$/, '.jsonl');

/** What a range's bytes tell the memo: their digest, and whether they hold one of the publish times. */
export interface RangeBytes {
  digest: string;
  holdsTime: boolean;
  /**
   * The greatest time written as a publish time is (`toISOString`, 24 characters) anywhere in the bytes,
   * null when none is: a later publish time cannot occur in them, which lets the next publish carry the
   * range's digest forward without reading it (spliced-checks.ts). Absent when not looked for.
   */
  latest?: string | null;
}

/** The length of a time as `toISOString` writes it: `2026-11-28T07:22:38.123Z`. */
const STAMP_LENGTH = 24;
const Z = 0x5a;

/** Whether `bytes` hold a time as `toISOString` writes it at `start` (digits where its digits are). */
function stampAt(bytes: Uint8Array, start: number): boolean {
  if (start < 0 || start + STAMP_LENGTH > bytes.length) return false;
  for (let i = 0; i < STAMP_LENGTH; i += 1) {
    const byte = bytes[start + i] as number;
    const expected = STAMP_SHAPE.charCodeAt(i);
    if (expected === 0x39 ? byte < 0x30 || byte > 0x39 : byte !== expected) return false;
  }
  return true;
}
/** `9` stands for any digit. */
const STAMP_SHAPE = '9999-99-99T99:99:99.999Z';

/**
 * A range's bytes fed in order (`update`), answered once (`done`): their SHA-256, and whether any of `times`
 * occurs in them as text (across the pieces' edges). Plan feeds it each range's bytes as it reads the
 * document, so Derive need not read a range it takes up.
 */
export class RangeHasher {
  private readonly hash = createHash('sha256');
  private readonly needles: Buffer[];
  private readonly keep: number;
  private tail = Buffer.alloc(0);
  private holdsTime = false;
  private latest: string | null = null;

  constructor(times: string[]) {
    this.needles = times.map((time) => Buffer.from(time, 'utf8'));
    this.keep = Math.max(STAMP_LENGTH - 1, ...this.needles.map((needle) => needle.length - 1));
  }

  update(piece: Uint8Array): void {
    this.hash.update(piece);
    if (this.holdsTime) return;
    // The piece searched where it lies; only its edge with the bytes before it is copied.
    const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    const edge =
      this.tail.length === 0 ? undefined : Buffer.concat([this.tail, bytes.subarray(0, this.keep)]);
    this.holdsTime = this.needles.some((needle) => bytes.includes(needle) || edge?.includes(needle) === true);
    this.findLatest(bytes, edge);
    const last = bytes.length >= this.keep ? bytes : Buffer.concat([this.tail, bytes]);
    this.tail = Buffer.from(last.subarray(Math.max(0, last.length - this.keep)));
  }

  /** Every time ends with `Z`: each `Z` of the piece (or of its edge, for one begun before it) looked at. */
  private findLatest(bytes: Buffer, edge: Buffer | undefined): void {
    const look = (within: Buffer, start: number) => {
      if (!stampAt(within, start)) return;
      const stamp = within.toString('latin1', start, start + STAMP_LENGTH);
      if (this.latest === null || stamp > this.latest) this.latest = stamp;
    };
    for (let z = bytes.indexOf(Z); z >= 0; z = bytes.indexOf(Z, z + 1)) {
      const start = z - (STAMP_LENGTH - 1);
      if (start >= 0) look(bytes, start);
      else if (edge !== undefined) look(edge, this.tail.length + start);
    }
  }

  done(): RangeBytes {
    return { digest: this.hash.digest('hex'), holdsTime: this.holdsTime, latest: this.latest };
  }
}

/**
 * The publish times a range's bytes are searched for: this release's, and that of the release it may take
 * ranges up from (Plan, which hashes the ranges, and Derive, which keys them, must ask the same).
 */
export const memoTimes = (publishedAt: string, base: { published_at: string } | undefined): string[] =>
  base === undefined ? [publishedAt] : [publishedAt, base.published_at];

/** Reads a range's bytes once: see {@link RangeHasher}. */
export async function readRangeBytes(
  source: AsyncIterable<Uint8Array>,
  times: string[],
): Promise<RangeBytes> {
  const hasher = new RangeHasher(times);
  for await (const chunk of source) hasher.update(chunk);
  return hasher.done();
}

/**
 * The plan's release-wide facts as text and their digest, once per plan: at a million products the plan
 * holds megabytes of parents' and components' inputs, the same for every range of the publish.
 */
interface PlanFacts {
  text: string;
  digest: string;
  /** Whether the text holds a time, by time. */
  holds: Map<string, boolean>;
}
const planFacts = new WeakMap<DerivePlan, PlanFacts>();

function factsOf(plan: DerivePlan): PlanFacts {
  let facts = planFacts.get(plan);
  if (facts === undefined) {
    const { layout, ranges: _ranges, ...rest } = plan;
    const text = JSON.stringify([
      { shards: layout.shards, chunk_size: layout.chunk_size, filter_index: layout.filter_index ?? null },
      rest,
    ]);
    facts = { text, digest: createHash('sha256').update(text).digest('hex'), holds: new Map() };
    planFacts.set(plan, facts);
  }
  return facts;
}

/**
 * The key of a range's derivation: a hash of every input it reads but the publish time (and the release's
 * id, which no derived item's content holds). Undefined when the plan or the picks hold either publish
 * time as text (see above).
 */
export function rangeKey(
  plan: DerivePlan,
  picks: RangePicks,
  range: DeriveRange,
  bytes: RangeBytes,
  times: string[],
): string | undefined {
  if (bytes.holdsTime) return undefined;
  const facts = factsOf(plan);
  const own = JSON.stringify([
    picks,
    [range.n, range.first, range.count, range.live_start, range.node_start],
  ]);
  const inFacts = (time: string) => {
    let held = facts.holds.get(time);
    if (held === undefined) {
      held = facts.text.includes(time);
      facts.holds.set(time, held);
    }
    return held;
  };
  if (times.some((time) => own.includes(time) || inFacts(time))) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([DERIVATION_VERSION, facts.digest, own, bytes.digest]))
    .digest('hex');
}

interface KeptPartial {
  published_at: string;
  items: number;
  partial: RangePartial;
}

/**
 * Keeps a derived range for the releases after this one: the manifest entries of its items (its chunks'
 * manifest parts, in order) and its partial with the time it was derived at.
 */
export async function keepRange(
  ids: ReleaseIds,
  key: string,
  entries: Buffer,
  partial: RangePartial,
  publishedAt: string,
): Promise<void> {
  const kept: KeptPartial = { published_at: publishedAt, items: partial.items, partial };
  await Promise.all([
    objectStore.put(memoObjects.manifest(ids, ids.release_id, key), entries, {
      contentType: 'application/octet-stream',
    }),
    objectStore.put(memoObjects.partial(ids, ids.release_id, key), JSON.stringify(kept), {
      contentType: 'application/json',
    }),
  ]);
}

/**
 * Takes up the range `key` that release `base` kept: keeps it for this release too (a server-side copy of
 * its entries, its partial at this release's time) and answers the partial and its chunk, entries only.
 * Undefined when `base` kept no such range (or its objects went meanwhile).
 */
export async function takeUpRange(
  ids: ReleaseIds,
  base: { id: string },
  key: string,
  publishedAt: string,
): Promise<{ partial: RangePartial; chunk: WriteChunk } | undefined> {
  let text: string;
  try {
    [text] = await Promise.all([
      readText(objectStore.read(memoObjects.partial(ids, base.id, key))),
      objectStore.copy(
        memoObjects.manifest(ids, base.id, key),
        memoObjects.manifest(ids, ids.release_id, key),
      ),
    ]);
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return undefined;
    throw error;
  }
  const kept = JSON.parse(text) as KeptPartial;
  const retimed = JSON.parse(text.split(kept.published_at).join(publishedAt)) as KeptPartial;
  const partial = retimed.partial;
  await objectStore.put(
    memoObjects.partial(ids, ids.release_id, key),
    JSON.stringify({ published_at: publishedAt, items: kept.items, partial } satisfies KeptPartial),
    { contentType: 'application/json' },
  );
  return { partial, chunk: { key: memoChunkKey(ids, ids.release_id, key), items: kept.items, kept: true } };
}
