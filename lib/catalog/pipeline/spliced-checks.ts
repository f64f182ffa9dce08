import { settleWorkers } from '../../store/items';
import { objectStore } from '../../store/object-store';
import type { CurrencySettings } from '../../store/store-repository';
import { slugFromName } from '../derive';
import { type DerivePlan, type DeriveRange, planRelease } from '../derive-stream';
import { type DocumentElement, readReleaseDocument } from '../document-stream';
import type { Product as ProductDocument } from '../release-input.generated';
import type { ProductInput, ReleaseLayout } from '../types';
import {
  type DeclaredLists,
  Issues,
  listReferences,
  normaliseProduct,
  ReleaseValidationError,
  validateProduct,
} from '../validate-release';
import { validateReleaseStream } from '../validate-stream';
import { readBytes, readText, streamOf } from './codec';
import { type RangeBytes, RangeHasher } from './derive-memo';
import type { SpliceFacts } from './export-splice';

/**
 * Checking a spliced export by what changed (docs/publishing.md, "Validating and planning only what
 * changed"). A spliced document is the release before's document with some families written again
 * (export-splice.ts): every other product is the same bytes, moved. The release before's document passed
 * the whole validation, and its plan is kept with it; so when every product written again keeps the facts
 * other products are checked against and planned with (`sharedFacts`: ids, sku, slugs, family, variations,
 * bundle components, nodes, whether it is live), the checks across products answer as they did, and
 * only the products written again are checked alone, against the document's node, file and modifier
 * lists. The plan is the release before's, its ranges moved by the bytes the families gained or lost and
 * the inputs of parents and components written again replaced; only the ranges holding a family written
 * again are read (to hash them for the derivation's key). Anything else (another fact changed, a range near
 * its byte limit, the release before's kept plan missing or of another version) answers why, and the step
 * reads the whole document as before: the tests hold both ways equal.
 */

/**
 * The version of the rules both ways follow: raise it with any change of the release validation's rules
 * or of what the plan holds, so that no release builds on what older rules checked or planned.
 */
export const SPLICED_CHECKS_VERSION = 1;

/** More families written again than this: the whole document is read (each family is two ranged reads). */
export const SPLICED_CHECK_FAMILIES = 2_000;

/** Groups of families read at once, and ranges hashed at once. */
const READS_IN_FLIGHT = 4;
/** Families closer than this (in both documents) are read in one ranged read, the bytes between included. */
const SPAN_GAP = 256 * 1024;
/** The most bytes a group of families is read in at once (a longer family is read alone). */
const GROUP_BYTES = 4 * 1024 * 1024;

/** What a release keeps beside its plan for the next release's (the plan's settings and the rules' version). */
export interface KeptPlanMeta {
  version: number;
  range_bytes: number;
  range_products: number;
}

/** What Plan keeps of a release for the next one to build on. */
export interface KeptPlan {
  plan: DerivePlan;
  /** Each range's bytes as hashed (a range without `latest` cannot be carried forward). */
  bytes: (RangeBytes | undefined)[];
  meta: KeptPlanMeta;
}

/**
 * What other products' checks and the plan read of a product: its id and whether it is live, the values
 * that must be unique, the slug it is listed under, its family (parent, picked options, variations, parent
 * flags), its components and nodes. A product written again with all of these unchanged changes no check
 * across products and no fact of the plan but its own input.
 */
export function sharedFacts(product: ProductInput): string {
  const a = product.attributes;
  return JSON.stringify([
    product.id,
    a.status === 'live',
    a.sku ?? null,
    a.slug ?? null,
    a.slug ?? slugFromName(a.name, product.id),
    a.external_ref ?? null,
    a.base_product_id ?? null,
    product.variation_options,
    product.variations,
    a.base_product ?? null,
    a.product_types ?? null,
    a.components ?? null,
    product.node_ids,
  ]);
}

/** The document without its products (`"products":[]`): its head, and the members after the products. */
async function* headOnly(documentKey: string, facts: SpliceFacts): AsyncGenerator<Uint8Array> {
  const [start, end] = facts.products as [number, number];
  yield* objectStore.read(documentKey, { start: 0, end: start - 1 });
  if (end < facts.bytes) yield* objectStore.read(documentKey, { start: end, end: facts.bytes - 1 });
}

