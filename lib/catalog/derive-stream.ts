import { catalogLookupRepository } from '../store/catalog-lookup-repository';
import { catalogRepository } from '../store/catalog-repository';
import type { CurrencySettings } from '../store/store-repository';
import { resolveNodePaths } from './breadcrumbs';
import { chunkEntries, encodeChunk } from './child-index';
import {
  countProduct,
  type DeriveScope,
  deriveProduct,
  emptyCounts,
  type FamilyFacts,
  indexEntry,
  type ReleaseCounts,
  renderFile,
  slugFromName,
} from './derive';
import { type DocumentPart, readReleaseDocument } from './document-stream';
import { filterIndexItems } from './filter-index';
import {
  buildHierarchyItems,
  encodeIdList,
  hierarchyOf,
  NODE_LIST_CHUNK,
  type ProductListRef,
  productListsOf,
} from './hierarchy-items';
import { hierarchyReleaseItems } from './nodes';
import {
  indexEntryOf,
  LOOKUP_ATTRIBUTES,
  type LookupEntry,
  lookupItem,
  RELEASE_SEGMENT,
  releasePostings,
  releaseSummaryItem,
} from './product-lookups';
import type { Product as ProductDocument } from './release-input.generated';
import {
  boundedMeasure,
  EXACT,
  Heaviest,
  nodePageWeights,
  PAGE_BUDGET_BYTES,
  pageBudgetIssues,
  relatedIds,
  type Weighed,
} from './size-budget';
import type {
  CatalogNode,
  ChildIndexEntry,
  FileResource,
  ProductInput,
  ReleaseDocument,
  ReleaseLayout,
  StoredProduct,
} from './types';
import {
  Issues,
  normaliseProduct,
  ReleaseValidationError,
  type ValidationIssue,
  validateReleaseHead,
} from './validate-release';

/**
 * A release's items derived from its document as it streams (docs/publishing.md):
 * the items `buildReleaseItems` makes, with the same size checks, without holding the document, in three
 * parts that the publishing workflow runs as separate steps, the middle one in parallel:
 *
 * 1. **Plan** (`planRelease`, one pass over the document, a second only when needed): the document's small
 *    members (catalog, nodes, files, rules, modifiers, currencies), which products are parents and bundle
 *    components and their inputs (which other products inherit from or price with), each family's size
 *    and the options its live children pick, which slugs of live products repeat (as 53-bit hashes), how
 *    many live products each node and each hierarchy lists (a third pass counts the hierarchies' when the
 *    document's `nodes` come after its products), and the **ranges**: runs of products of about `rangeBytes`
 *    bytes, by byte offset in the document, each starting at a multiple of the release index's chunk
 *    size in live products.
 * 2. **Derive a range** (`deriveRange`, any number at once, each reading only its own bytes): each product
 *    derived (lib/catalog/derive.ts `deriveProduct`, the code the whole-document derivation runs) and its
 *    items emitted: the product, the release index's chunks, the lookups, the indexes of the families whose
 *    live children are all in the range, the node lists' chunks that lie in it. What crosses a range's
 *    edges (a family split over ranges, a node list's chunk begun in one range and ended in another, a
 *    repeated slug's list) is answered as the range's {@link RangePartial}.
 * 3. **Merge** (`mergeRelease`): the partials joined in range order into the items they complete, the
 *    files, the release summary, the nodes and hierarchies, and the response-size budget.
 *
 * `deriveReleaseStream` runs the three in one process (the tests compare it with `buildReleaseItems`).
 *
 * Memory, in every part: the small members, the parents' and components' inputs, per family its size
 * (and in the plan, the picks of its children that pick options), the entries of the families still being
 * read, the repeated slugs' entries, and in the plan 8 bytes a live product for the slug hashes. Not the
 * products.
 */

/** An item as the products table stores it. */
export type ReleaseItem = ReturnType<typeof catalogRepository.productItem>;

/** The bytes of products a range holds, about (a range ends at the first product past it that fits the index). */
export const DERIVE_RANGE_BYTES = 32 * 1024 * 1024;
/**
 * The most products a range holds, about: a range's work stays about a second, and a publish that changes
 * a few products derives only the ranges holding them (lib/catalog/pipeline/derive-memo.ts).
 */
export const DERIVE_RANGE_PRODUCTS = 10_000;
/**
 * The bytes of products the plan's first pass keeps as possible parents (products with variations) and
 * components (products a bundle read before them names), to save a second pass; past it, a second pass
 * reads the parents and components the first did not keep.
 */
const CANDIDATE_BYTES = 64 * 1024 * 1024;

export interface StreamDeriveOptions {
  /** Opens the document from its start (called once per pass). */
  open: () => AsyncIterable<Uint8Array>;
  /** Opens `length` bytes of the document from `offset` (a ranged read); by default, read from `open`. */
  openRange?: (offset: number, length: number) => AsyncIterable<Uint8Array>;
  catalogId: string;
  layout: ReleaseLayout;
  /** The store's currencies, for a document that names none. */
  storeCurrencies: Record<string, CurrencySettings>;
  /** Receives every item, once; awaited, so a slow consumer slows the reading. */
  emit: (item: ReleaseItem) => Promise<void> | void;
  /** About how many bytes of products a range takes (DERIVE_RANGE_BYTES). */
  rangeBytes?: number;
  /** About how many products a range takes at most (DERIVE_RANGE_PRODUCTS). */
  rangeProducts?: number;
  /** Live products per segment of the release-wide filter index (RELEASE_SEGMENT). */
  releaseSegment?: number;
}

