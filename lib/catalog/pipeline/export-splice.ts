import { getConfig } from '../../config/index';
import { catalogChangeRepository } from '../../store/catalog-change-repository';
import { CHANGE_WINDOW_MS } from '../../store/catalog-changes';
import type { ComposePiece } from '../../store/compose-parts';
import { settleAll } from '../../store/items';
import { nodeRepository } from '../../store/node-repository';
import { ObjectNotFoundError, objectStore } from '../../store/object-store';
import type { AuthoredSources } from '../../store/pcm-repository';
import { type ProductRecord, productRepository } from '../../store/product-repository';
import { tableName } from '../../store/schema';
import type { Product as DocumentProduct, Variation as DocumentVariation } from '../release-input.generated';
import { documentProduct } from './authored-document';
import { readLines, readText } from './codec';
import {
  authoredDocument,
  bookModifiers,
  catalogHead,
  childIdsOf,
  EXPORT_PAGE,
  inOrder,
  PAGES_IN_FLIGHT,
  pricesOf,
  saleBoundaries,
  variationsOf,
} from './export';
import {
  type ExportTrailer,
  familyLine,
  INDEX_FORMAT,
  type IndexedFamily,
  indexWriter,
  LineChannel,
  readFamilies,
} from './export-index';
import { authoredDocumentKey } from './workflow';

/**
 * Exporting only what changed: an authored release's document is the document of the release before it
 * with the families the store's change log names since that release's export written again in place
 * (docs/publishing.md, "Exporting only what changed"). Whatever the log cannot bound (a node of the
 * catalog's hierarchies or an attachment to one, a variation, price book, file or currency written; a
 * product of the release deleted or no longer live; a live product attached that was not in it; a changed product naming other files or components; a sale
 * starting or ending in between; the release before exported over a day ago or without an index) makes a
 * whole export instead, which writes exactly the same document: the tests hold the two byte for byte.
 */

/** More changed products than this: a whole export (the changed families are held in memory). */
export const SPLICE_MAX_PRODUCTS = 20_000;

/** A changed family longer than this: a whole export (its old and new text are held at once). */
export const SPLICE_MAX_FAMILY_BYTES = 16 * 1024 * 1024;

/**
 * Where an authored release's export is, kept with the release: the document (its `document_key`, where
 * Export writes it), its index and its trailer.
 */
export const exportObjects = {
  document: (storeId: string, catalogId: string, releaseId: string) =>
    authoredDocumentKey({ store_id: storeId, catalog_id: catalogId, release_id: releaseId }),
  index: (storeId: string, catalogId: string, releaseId: string) =>
    besideExport(exportObjects.document(storeId, catalogId, releaseId)).index,
  trailer: (storeId: string, catalogId: string, releaseId: string) =>
    besideExport(exportObjects.document(storeId, catalogId, releaseId)).trailer,
};

/** The index and trailer Export writes beside a document at `documentKey`. */
export const besideExport = (documentKey: string) => ({
  index: documentKey.replace(/\.json$/, '.index'),
  trailer: documentKey.replace(/\.json$/, '.export.json'),
});

/** A family written again: the one it replaces (with its line in the index), its new text and products. */
interface Rewritten {
  family: IndexedFamily;
  text: string;
  ids: string[];
}

export type SplicePlan =
  | { whole: string }
  | {
      base: {
        release: string;
        document: string;
        index: string;
        bytes: number;
        /** The index's bytes. */
        indexBytes: number;
        trailer: ExportTrailer;
      };
      rewritten: Rewritten[];
      /** Sale boundaries of the products written again. */
      boundaries: number[];
      /** Products the change log named. */
      changed: number;
    };

interface SpliceInput {
  storeId: string;
  catalog: { id: string; name: string; sources: AuthoredSources };
  at: Date;
  /** The catalog's current release, if any. */
  baseReleaseId: string | undefined;
  now?: number;
}

const sameSources = (a: AuthoredSources, b: AuthoredSources) =>
  a.hierarchy_ids.join() === b.hierarchy_ids.join() && a.pricebook_ids.join() === b.pricebook_ids.join();

/**
 * The ids of the files and components document products name, in order, as one string: the order decides
 * the order of the document's files and of the components written after the hierarchies' products.
 */