const OPEN = Buffer.from('{"products":[');
const CLOSE = Buffer.from(']}');

/** A family's products, raw, as the document's reader reads them (its rules: duplicate keys, sizes, encoding). */
async function familyParts(bytes: Buffer): Promise<DocumentElement[]> {
  const parts: DocumentElement[] = [];
  for await (const read of readReleaseDocument(streamOf(Buffer.concat([OPEN, bytes, CLOSE])))) {
    for (const part of read) if (part.kind === 'element') parts.push(part);
  }
  return parts;
}

/** The node, file and modifier lists a document's head declares (as the validation reads them). */
function declaredOf(head: Record<string, unknown>): DeclaredLists {
  const ids = (list: unknown) =>
    new Set(
      (Array.isArray(list) ? list : []).flatMap((entry) => {
        const id = (entry as { id?: unknown } | null)?.id;
        return typeof id === 'string' ? [id.toLowerCase()] : [];
      }),
    );
  const modifiers = head.price_modifiers;
  return {
    nodes: ids(head.nodes),
    files: ids(head.files),
    modifiers: new Set(
      typeof modifiers === 'object' && modifiers !== null && !Array.isArray(modifiers)
        ? Object.keys(modifiers)
        : [],
    ),
  };
}

/** A family written again: [offset, length] before, then [offset, length] now. */
type FamilySpans = [number, number, number, number];

/**
 * The families in groups read together: neighbours less than SPAN_GAP apart in both documents, while a
 * group's reads stay under GROUP_BYTES (a family longer than that is a group alone). A thousand families
 * in a few megabytes are a few reads, not two thousand.
 */
export function familyGroups(families: readonly FamilySpans[]): [number, number][] {
  const groups: [number, number][] = [];
  let start = 0;
  for (let n = 1; n <= families.length; n += 1) {
    const first = families[start] as FamilySpans;
    const previous = families[n - 1] as FamilySpans;
    const next = families[n];
    const joins =
      next !== undefined &&
      next[0] - (previous[0] + previous[1]) <= SPAN_GAP &&
      next[2] - (previous[2] + previous[3]) <= SPAN_GAP &&
      next[0] + next[1] - first[0] <= GROUP_BYTES &&
      next[2] + next[3] - first[2] <= GROUP_BYTES;
    if (!joins) {
      groups.push([start, n]);
      start = n;
    }
  }
  return groups;
}

/** Bytes of `key` from `offset`, `length` of them. */
const readSpan = (key: string, offset: number, length: number) =>
  readBytes(objectStore.read(key, { start: offset, end: offset + length - 1 }));

/**
 * Runs `work` on each family written again with its bytes before and now, the groups' reads
 * READS_IN_FLIGHT at once; the first answer that is not undefined stops them.
 */
async function eachFamily(
  facts: SpliceFacts,
  keys: { before: string; now: string },
  work: (family: FamilySpans, n: number, before: Buffer, now: Buffer) => Promise<string | undefined>,
): Promise<string | undefined> {
  const groups = familyGroups(facts.families);
  let next = 0;
  let why: string | undefined;
  await settleWorkers(READS_IN_FLIGHT, async (stop) => {
    while (!stop.failed && why === undefined && next < groups.length) {
      const [start, end] = groups[next++] as [number, number];
      const first = facts.families[start] as FamilySpans;
      const last = facts.families[end - 1] as FamilySpans;
      const [before, now] = await Promise.all([
        readSpan(keys.before, first[0], last[0] + last[1] - first[0]),
        readSpan(keys.now, first[2], last[2] + last[3] - first[2]),
      ]);
      for (let n = start; why === undefined && n < end; n += 1) {
        const family = facts.families[n] as FamilySpans;
        why ??= await work(
          family,
          n,
          before.subarray(family[0] - first[0], family[0] + family[1] - first[0]),
          now.subarray(family[2] - first[2], family[2] + family[3] - first[2]),
        );
      }
    }
  });
  return why;
}

/**
 * The validation of a spliced document by what changed: passed (with the families checked), or why the
 * whole document must be read. Passed only when the whole validation would pass too.
 */