export interface StreamDeriveResult {
  counts: ReleaseCounts;
  items: number;
  totalNodes: number;
  /** The document's small members, normalised (the switch needs its rules and currencies). */
  head: Omit<ReleaseDocument, 'products'>;
}

/** A run of the document's products, derived by one `deriveRange`. */
export interface DeriveRange {
  n: number;
  /** The index of its first product in the document's `products`. */
  first: number;
  count: number;
  /** The byte offset of its first product's value, and the bytes to the end of its last one's. */
  offset: number;
  length: number;
  /** Live products before it (a multiple of the layout's chunk size). */
  live_start: number;
  /**
   * Live products in each product list before it: [list key (`listKey`), count] (only lists holding some):
   * the nodes' `products` and the hierarchies' `hierarchy_products`.
   */
  node_start: [string, number][];
}

/** The picks of a family's live children that pick options, in document order. */
type Picks = FamilyFacts['live'];

/** What every range's derivation shares (JSON: the workflow keeps it in the bucket). */
export interface DerivePlan {
  catalog_id: string;
  layout: ReleaseLayout;
  head: Omit<ReleaseDocument, 'products'>;
  /** The document's currencies, else the store's. */
  currencies: Record<string, CurrencySettings>;
  /** Every family: [parent id, children, live children]. */
  families: [string, number, number][];
  /** The inputs of every parent and every bundle component. */
  held: ProductInput[];
  /** The picks of families whose parent is also a component (its weight on a bundle's page needs them). */
  held_picks: [string, Picks][];
  /** Hashes of the slugs more than one live product takes. */
  repeated_slugs: number[];
  live_total: number;
  /** Live products per segment of the release-wide filter index (RELEASE_SEGMENT). */
  segment: number;
  /** Live products each product list holds: [list key (`listKey`), count]. */
  node_totals: [string, number][];
  ranges: DeriveRange[];
}

/** Per range: the picks of the families whose parent is in it, [parent id, picks]. */
export type RangePicks = [string, Picks][];

/** What a range's derivation leaves to the merge. */
export interface RangePartial {
  n: number;
  items: number;
  counts: ReleaseCounts;
  product_issues: ValidationIssue[];
  other_issues: ValidationIssue[];
  /** Its heaviest live products' page weights (the merge keeps the heaviest of all). */
  heaviest: Weighed[];
  /** Families not all of whose live children are in it: [parent id, its entries here, in order]. */
  families: [string, ChildIndexEntry[]][];
  /** The entries of repeated slugs: [slug, entries]. */
  slugs: [string, LookupEntry[]][];
  /** The parts of product lists' chunks that cross its edges: [list key (`listKey`), chunk, ids]. */
  node_fragments: [string, number, string[]][];
  /** The release-wide filter index's segments not all of whose entries are in it: [segment, its entries here]. */
  segments: [number, ChildIndexEntry[]][];
  /** The bucket counts of the segments whose filter index it wrote: [segment, counts]. */
  segment_buckets: [number, number[]][];
}

/** DynamoDB's item limit is 400 KB; leave room for keys and attribute names (as the publisher does). */
const MAX_ITEM_BYTES = 390 * 1024;

interface ReadProduct {
  index: number;
  product: ProductInput;
  offset: number;
  length: number;
}

/**
 * Each product of the source, normalised as the validation normalises it, with its index and bytes. The
 * document was validated whole before any derivation reads it (the workflow's Validate step,
 * `validateReleaseStream` in the one-process publisher), and its bytes cannot change since: a document's
 * key is new for every write (`documentKey`, an authored release's export key), and a resumed read asks for
 * the same object (`if-match`). So a product is normalised here, not checked again: checking it in each of
 * the derivation's passes (the plan's two, every range's, the merge's) cost a fifth of their time.
 */
async function* products(
  source: AsyncIterable<Uint8Array>,
  head?: (part: DocumentPart) => void,
  first = 0,
): AsyncGenerator<ReadProduct> {
  for await (const parts of readReleaseDocument(source)) {
    for (const part of parts) {
      if (part.key !== 'products') {
        head?.(part);
        continue;
      }
      if (part.kind !== 'element') continue;
      const index = first + part.index;
      const product = normaliseProduct(part.value as ProductDocument, index, new Issues());
      yield { index, product, offset: part.offset, length: part.length };
    }
  }
}

const OPEN_RANGE = new TextEncoder().encode('{"products":[');
const CLOSE_RANGE = new TextEncoder().encode(']}');

/**
 * The document's bytes passed on to the reader as they are read, and fed to `onRangeBytes` range by range:
 * each chunk is held from when it is read until every range byte in it has been fed (the reader parses a
 * chunk before it asks for the next, so that is the chunk or two around the product just read; more only
 * while a head member before the products is read, which the plan holds parsed anyway).
 */