function named(entries: DocumentProduct[]): string {
  const ids: string[] = [];
  for (const entry of entries) {
    if (entry.main_image) ids.push(`f:${entry.main_image}`);
    for (const file of entry.files ?? []) ids.push(`f:${file.id}`);
    for (const component of Object.values(entry.attributes.components ?? {}))
      for (const option of component.options) ids.push(`c:${option.id}`);
  }
  return ids.join(' ');
}

/** Whether a product is attached to a node of one of these hierarchies. */
async function attachedTo(storeId: string, productId: string, hierarchyIds: readonly string[]) {
  const attachments = await nodeRepository.attachmentsOfProduct(storeId, productId);
  return attachments.some((attachment) => hierarchyIds.includes(attachment.hierarchy_id));
}

/** Reads the release before's trailer, or says why there is none to build on. */
async function baseTrailer(input: SpliceInput): Promise<ExportTrailer | string> {
  if (input.baseReleaseId === undefined) return 'the catalog has no release before this one';
  const key = exportObjects.trailer(input.storeId, input.catalog.id, input.baseReleaseId);
  try {
    return JSON.parse(await readText(objectStore.read(key))) as ExportTrailer;
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return 'the release before kept no export';
    throw error;
  }
}

/**
 * What this release's export takes from the release before and what it writes again, or why it is a whole
 * export.
 */
export async function planSplice(input: SpliceInput): Promise<SplicePlan> {
  const { storeId, catalog, at } = input;
  const now = input.now ?? Date.now();
  const trailer = await baseTrailer(input);
  if (typeof trailer === 'string') return { whole: trailer };
  if (!sameSources(trailer.sources, catalog.sources))
    return { whole: "the catalog's hierarchies or price books changed" };
  if (at.getTime() < trailer.at) return { whole: 'the release before is newer than this one' };
  if (trailer.next_boundary !== null && trailer.next_boundary <= at.getTime())
    return { whole: 'a sale started or ended since the release before' };
  if (now - trailer.started_at > CHANGE_WINDOW_MS)
    return { whole: 'the release before was exported over a day ago' };
  const baseRelease = input.baseReleaseId as string;
  const base = {
    release: baseRelease,
    document: exportObjects.document(storeId, catalog.id, baseRelease),
    index: exportObjects.index(storeId, catalog.id, baseRelease),
    trailer,
  };
  const bytes = (await objectStore.head(base.document))?.bytes;
  if (bytes === undefined) return { whole: 'the release before kept no export' };

  const changes = await catalogChangeRepository.since(
    storeId,
    tableName('products'),
    trailer.started_at - getConfig().exportChangeMarginSeconds * 1000,
    now,
  );
  if (changes.structure)
    return { whole: 'a variation, price book, price modifier, file or currency changed' };
  if (catalog.sources.hierarchy_ids.some((id) => changes.hierarchies.has(id)))
    return { whole: "a node of the catalog's hierarchies, or what is attached to one, changed" };
  const changed = new Set(changes.products);
  for (const id of await productRepository.idsOfSkuHashes(storeId, [...changes.skus])) changed.add(id);
  if (changed.size > SPLICE_MAX_PRODUCTS) return { whole: `over ${SPLICE_MAX_PRODUCTS} products changed` };

  const found = new Map((await productRepository.getMany(storeId, [...changed])).map((p) => [p.id, p]));
  const heads = new Set([...found.values()].map((product) => product.parent_id ?? product.id));
  const missingHeads = [...heads].filter((id) => !found.has(id));
  for (const head of await productRepository.getMany(storeId, missingHeads)) found.set(head.id, head);

  // The families of the release before that hold a changed product or head.
  const wanted = new Set([...changed, ...heads]);
  const families: IndexedFamily[] = [];
  const inBase = new Set<string>();
  let indexBytes = 0;
  for await (const family of readFamilies(readLines(objectStore.read(base.index)), trailer)) {
    indexBytes = family.line[0] + family.line[1];
    const hits = family.ids.filter((id) => wanted.has(id));
    if (hits.length === 0) continue;
    families.push(family);
    for (const id of hits) inBase.add(id);
  }
  for (const id of changed) {
    const product = found.get(id);
    if (product === undefined) {
      if (inBase.has(id)) return { whole: 'a product of the release before was deleted' };
      continue;
    }
    const headId = product.parent_id ?? product.id;
    if (inBase.has(id) || inBase.has(headId)) continue;
    // Not in the release before: its family enters only through a live product attached to the catalog's
    // hierarchies (then the family's place is new: a whole export).
    for (const one of [product, found.get(headId)]) {
      if (
        one?.attributes.status === 'live' &&
        (await attachedTo(storeId, one.id, catalog.sources.hierarchy_ids))
      )
        return { whole: "a product attached to the catalog's hierarchies went live" };
    }
  }

  const modifiers = new Set(Object.keys(await bookModifiers(storeId, catalog.sources.pricebook_ids)));
  const context: FamilyContext = {
    storeId,
    catalog,
    at,
    document: base.document,
    found,
    modifiers,
    variations: new Map(),
  };
  const sorted = families.sort((a, b) => a.offset - b.offset);
  const pages = Array.from(
    { length: Math.ceil(sorted.length / EXPORT_PAGE) },
    (_, n) => () => rewritePage(context, sorted.slice(n * EXPORT_PAGE, (n + 1) * EXPORT_PAGE)),
  );
  const rewritten: Rewritten[] = [];
  const boundaries: number[] = [];
  for await (const page of inOrder(pages, PAGES_IN_FLIGHT)) {
    if ('whole' in page) return page;
    rewritten.push(...page.rewritten);
    boundaries.push(...page.boundaries);
  }
  return { base: { ...base, bytes, indexBytes }, rewritten, boundaries, changed: changed.size };
}