export async function validateSpliced(
  documentKey: string,
  baseDocumentKey: string,
  facts: SpliceFacts,
): Promise<{ families: number } | { why: string }> {
  if (facts.products === null) return { why: 'the document has no products' };
  if (facts.families.length > SPLICED_CHECK_FAMILIES)
    return { why: `over ${SPLICED_CHECK_FAMILIES} families written again` };
  const head = await readText(headOnly(documentKey, facts));
  const checked = await validateReleaseStream(streamOf(Buffer.from(head)));
  if (!checked.ok) return { why: "the document's head has issues" };
  const declared = declaredOf(JSON.parse(head) as Record<string, unknown>);
  const keys = { before: baseDocumentKey, now: documentKey };
  const why = await eachFamily(facts, keys, async (_family, _n, beforeBytes, nowBytes) => {
    const [before, after] = await Promise.all([familyParts(beforeBytes), familyParts(nowBytes)]);
    if (before.length !== after.length) return 'a family written again has other products';
    for (const [n, part] of after.entries()) {
      const now = validateProduct(part.value, n);
      if (!now.ok) return 'a product written again has issues';
      const was = validateProduct((before[n] as DocumentElement).value, n);
      if (was.product === undefined || sharedFacts(was.product) !== sharedFacts(now.product))
        return 'a product written again changed what other products are checked against';
      const found = new Issues();
      listReferences({ index: n, product: now.product }, declared, found);
      if (found.list.length > 0) return 'a product written again names what the document does not declare';
    }
    return undefined;
  });
  return why === undefined ? { families: facts.families.length } : { why };
}

/** A family written again, read for the plan: its products' places in both texts, its new inputs. */
interface ReadFamily {
  offset: number;
  length: number;
  newOffset: number;
  newLength: number;
  /** Each product's first byte and end in the family's text, before and now. */
  before: [number, number][];
  now: [number, number][];
}

/** Each product of a family's bytes, normalised, with its place in them. */
async function familyProducts(bytes: Buffer) {
  return (await familyParts(bytes)).map((part) => {
    const start = part.offset - OPEN.length;
    // Normalised as the plan's reader normalises (the document passed its checks).
    const product = normaliseProduct(part.value as ProductDocument, part.index, new Issues());
    return { product, place: [start, start + part.length] as [number, number] };
  });
}

/** Where a byte of the release before's products (a product's first byte, or its end) is in the spliced document. */
function mover(families: ReadFamily[], headShift: number) {
  return (position: number, edge: 0 | 1): number | undefined => {
    let shift = headShift;
    for (const family of families) {
      if (position < family.offset) break;
      if (position <= family.offset + family.length) {
        const at = family.before.findIndex((place) => place[edge] === position - family.offset);
        return at < 0 ? undefined : family.newOffset + (family.now[at] as [number, number])[edge];
      }
      shift += family.newLength - family.length;
    }
    return position + shift;
  };
}

export interface SplicedPlanInput {
  facts: SpliceFacts;
  documentKey: string;
  baseDocumentKey: string;
  kept: KeptPlan;
  catalogId: string;
  layout: ReleaseLayout;
  storeCurrencies: Record<string, CurrencySettings>;
  meta: KeptPlanMeta;
  releaseSegment?: number;
  /** The publish times the ranges' bytes are searched for (derive-memo.ts `memoTimes`). */
  times: string[];
}

/**
 * The plan of a spliced document from the release before's (see above): the plan and every range's bytes
 * as the whole plan would give them, with how many ranges were read; or why the whole document must be read.
 * The picks of every range are the release before's.
 */