function rangeTap(
  source: AsyncIterable<Uint8Array>,
  onRangeBytes: ((n: number, piece: Uint8Array) => void) | undefined,
) {
  const held: { at: number; bytes: Uint8Array }[] = [];
  /** The first byte of the open range not fed yet. */
  let fed = 0;
  let fedRange = -1;
  const drop = (to: number) => {
    while (held.length > 0) {
      const first = held[0] as { at: number; bytes: Uint8Array };
      if (first.at + first.bytes.length > to) break;
      held.shift();
    }
  };
  if (onRangeBytes === undefined)
    return {
      source,
      feed: (_range: DeriveRange, _to: number) => undefined,
      drop: (_to: number) => undefined,
    };
  return {
    source: (async function* () {
      let at = 0;
      for await (const chunk of source) {
        held.push({ at, bytes: chunk });
        at += chunk.length;
        yield chunk;
      }
    })(),
    /** Feeds range `range` its bytes up to `to` (the end of the product just read). */
    feed: (range: DeriveRange, to: number) => {
      if (fedRange !== range.n) {
        fedRange = range.n;
        fed = range.offset;
      }
      for (const { at, bytes } of held) {
        const from = Math.max(fed, at);
        const end = Math.min(to, at + bytes.length);
        if (from < end) onRangeBytes(range.n, bytes.subarray(from - at, end - at));
      }
      fed = to;
      drop(to);
    },
    drop,
  };
}

/** A range's bytes read as a document of its products alone. */
async function* rangeDocument(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield OPEN_RANGE;
  yield* source;
  yield CLOSE_RANGE;
}

/** `length` bytes from `offset` of what `open` reads (for a source that has no ranged reads). */
async function* slice(
  source: AsyncIterable<Uint8Array>,
  offset: number,
  length: number,
): AsyncGenerator<Uint8Array> {
  let at = 0;
  const end = offset + length;
  for await (const chunk of source) {
    const from = Math.max(offset - at, 0);
    const to = Math.min(end - at, chunk.length);
    if (from < to) yield chunk.subarray(from, to);
    at += chunk.length;
    if (at >= end) return;
  }
}

/** Two FNV-1a hashes of a string as one exact 53-bit number (distinct values may collide; equal never differ). */
function hash53(value: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 2 ** 21 + ((b >>> 0) & 0x1fffff);
}

/** A growable list of numbers in a Float64Array (8 bytes each). */
class NumberList {
  values = new Float64Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length] = value;
    this.length += 1;
  }
  /** The values that occur more than once. */
  repeated(): Set<number> {
    const sorted = this.values.subarray(0, this.length).sort();
    const out = new Set<number>();
    for (let i = 1; i < sorted.length; i += 1) if (sorted[i] === sorted[i - 1]) out.add(sorted[i] as number);
    return out;
  }
}

/**
 * A family's picks kept compactly while the plan reads: a line a child (its id, then the indexes of its
 * (variation, option) pairs in the family's table), 256 lines to a string. Objects took 246 MB for a million
 * children picking two options; this, about a fifth. Ids and options are UUIDs (the release schema): no
 * `,` or newline in them.
 */
class PickList {
  private readonly pairs = new Map<string, number>();
  private readonly table: [string, string][] = [];
  private readonly blocks: string[] = [];
  private pending: string[] = [];
  length = 0;

  add(id: string, options: Record<string, string>): void {
    let line = id;
    for (const [variation, option] of Object.entries(options)) {
      const key = `${variation}\n${option}`;
      let at = this.pairs.get(key);
      if (at === undefined) {
        at = this.table.length;
        this.pairs.set(key, at);
        this.table.push([variation, option]);
      }
      line += `,${at}`;
    }
    this.pending.push(line);
    this.length += 1;
    if (this.pending.length === 256) {
      this.blocks.push(this.pending.join('\n'));
      this.pending = [];
    }
  }

  /** The picks, in the order added. */
  list(): Picks {
    const out: Picks = [];
    for (const block of [...this.blocks, this.pending.join('\n')]) {
      if (block === '') continue;
      for (const line of block.split('\n')) {
        const [id, ...pairs] = line.split(',');
        const options: Record<string, string> = {};
        for (const at of pairs) {
          const [variation, option] = this.table[Number(at)] as [string, string];
          options[variation] = option;
        }
        out.push({ id: id as string, variation_options: options });
      }
    }
    return out;
  }
}

/** A product list as one string (the plan's and the partials' keys): `<kind>:<owner>`. */
export const listKey = (list: ProductListRef) => `${list.kind}:${list.owner}`;

function listOfKey(key: string): ProductListRef {
  const at = key.indexOf(':');
  return { kind: key.slice(0, at) as ProductListRef['kind'], owner: key.slice(at + 1) };
}

/** The product lists a live product is in (lib/catalog/hierarchy-items.ts), as keys. */
const listsOf = (product: ProductInput, roots: ReadonlyMap<string, string>) =>
  productListsOf(product.node_ids, (id) => roots.get(id)).map(listKey);

/**
 * Each node's hierarchy from the document's `nodes` as read so far, normalised as validation normalises
 * them (ids lower-case); undefined when they are not all read yet or not a list of nodes (the head's
 * validation then decides).
 */
function earlyRoots(nodes: unknown): Map<string, string> | undefined {
  if (!Array.isArray(nodes)) return undefined;
  const normalised: CatalogNode[] = [];
  for (const node of nodes as { id?: unknown; parent_id?: unknown; name?: unknown }[]) {
    if (typeof node !== 'object' || node === null || typeof node.id !== 'string') return undefined;
    const parent = typeof node.parent_id === 'string' && node.parent_id !== '' ? node.parent_id : null;
    normalised.push({
      id: node.id.toLowerCase(),
      name: '',
      parent_id: parent === null ? null : parent.toLowerCase(),
    });
  }
  return hierarchyOf(resolveNodePaths(normalised).paths);
}

const sameRoots = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>) =>
  a.size === b.size && [...a].every(([id, root]) => b.get(id) === root);

/**
 * The plan: what every range's derivation needs, and the ranges. Throws ReleaseValidationError when the
 * document's small members are not valid (its products must have passed validation).
 */