/** What rewriting a family needs besides the family. */
interface FamilyContext {
  storeId: string;
  catalog: SpliceInput['catalog'];
  at: Date;
  /** The release before's document. */
  document: string;
  /** The changed products and their heads, read. */
  found: Map<string, ProductRecord>;
  modifiers: ReadonlySet<string>;
  variations: Map<string, DocumentVariation | null>;
}

/**
 * A page of changed families written again (their old text read in ranges at once, their children and
 * prices in batches, as a whole export reads a page), or why the export must be whole.
 */
async function rewritePage(
  context: FamilyContext,
  families: IndexedFamily[],
): Promise<{ whole: string } | { rewritten: Rewritten[]; boundaries: number[] }> {
  const { storeId, catalog, at, found } = context;
  if (families.some((family) => family.length > SPLICE_MAX_FAMILY_BYTES))
    return { whole: 'a changed family is over 16 MB of document' };
  const texts = await Promise.all(
    families.map((family) =>
      readText(
        objectStore.read(context.document, { start: family.offset, end: family.offset + family.length - 1 }),
      ),
    ),
  );
  const missing = families.map((family) => family.ids[0] as string).filter((id) => !found.has(id));
  const read = new Map((await productRepository.getMany(storeId, missing)).map((p) => [p.id, p]));
  const heads: ProductRecord[] = [];
  for (const family of families) {
    const head = found.get(family.ids[0] as string) ?? read.get(family.ids[0] as string);
    if (head === undefined) return { whole: 'a product of the release before was deleted' };
    heads.push(head);
  }
  const childIds = await Promise.all(heads.map((head) => childIdsOf(storeId, head)));
  const children = new Map(
    (await productRepository.getMany(storeId, childIds.flat())).map((child) => [child.id, child]),
  );
  const memberLists = heads.map((head, n) => [
    head,
    ...(childIds[n] ?? []).flatMap((id) => children.get(id) ?? []),
  ]);
  const prices = await pricesOf(storeId, catalog.sources.pricebook_ids, memberLists.flat());
  const rewritten: Rewritten[] = [];
  const boundaries: number[] = [];
  for (const [n, family] of families.entries()) {
    const before = JSON.parse(`[${texts[n]}]`) as DocumentProduct[];
    const placed = new Map(before.map((entry) => [entry.id, entry]));
    const members = memberLists[n] as ProductRecord[];
    for (const member of members) {
      const was = placed.get(member.id);
      // An attached product's status decides whether, and where, its family is written: a change moves it.
      if (was?.node_ids !== undefined && was.node_ids.length > 0) {
        if ((was.attributes.status === 'live') !== (member.attributes.status === 'live'))
          return { whole: 'a product attached to the catalog went live or stopped being live' };
      }
      if (was !== undefined) continue;
      // A child built since: it is in the release through its parent, unless a node holds it (a whole export then).
      if (await attachedTo(storeId, member.id, catalog.sources.hierarchy_ids))
        return { whole: "a product attached to the catalog's hierarchies went live" };
    }
    const entries: DocumentProduct[] = [];
    for (const member of members) {
      const price = prices.get(member.id);
      boundaries.push(...saleBoundaries(price, at));
      const was = placed.get(member.id);
      entries.push(
        documentProduct(member, {
          node_ids: was?.node_ids ?? [],
          curated: was?.attributes.curated_product === true,
          ...(price === undefined ? {} : { price }),
          variations: await variationsOf(storeId, member, context.variations),
          modifiers: context.modifiers,
          at,
        }),
      );
    }
    if (named(entries) !== named(before))
      return { whole: 'a changed product names other files or components' };
    rewritten.push({
      family,
      text: entries.map((entry) => JSON.stringify(entry)).join(','),
      ids: members.map((m) => m.id),
    });
  }
  return { rewritten, boundaries };
}