export async function planSpliced(
  input: SplicedPlanInput,
): Promise<{ plan: DerivePlan; bytes: RangeBytes[]; read: number } | { why: string }> {
  const { facts, kept, layout } = input;
  const old = kept.plan;
  if (
    kept.meta.version !== input.meta.version ||
    kept.meta.range_bytes !== input.meta.range_bytes ||
    kept.meta.range_products !== input.meta.range_products ||
    old.layout.chunk_size !== layout.chunk_size
  )
    return { why: "the release before's plan was made with other settings" };
  const first = old.ranges[0];
  const last = old.ranges.at(-1);
  if (facts.products === null || first === undefined || last === undefined)
    return { why: 'the document has no products' };
  if (facts.families.length > SPLICED_CHECK_FAMILIES)
    return { why: `over ${SPLICED_CHECK_FAMILIES} families written again` };
  // Where the products begin moved by what the head gained or lost; checked against where they end.
  const headShift = facts.products[0] - first.offset;
  if (last.offset + last.length + facts.bytes - facts.base_bytes !== facts.products[1])
    return { why: "the document is not the release before's spliced" };

  let head: DerivePlan;
  try {
    ({ plan: head } = await planRelease({
      open: () => headOnly(input.documentKey, facts),
      catalogId: input.catalogId,
      layout,
      storeCurrencies: input.storeCurrencies,
      rangeBytes: input.meta.range_bytes,
      rangeProducts: input.meta.range_products,
      ...(input.releaseSegment === undefined ? {} : { releaseSegment: input.releaseSegment }),
    }));
  } catch (error) {
    if (error instanceof ReleaseValidationError) return { why: "the document's head has issues" };
    throw error;
  }
  // The head's facts as this code plans them (the filter index's segment size included) against the kept plan's.
  const beyondCatalog = (plan: DerivePlan) =>
    JSON.stringify([{ ...plan.head, catalog: null }, plan.currencies, plan.segment]);
  if (beyondCatalog(head) !== beyondCatalog(old))
    return { why: "the document's head changed beyond its catalog" };

  const families: ReadFamily[] = [];
  const inputs = new Map<string, ProductInput>();
  let shift = headShift;
  const keys = { before: input.baseDocumentKey, now: input.documentKey };
  const why = await eachFamily(facts, keys, async (spans, n, beforeBytes, nowBytes) => {
    const [offset, length, newOffset, newLength] = spans;
    const [before, now] = await Promise.all([familyProducts(beforeBytes), familyProducts(nowBytes)]);
    if (before.length !== now.length) return 'a family written again has other products';
    for (const [i, one] of now.entries()) {
      if (sharedFacts(one.product) !== sharedFacts((before[i] as (typeof before)[number]).product))
        return 'a product written again changed what the plan holds of it';
      inputs.set(one.product.id, one.product);
    }
    families[n] = {
      offset,
      length,
      newOffset,
      newLength,
      before: before.map((one) => one.place),
      now: now.map((one) => one.place),
    };
    return undefined;
  });
  if (why !== undefined) return { why };
  for (const family of families) {
    if (family.newOffset !== family.offset + shift)
      return { why: "the document is not the release before's spliced" };
    shift += family.newLength - family.length;
  }

  // The ranges hold the same products (a range ends by its count, not its bytes, on both sides), moved.
  const move = mover(families, headShift);
  const ranges: DeriveRange[] = [];
  for (const range of old.ranges) {
    const offset = move(range.offset, 0);
    const end = move(range.offset + range.length, 1);
    if (offset === undefined || end === undefined)
      return { why: 'a range does not begin or end on a product' };
    if (range.length >= input.meta.range_bytes || end - offset >= input.meta.range_bytes)
      return { why: 'a range is at its byte limit' };
    ranges.push({ ...range, offset, length: end - offset });
  }

  // A range is read again when it holds a family written again, or when a publish time may be in it.
  const oldest = input.times.reduce((a, b) => (a < b ? a : b));
  const bytes: (RangeBytes | undefined)[] = old.ranges.map((range, n) => {
    const was = kept.bytes[n];
    const touched = families.some(
      (family) => family.offset < range.offset + range.length && range.offset < family.offset + family.length,
    );
    if (touched || was === undefined || was.holdsTime || was.latest === undefined) return undefined;
    return was.latest === null || was.latest < oldest ? was : undefined;
  });
  const unread = ranges.filter((_, n) => bytes[n] === undefined);
  let next = 0;
  await settleWorkers(READS_IN_FLIGHT, async (stop) => {
    while (!stop.failed && next < unread.length) {
      const range = unread[next++] as DeriveRange;
      const hasher = new RangeHasher(input.times);
      const end = range.offset + range.length - 1;
      for await (const piece of objectStore.read(input.documentKey, { start: range.offset, end }))
        hasher.update(piece);
      bytes[range.n] = hasher.done();
    }
  });

  const plan: DerivePlan = {
    ...old,
    catalog_id: input.catalogId,
    layout,
    head: head.head,
    currencies: head.currencies,
    held: old.held.map((product) => inputs.get(product.id) ?? product),
    ranges,
  };
  return { plan, bytes: bytes as RangeBytes[], read: unread.length };
}