export async function planRelease(
  options: Omit<StreamDeriveOptions, 'emit' | 'openRange'> & {
    /**
     * Given each range's bytes as the first pass reads them (range `n`, its pieces in order, exactly the
     * bytes of its `offset` and `length`): what the release's derivation keys a range by, hashed here
     * so that a range taken up is not read again.
     */
    onRangeBytes?: (n: number, piece: Uint8Array) => void;
  },
): Promise<{ plan: DerivePlan; picks: (range: number) => RangePicks }> {
  const { layout } = options;
  const rangeBytes = options.rangeBytes ?? DERIVE_RANGE_BYTES;
  const rangeProducts = options.rangeProducts ?? DERIVE_RANGE_PRODUCTS;
  const raw: Record<string, unknown> = Object.create(null);
  const lists = new Map<string, unknown[]>();
  const families = new Map<string, { children: number; liveChildren: number; live: PickList }>();
  const components = new Set<string>();
  const slugs = new NumberList();
  const nodeCounts = new Map<string, number>();
  // Each node's hierarchy, when the document's nodes come before its products.
  let roots: Map<string, string> | undefined;
  // Possible parents and components, kept from the first pass with their range (see CANDIDATE_BYTES).
  const candidates = new Map<string, { product: ProductInput; range: number }>();
  let candidateBytes = 0;

  const ranges: DeriveRange[] = [];
  let open: DeriveRange | undefined;
  let live = 0;
  const tap = rangeTap(options.open(), options.onRangeBytes);
  for await (const read of products(tap.source, (part) => {
    // Past this member's bytes no range's are (the products are one run, and this is not among them).
    tap.drop(part.offset + part.length);
    if (part.kind === 'value') raw[part.key] = part.value;
    else {
      const list = lists.get(part.key) ?? [];
      lists.set(part.key, list);
      if (part.kind === 'element') list.push(part.value);
      else raw[part.key] = list;
    }
  })) {
    const { product } = read;
    roots ??= earlyRoots(raw.nodes) ?? new Map();
    if (!open) {
      open = {
        n: ranges.length,
        first: read.index,
        count: 0,
        offset: read.offset,
        length: 0,
        live_start: live,
        node_start: [...nodeCounts],
      };
      ranges.push(open);
    }
    open.count += 1;
    open.length = read.offset + read.length - open.offset;
    tap.feed(open, read.offset + read.length);

    const a = product.attributes;
    const isLive = a.status === 'live';
    if (a.base_product_id !== undefined) {
      let family = families.get(a.base_product_id);
      if (!family) {
        family = { children: 0, liveChildren: 0, live: new PickList() };
        families.set(a.base_product_id, family);
      }
      family.children += 1;
      if (isLive) {
        family.liveChildren += 1;
        if (Object.keys(product.variation_options).length > 0) {
          family.live.add(product.id, product.variation_options);
        }
      }
    }
    const candidate = product.variations.length > 0 || components.has(product.id);
    if (candidate && candidateBytes + read.length <= CANDIDATE_BYTES) {
      candidates.set(product.id, { product, range: open.n });
      candidateBytes += read.length;
    }
    for (const component of Object.values(a.components ?? {})) {
      for (const option of component.options) components.add(option.id);
    }
    if (isLive) {
      slugs.push(hash53(a.slug ?? slugFromName(a.name, product.id)));
      for (const key of listsOf(product, roots)) nodeCounts.set(key, (nodeCounts.get(key) ?? 0) + 1);
      live += 1;
    }
    // A range ends once it is big enough, where the release index's next chunk begins.
    if ((open.length >= rangeBytes || open.count >= rangeProducts) && live % layout.chunk_size === 0) {
      open = undefined;
    }
  }
  for (const [key, list] of lists) raw[key] ??= list;
  const headCheck = validateReleaseHead({ ...raw, products: [] });
  if (!headCheck.ok) throw new ReleaseValidationError(headCheck.issues, headCheck.total);
  const { head } = headCheck;
  const repeatedSlugs = slugs.repeated();
  slugs.values = new Float64Array(0);

  // The hierarchies' lists need each node's hierarchy: counted again when the nodes came too late.
  const headRoots = hierarchyOf(resolveNodePaths(head.nodes).paths);
  if (roots === undefined || !sameRoots(roots, headRoots)) {
    await recountHierarchyLists(options.open, headRoots, ranges, nodeCounts);
  }

  // The inputs others need: kept by the first pass, or read by a second.
  const held = new Map<string, ProductInput>();
  const heldRange = new Map<string, number>();
  const missing = new Set<string>();
  for (const id of [...families.keys(), ...components]) {
    const kept = candidates.get(id);
    if (kept) {
      held.set(id, kept.product);
      heldRange.set(id, kept.range);
    } else missing.add(id);
  }
  candidates.clear();
  if (missing.size > 0) {
    const rangeOf = (index: number) => {
      let low = 0;
      let high = ranges.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if ((ranges[mid] as DeriveRange).first <= index) low = mid;
        else high = mid - 1;
      }
      return low;
    };
    for await (const { index, product } of products(options.open())) {
      if (!missing.has(product.id)) continue;
      held.set(product.id, product);
      heldRange.set(product.id, rangeOf(index));
    }
  }

  // Each range's picks, made when asked for (one range's at a time in memory, not every family's).
  const parentsOf: string[][] = ranges.map(() => []);
  for (const [id, family] of families) {
    const range = heldRange.get(id);
    if (range !== undefined && family.live.length > 0) parentsOf[range]?.push(id);
  }
  const picks = (range: number): RangePicks =>
    (parentsOf[range] ?? []).map((id) => [id, (families.get(id) as { live: PickList }).live.list()]);
  const plan: DerivePlan = {
    catalog_id: options.catalogId,
    layout,
    head,
    currencies: head.currencies ?? options.storeCurrencies,
    families: [...families].map(([id, family]) => [id, family.children, family.liveChildren]),
    held: [...held.values()],
    held_picks: [...components].flatMap((id): [string, Picks][] => {
      const family = families.get(id);
      return family && family.live.length > 0 ? [[id, family.live.list()]] : [];
    }),
    repeated_slugs: [...repeatedSlugs],
    live_total: live,
    segment: options.releaseSegment ?? RELEASE_SEGMENT,
    node_totals: [...nodeCounts],
    ranges,
  };
  return { plan, picks };
}