/**
 * The spliced document as pieces of the release before's (compose-parts.ts): its new head, the ranges of
 * the release before's document between the families written again, and their new text.
 */
export function splicedPieces(plan: Exclude<SplicePlan, { whole: string }>, head: string): ComposePiece[] {
  const pieces: ComposePiece[] = [{ text: head }];
  let at = plan.base.trailer.head_end;
  const copy = (end: number) => {
    if (end > at) pieces.push({ copy: { start: at, end: end - 1 } });
  };
  for (const { family, text } of plan.rewritten) {
    copy(family.offset);
    pieces.push({ text });
    at = family.offset + family.length;
  }
  copy(plan.base.bytes);
  return pieces;
}

/**
 * The spliced document's index as pieces of the release before's (compose-parts.ts), when that one gives
 * lengths: its lines, with those of the families written again written anew.
 */
export function splicedIndexPieces(plan: Exclude<SplicePlan, { whole: string }>): ComposePiece[] {
  const pieces: ComposePiece[] = [];
  let at = 0;
  for (const { family, text, ids } of plan.rewritten) {
    const [start, bytes] = family.line;
    if (start > at) pieces.push({ copy: { start: at, end: start - 1 } });
    pieces.push({ text: `${familyLine({ length: Buffer.byteLength(text), extra: family.extra, ids })}\n` });
    at = start + bytes;
  }
  if (at < plan.base.indexBytes) pieces.push({ copy: { start: at, end: plan.base.indexBytes - 1 } });
  return pieces;
}

/**
 * The spliced document's index lines, every one written (the release before's index gives offsets: it was
 * exported before indexes gave lengths). `products` is given where the products' run lies in the spliced
 * document once the lines are read.
 */
export async function* splicedIndex(
  plan: Exclude<SplicePlan, { whole: string }>,
  head: string,
  products: { run?: [number, number] | null },
): AsyncGenerator<string> {
  const rewritten = new Map(plan.rewritten.map((entry) => [entry.family.offset, entry]));
  let shift = Buffer.byteLength(head) - plan.base.trailer.head_end;
  products.run = null;
  for await (const family of readFamilies(readLines(objectStore.read(plan.base.index)), plan.base.trailer)) {
    const again = rewritten.get(family.offset);
    const length = again === undefined ? family.length : Buffer.byteLength(again.text);
    const offset = family.offset + shift;
    products.run = [products.run?.[0] ?? offset, offset + length];
    yield `${familyLine({ length, extra: family.extra, ids: again?.ids ?? family.ids })}\n`;
    shift += length - family.length;
  }
}

/** Where the products' run lies in the spliced document, from the release before's trailer (an index of lengths). */
function movedProducts(plan: Exclude<SplicePlan, { whole: string }>, head: string): [number, number] | null {
  const run = plan.base.trailer.products;
  if (run === undefined || run === null) return null;
  let shift = Buffer.byteLength(head) - plan.base.trailer.head_end;
  const start = run[0] + shift;
  for (const { family, text } of plan.rewritten) shift += Buffer.byteLength(text) - family.length;
  return [start, run[1] + shift];
}

/**
 * What a spliced export leaves the steps after it (spliced-checks.ts): the document it was spliced from, and
 * where the families written again lie in both documents; every other byte of the products is the release
 * before's, moved.
 */
export interface SpliceFacts {
  /** The release whose document this one was spliced from. */
  base: string;
  /** The spliced document's bytes, and the release before's. */
  bytes: number;
  base_bytes: number;
  /** Where the products' run lies in the spliced document: its first product's first byte, its last's end. */
  products: [number, number] | null;
  /** The families written again, in document order: [offset, length] before, then [offset, length] now. */
  families: [number, number, number, number][];
}