/** What deriving needs of a plan, as maps: the derivation's scope over `picks` (a range's, or all). */
function scopeOf(plan: DerivePlan, picks: Iterable<[string, Picks]>) {
  const held = new Map(plan.held.map((product) => [product.id, product]));
  const familyPicks = new Map<string, Picks>(plan.held_picks);
  for (const [id, list] of picks) familyPicks.set(id, list);
  const families = new Map<string, FamilyFacts>(
    plan.families.map(([id, children, liveChildren]) => [
      id,
      { children, liveChildren, live: familyPicks.get(id) ?? [] },
    ]),
  );
  const { paths } = resolveNodePaths(plan.head.nodes);
  const scope: DeriveScope = {
    document: plan.head,
    paths,
    context: {
      catalogId: plan.catalog_id,
      publishedAt: plan.layout.published_at,
      currencies: plan.currencies,
    },
    product: (id) => held.get(id),
    family: (id) => families.get(id),
  };
  return { scope, held, families };
}

/** Emits items, counting them and calling `onOversize` for one larger than an item may be. */
function itemSink(emit: StreamDeriveOptions['emit']) {
  const sink = {
    emitted: 0,
    async emit(item: ReleaseItem, onOversize?: (bytes: number) => void) {
      if (typeof item.d !== 'string' || item.d.length * 3 > MAX_ITEM_BYTES) {
        const bytes =
          typeof item.d === 'string' ? Buffer.byteLength(item.d) : (item.z as Uint8Array).byteLength;
        if (bytes > MAX_ITEM_BYTES) onOversize?.(bytes);
      }
      sink.emitted += 1;
      await emit(item);
    },
  };
  return sink;
}

const oversizedChunkIssue = (issues: ValidationIssue[]) => (bytes: number) =>
  issues.push({
    path: 'products',
    rule: 'item_size',
    message: `a child index chunk takes ${bytes} bytes as stored; at most ${MAX_ITEM_BYTES} fit in one item`,
  });

/** A family's child index chunks and filter index. */
async function emitFamily(
  sink: ReturnType<typeof itemSink>,
  layout: ReleaseLayout,
  parentId: string,
  entries: ChildIndexEntry[],
  onOversize: (bytes: number) => void,
) {
  for (const [n, chunk] of chunkEntries(entries, layout.chunk_size).entries()) {
    await sink.emit(catalogRepository.chunkItem(layout, parentId, n, encodeChunk(chunk)), onOversize);
  }
  for (const item of filterIndexItems(layout, parentId, entries)) await sink.emit(item, onOversize);
}

/** Segment `n` of the release-wide filter index, once all its entries are known; its bucket counts. */
async function emitSegment(
  sink: ReturnType<typeof itemSink>,
  layout: ReleaseLayout,
  n: number,
  entries: readonly ChildIndexEntry[],
  onOversize: (bytes: number) => void,
): Promise<[number, number[]]> {
  const { items, counts } = releasePostings(layout, n, entries);
  for (const item of items) await sink.emit(item, onOversize);
  return [n, counts];
}

/** Entries in segment `n` of the plan's release-wide index. */
const segmentLength = (plan: DerivePlan, n: number) =>
  Math.min(plan.segment, plan.live_total - n * plan.segment);

const nodeListItem = (layout: ReleaseLayout, key: string, chunk: number, ids: string[]) =>
  catalogRepository.nodeListItem(layout, { ...listOfKey(key), chunk }, encodeIdList(ids));

/**
 * One range's products derived and their items emitted (`source` reads the range's bytes: an S3 ranged
 * GET in the workflow); what crosses its edges is answered for the merge.
 */
export async function deriveRange(options: {
  plan: DerivePlan;
  /** The range's picks (RangePicks of the plan). */
  picks: RangePicks;
  range: DeriveRange;
  source: AsyncIterable<Uint8Array>;
  emit: StreamDeriveOptions['emit'];
}): Promise<RangePartial> {
  const { plan, range } = options;
  const { layout } = plan;
  const publishedAt = layout.published_at;
  const { scope, held, families } = scopeOf(plan, options.picks);
  const repeatedSlugs = new Set(plan.repeated_slugs);
  const cache = new Map();
  const sink = itemSink(options.emit);
  const productIssues: ValidationIssue[] = [];
  const otherIssues: ValidationIssue[] = [];
  const oversizedChunk = oversizedChunkIssue(otherIssues);

  // The budget of product pages: bounded from the stored sizes (the merge goes exact when they do not fit).
  const files = plan.head.files.map(renderFile);
  const fileIndex = new Map(files.map((file, index) => [file.id, index]));
  const fileChars = files.map((file) => {
    const stored = catalogRepository.fileItem(layout, file).d;
    return typeof stored === 'string' ? stored.length : 0;
  });
  const bounded = boundedMeasure([], fileChars);
  const boundedOf = (chars: number) => 3 * (chars + 64 + 16) + 1;
  const componentChars = new Map<string, number | undefined>();
  const componentWeight = (id: string): number => {
    if (!componentChars.has(id)) {
      const input = held.get(id);
      const derived = input && deriveProduct(input, scope, cache);
      const stored = derived?.stored.live
        ? catalogRepository.productItem(layout, derived.stored).d
        : undefined;
      componentChars.set(id, typeof stored === 'string' ? stored.length : undefined);
    }
    const chars = componentChars.get(id);
    return chars === undefined ? 0 : boundedOf(chars);
  };
  const weigh = (stored: StoredProduct, ownChars: number, index: number) => {
    let bytes = boundedOf(ownChars);
    for (const id of new Set([...relatedIds(stored, 'main_image'), ...relatedIds(stored, 'files')])) {
      const at = fileIndex.get(id);
      if (at !== undefined) bytes += bounded.file(files[at] as never, at) + 1;
    }
    for (const id of new Set(relatedIds(stored, 'component_products'))) bytes += componentWeight(id);
    return { index, id: stored.resource.id, bytes };
  };
  const heaviest = new Heaviest();

  const counts = emptyCounts();
  const childEntries = new Map<string, ChildIndexEntry[]>();
  const indexChunk: ChildIndexEntry[] = [];
  let indexChunks = range.live_start / layout.chunk_size;
  let livePosition = range.live_start;
  // The current segment of the release-wide filter index: its entries here, from position segmentFirst.
  let segmentEntries: ChildIndexEntry[] = [];
  let segmentFirst = range.live_start;
  const segments: RangePartial['segments'] = [];
  const segmentBuckets: RangePartial['segment_buckets'] = [];
  const slugLists = new Map<string, LookupEntry[]>();
  // Each product list since its last chunk boundary here: where it began (a position in the list).
  const roots = hierarchyOf(scope.paths);
  const nodeCounts = new Map<string, number>(range.node_start);
  const nodeLists = new Map<string, { first: number; ids: string[] }>();
  const fragments: RangePartial['node_fragments'] = [];

  for await (const { index, product } of products(rangeDocument(options.source), undefined, range.first)) {
    const derived = deriveProduct(product, scope, cache);
    const { stored } = derived;
    countProduct(counts, derived);
    const item = catalogRepository.productItem(layout, stored);
    await sink.emit(item, (bytes) =>
      productIssues.push({
        path: `products[${index}]`,
        rule: 'item_size',
        message: `the product takes ${bytes} bytes as stored; at most ${MAX_ITEM_BYTES} fit in one item`,
      }),
    );
    // A parent without live children: its (empty) family is complete now.
    if (derived.isBase && (families.get(product.id)?.liveChildren ?? 0) === 0) {
      await emitFamily(sink, layout, product.id, [], oversizedChunk);
    }
    if (!stored.live) continue;
    heaviest.add(weigh(stored, (item.d as string).length, index));

    const parentId = product.attributes.base_product_id;
    if (parentId !== undefined && held.has(parentId)) {
      const entries = childEntries.get(parentId) ?? [];
      entries.push(indexEntry(product, publishedAt));
      childEntries.set(parentId, entries);
      // The family's index is complete once its last live child is read, when all its live children are here.
      if (entries.length === (families.get(parentId) as FamilyFacts).liveChildren) {
        await emitFamily(sink, layout, parentId, entries, oversizedChunk);
        childEntries.delete(parentId);
      }
    }

    const entry = indexEntryOf(stored);
    indexChunk.push(entry);
    if (indexChunk.length === layout.chunk_size) {
      await sink.emit(catalogLookupItem(layout, indexChunks, indexChunk), oversizedChunk);
      indexChunks += 1;
      indexChunk.length = 0;
    }
    for (const attribute of LOOKUP_ATTRIBUTES) {
      const value = entry[attribute];
      if (value === '') continue;
      const listed = { ...entry, pos: livePosition };
      if (attribute === 'slug' && repeatedSlugs.has(hash53(value))) {
        const list = slugLists.get(value) ?? [];
        list.push(listed);
        slugLists.set(value, list);
        continue;
      }
      await sink.emit(lookupItem(layout, attribute, value, [listed]), oversizedChunk);
    }
    livePosition += 1;
    segmentEntries.push(entry);
    if (livePosition % plan.segment === 0 || livePosition === plan.live_total) {
      // A segment ends here: written if it began here too, else left to the merge.
      const n = Math.floor((livePosition - 1) / plan.segment);
      if (segmentFirst === n * plan.segment)
        segmentBuckets.push(await emitSegment(sink, layout, n, segmentEntries, oversizedChunk));
      else segments.push([n, segmentEntries]);
      segmentEntries = [];
      segmentFirst = livePosition;
    }

    for (const key of listsOf(product, roots)) {
      const position = nodeCounts.get(key) ?? 0;
      nodeCounts.set(key, position + 1);
      let list = nodeLists.get(key);
      if (!list) {
        list = { first: position, ids: [] };
        nodeLists.set(key, list);
      }
      list.ids.push(product.id);
      if ((position + 1) % NODE_LIST_CHUNK !== 0) continue;
      // A chunk ends here: whole if it began here too, else a fragment for the merge.
      const chunk = Math.floor(position / NODE_LIST_CHUNK);
      if (list.first === chunk * NODE_LIST_CHUNK)
        await sink.emit(nodeListItem(layout, key, chunk, list.ids), oversizedChunk);
      else fragments.push([key, chunk, list.ids]);
      nodeLists.set(key, { first: position + 1, ids: [] });
    }
  }
  // The release index's last chunk, in the range of the last live product (ranges begin at whole chunks).
  if (indexChunk.length > 0)
    await sink.emit(catalogLookupItem(layout, indexChunks, indexChunk), oversizedChunk);
  for (const [key, list] of nodeLists) {
    if (list.ids.length > 0) fragments.push([key, Math.floor(list.first / NODE_LIST_CHUNK), list.ids]);
  }
  if (segmentEntries.length > 0) segments.push([Math.floor(segmentFirst / plan.segment), segmentEntries]);
  return {
    n: range.n,
    items: sink.emitted,
    counts,
    product_issues: productIssues,
    other_issues: otherIssues,
    heaviest: heaviest.entries(),
    families: [...childEntries],
    slugs: [...slugLists],
    node_fragments: fragments,
    segments,
    segment_buckets: segmentBuckets,
  };
}