/** The facts of a spliced export whose products' run is `products`. */
export function spliceFacts(
  plan: Exclude<SplicePlan, { whole: string }>,
  head: string,
  products: [number, number] | null,
): SpliceFacts {
  let shift = Buffer.byteLength(head) - plan.base.trailer.head_end;
  const families = plan.rewritten.map(({ family, text }): [number, number, number, number] => {
    const length = Buffer.byteLength(text);
    const moved: [number, number, number, number] = [
      family.offset,
      family.length,
      family.offset + shift,
      length,
    ];
    shift += length - family.length;
    return moved;
  });
  return {
    base: plan.base.release,
    bytes: plan.base.bytes + shift,
    base_bytes: plan.base.bytes,
    products,
    families,
  };
}

/** The spliced export's trailer. */
export function splicedTrailer(
  plan: Exclude<SplicePlan, { whole: string }>,
  head: string,
  at: Date,
  startedAt: number,
  products: [number, number] | null,
): string {
  let next = plan.base.trailer.next_boundary;
  for (const ms of plan.boundaries) if (next === null || ms < next) next = ms;
  return JSON.stringify({
    head_end: Buffer.byteLength(head),
    at: at.getTime(),
    started_at: startedAt,
    sources: plan.base.trailer.sources,
    next_boundary: next,
    index_format: INDEX_FORMAT,
    products,
  } satisfies ExportTrailer);
}

/** What an export wrote, as its release records it (and, for a splice, what it wrote again). */
export interface ExportWritten {
  spliced: boolean;
  why?: string;
  changed_products?: number;
  families?: number;
  facts?: SpliceFacts;
}

/**
 * Writes the release's export at `documentKey`, with its index and trailer beside it: the release before's
 * spliced as `plan` says, or the whole catalog. Answers what the release records of it. The trailer is
 * written last (it says the document and the index are whole); `beside`, given what was written, runs
 * beside it, and the export answers once both have settled.
 */
export async function writeExport(
  documentKey: string,
  source: {
    storeId: string;
    catalog: SpliceInput['catalog'];
    at: Date;
    startedAt: number;
  },
  plan: SplicePlan,
  beside: (written: ExportWritten) => Promise<unknown> = () => Promise.resolve(),
): Promise<ExportWritten> {
  const keys = besideExport(documentKey);
  const { storeId, catalog, at, startedAt } = source;
  const finish = async (trailer: string, written: ExportWritten) => {
    await settleAll([objectStore.put(keys.trailer, trailer), beside(written)]);
    return written;
  };
  if (!('whole' in plan)) {
    const head = catalogHead(catalog, catalog.sources.pricebook_ids);
    const lengths = plan.base.trailer.index_format === INDEX_FORMAT;
    const products: { run?: [number, number] | null } = { run: movedProducts(plan, head) };
    try {
      // The unchanged stretches are copied server-side: at a million products, a one-price change passes
      // megabytes through the step, not the whole document; and so is the index, its lines the same bytes
      // (an index of offsets, from before, is written again). The trailer last.
      await settleAll([
        objectStore.compose(documentKey, plan.base.document, splicedPieces(plan, head), {
          contentType: 'application/json',
        }),
        lengths
          ? objectStore.compose(keys.index, plan.base.index, splicedIndexPieces(plan))
          : objectStore.put(keys.index, splicedIndex(plan, head, products)),
      ]);
      const run = products.run ?? null;
      return await finish(splicedTrailer(plan, head, at, startedAt, run), {
        spliced: true,
        changed_products: plan.changed,
        families: plan.rewritten.length,
        facts: spliceFacts(plan, head, run),
      });
    } catch (error) {
      // The release before's export went meanwhile (that release deleted, and its objects swept): whole.
      if (!(error instanceof ObjectNotFoundError)) throw error;
      plan = { whole: "the release before's export was deleted while it was read" };
    }
  }
  const channel = new LineChannel();
  const index = indexWriter(channel);
  let trailer: ExportTrailer | undefined;
  async function* document(): AsyncGenerator<string> {
    try {
      yield* authoredDocument(storeId, catalog, at, index);
    } finally {
      // Also on a failure: the index's upload ends instead of waiting for lines forever.
      trailer = index.finish({ at: at.getTime(), started_at: startedAt, sources: catalog.sources });
    }
  }
  await Promise.all([
    objectStore.put(documentKey, document(), { contentType: 'application/json' }),
    objectStore.put(keys.index, channel),
  ]);
  return finish(JSON.stringify(trailer), { spliced: false, why: plan.whole });
}