/**
 * The merge: the ranges' partials (in range order) joined into the items they complete, then the files, the
 * release summary, the nodes and hierarchies, and the budget. Throws ReleaseValidationError with every
 * issue the ranges and the merge found.
 */
export async function mergeRelease(options: {
  plan: DerivePlan;
  partials: AsyncIterable<RangePartial> | Iterable<RangePartial>;
  /** Every range's picks: read only for the exact budget (when the bounds do not fit). */
  allPicks: () => Promise<RangePicks[]>;
  open: () => AsyncIterable<Uint8Array>;
  emit: StreamDeriveOptions['emit'];
}): Promise<StreamDeriveResult> {
  const { plan } = options;
  const { layout, head, catalog_id: catalogId } = plan;
  const sink = itemSink(options.emit);
  const counts = emptyCounts();
  const productIssues: ValidationIssue[] = [];
  const otherIssues: ValidationIssue[] = [];
  const oversizedChunk = oversizedChunkIssue(otherIssues);
  const heaviest = new Heaviest();
  const liveChildren = new Map(plan.families.map(([id, , live]) => [id, live]));
  const nodeTotals = new Map(plan.node_totals);
  const familyEntries = new Map<string, ChildIndexEntry[]>();
  const slugLists = new Map<string, LookupEntry[]>();
  const chunks = new Map<string, string[]>();
  const segmentEntries = new Map<number, ChildIndexEntry[]>();
  const segmentBuckets = new Map<number, number[]>();
  let items = 0;

  for await (const partial of options.partials) {
    items += partial.items;
    for (const [key, value] of Object.entries(partial.counts) as [keyof ReleaseCounts, number][]) {
      counts[key] += value;
    }
    productIssues.push(...partial.product_issues);
    otherIssues.push(...partial.other_issues);
    for (const weighed of partial.heaviest) heaviest.add(weighed);
    for (const [parentId, entries] of partial.families) {
      const joined = familyEntries.get(parentId) ?? [];
      for (const entry of entries) joined.push(entry);
      familyEntries.set(parentId, joined);
      if (joined.length === liveChildren.get(parentId)) {
        await emitFamily(sink, layout, parentId, joined, oversizedChunk);
        familyEntries.delete(parentId);
      }
    }
    for (const [slug, entries] of partial.slugs) {
      const joined = slugLists.get(slug) ?? [];
      for (const entry of entries) joined.push(entry);
      slugLists.set(slug, joined);
    }
    for (const [list, chunk, ids] of partial.node_fragments) {
      const key = `${chunk}:${list}`;
      const joined = chunks.get(key) ?? [];
      for (const id of ids) joined.push(id);
      const total = nodeTotals.get(list) ?? 0;
      // Complete: a whole chunk, or the list's last one.
      if (joined.length === Math.min(NODE_LIST_CHUNK, total - chunk * NODE_LIST_CHUNK)) {
        await sink.emit(nodeListItem(layout, list, chunk, joined), oversizedChunk);
        chunks.delete(key);
      } else chunks.set(key, joined);
    }
    for (const [n, counts] of partial.segment_buckets) segmentBuckets.set(n, counts);
    for (const [n, entries] of partial.segments) {
      const joined = segmentEntries.get(n) ?? [];
      for (const entry of entries) joined.push(entry);
      if (joined.length === segmentLength(plan, n)) {
        const [, counts] = await emitSegment(sink, layout, n, joined, oversizedChunk);
        segmentBuckets.set(n, counts);
        segmentEntries.delete(n);
      } else segmentEntries.set(n, joined);
    }
  }
  const segmentCount = Math.ceil(plan.live_total / plan.segment);
  if (
    familyEntries.size > 0 ||
    chunks.size > 0 ||
    segmentEntries.size > 0 ||
    segmentBuckets.size !== segmentCount
  ) {
    throw new Error(
      'the ranges left families, node lists or index segments incomplete: the partials do not match the plan',
    );
  }

  const files = head.files.map(renderFile);
  const fileIssues: ValidationIssue[] = [];
  for (const [index, file] of files.entries()) {
    await sink.emit(catalogRepository.fileItem(layout, file), (bytes) =>
      fileIssues.push({
        path: `files[${index}]`,
        rule: 'item_size',
        message: `the file takes ${bytes} bytes as stored; at most ${MAX_ITEM_BYTES} fit in one item`,
      }),
    );
  }
  for (const [value, list] of slugLists)
    await sink.emit(lookupItem(layout, 'slug', value, list), oversizedChunk);
  const filterIndex = {
    segment: plan.segment,
    buckets: Array.from({ length: segmentCount }, (_, n) => segmentBuckets.get(n) as number[]),
  };
  await sink.emit(
    releaseSummaryItem(head, { catalogId, layout }, plan.live_total, filterIndex),
    oversizedChunk,
  );

  // The nodes: rendered with their product lists' lengths; their children and descendants lists.
  const hierarchy = buildHierarchyItems(
    { nodes: head.nodes, products: [] },
    { catalogId, publishedAt: layout.published_at },
  );
  for (const [owner, node] of hierarchy.nodes) {
    node.products = nodeTotals.get(listKey({ owner, kind: 'products' })) ?? 0;
    if (node.hierarchy_products !== undefined)
      node.hierarchy_products = nodeTotals.get(listKey({ owner, kind: 'hierarchy_products' })) ?? 0;
  }
  for (const item of hierarchyReleaseItems(hierarchy, layout)) await sink.emit(item, oversizedChunk);

  const budget: ValidationIssue[] = [];
  if (heaviest.total() > PAGE_BUDGET_BYTES) {
    const { scope } = scopeOf(plan, (await options.allPicks()).flat());
    budget.push(...(await exactProductBudget(options.open, scope, files)));
  }
  budget.push(
    ...pageBudgetIssues(
      nodePageWeights(
        head.nodes.map((node) => node.id),
        hierarchy.nodes,
      ),
      'nodes',
    ),
  );
  const issues = [...productIssues, ...fileIssues, ...otherIssues, ...budget];
  if (issues.length > 0) throw new ReleaseValidationError(issues, issues.length);
  return { counts, items: items + sink.emitted, totalNodes: head.nodes.length, head };
}

/**
 * The hierarchies' product lists counted in a pass of their own (when the first pass read the products
 * before knowing each node's hierarchy): each range's starting counts and the totals, in place of the
 * first pass's.
 */
async function recountHierarchyLists(
  open: () => AsyncIterable<Uint8Array>,
  roots: ReadonlyMap<string, string>,
  ranges: DeriveRange[],
  totals: Map<string, number>,
): Promise<void> {
  const isHierarchyList = (key: string) => listOfKey(key).kind === 'hierarchy_products';
  for (const key of [...totals.keys()]) if (isHierarchyList(key)) totals.delete(key);
  const counts = new Map<string, number>();
  let next = 0;
  for await (const { index, product } of products(open())) {
    const range = ranges[next];
    if (range !== undefined && range.first === index) {
      range.node_start = [...range.node_start.filter(([key]) => !isHierarchyList(key)), ...counts];
      next += 1;
    }
    if (product.attributes.status !== 'live') continue;
    for (const key of listsOf(product, roots)) {
      if (isHierarchyList(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  for (const [key, count] of counts) totals.set(key, count);
}

/** The three parts in one process, one range after another. */
export async function deriveReleaseStream(options: StreamDeriveOptions): Promise<StreamDeriveResult> {
  const { plan, picks } = await planRelease(options);
  const openRange =
    options.openRange ?? ((offset: number, length: number) => slice(options.open(), offset, length));
  const partials: RangePartial[] = [];
  for (const range of plan.ranges) {
    partials.push(
      await deriveRange({
        plan,
        picks: picks(range.n),
        range,
        source: openRange(range.offset, range.length),
        emit: options.emit,
      }),
    );
  }
  const merged = await mergeRelease({
    plan,
    partials,
    allPicks: async () => plan.ranges.map((range) => picks(range.n)),
    open: options.open,
    emit: options.emit,
  });
  return merged;
}

function catalogLookupItem(layout: ReleaseLayout, n: number, entries: ChildIndexEntry[]): ReleaseItem {
  return catalogLookupRepository.indexChunkItem(layout, n, encodeChunk(entries));
}

/**
 * The product pages' budget rendered exactly (a fourth pass, only when the bounds from the stored sizes do
 * not fit): every live product at its largest, with its files and live components (see size-budget.ts).
 */
async function exactProductBudget(
  open: () => AsyncIterable<Uint8Array>,
  scope: DeriveScope,
  files: FileResource[],
): Promise<ValidationIssue[]> {
  const cache = new Map();
  const fileBytes = new Map(files.map((file, index) => [file.id, EXACT.file(file, index) + 1]));
  const componentBytes = new Map<string, number>();
  const liveBytes = (id: string): number => {
    let bytes = componentBytes.get(id);
    if (bytes === undefined) {
      const input = scope.product(id);
      const derived = input && deriveProduct(input, scope, cache);
      bytes = derived?.stored.live ? EXACT.product(derived.stored, 0) + 1 : 0;
      componentBytes.set(id, bytes);
    }
    return bytes;
  };
  const weights: Weighed[] = [];
  for await (const { index, product } of products(open())) {
    const { stored } = deriveProduct(product, scope, cache);
    if (!stored.live) continue;
    let bytes = EXACT.product(stored, index) + 1;
    for (const id of new Set([...relatedIds(stored, 'main_image'), ...relatedIds(stored, 'files')])) {
      bytes += fileBytes.get(id) ?? 0;
    }
    for (const id of new Set(relatedIds(stored, 'component_products'))) bytes += liveBytes(id);
    weights.push({ index, id: stored.resource.id, bytes });
  }
  return pageBudgetIssues(weights, 'products');
}
