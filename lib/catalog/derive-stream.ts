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
import { buildHierarchyItems, encodeIdList, NODE_LIST_CHUNK } from './hierarchy-items';
import { hierarchyReleaseItems } from './nodes';
import {
  indexEntryOf,
  LOOKUP_ATTRIBUTES,
  type LookupEntry,
  lookupItem,
  releaseSummaryItem,
} from './product-lookups';
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
  ChildIndexEntry,
  FileResource,
  ProductInput,
  ReleaseDocument,
  ReleaseLayout,
  StoredProduct,
} from './types';
import {
  ReleaseValidationError,
  type ValidationIssue,
  validateProduct,
  validateReleaseDocument,
} from './validate-release';

/**
 * A release's items derived from its document as it streams (DESIGN.md section 17, docs/publishing.md):
 * the items `buildReleaseItems` makes, with the same size checks, without holding the document. Three
 * passes over the source, each one product at a time:
 *
 * 1. the document's small members (catalog, nodes, files, rules, modifiers, currencies), which products
 *    are parents and bundle components, each family's size and the options its live children pick, and
 *    which slugs of live products repeat (as 53-bit hashes, sorted);
 * 2. the inputs of parents and components, which other products inherit from or price with;
 * 3. each product derived (lib/catalog/derive.ts `deriveProduct`, the code the whole-document derivation
 *    runs) and its items emitted: the product, its share of its parent's child index (a family's index
 *    and filter index are emitted once its last live child is read), the release-wide index and lookups,
 *    and its node lists, chunk by chunk.
 *
 * Memory: the small members, the parents' and components' inputs, per family its children's picks (only
 * for children that pick options) and the entries of the families still being read, the repeated slugs'
 * entries, and 8 bytes a live product for the slug hashes. Not the products.
 */

/** An item as the products table stores it. */
export type ReleaseItem = ReturnType<typeof catalogRepository.productItem>;

export interface StreamDeriveOptions {
  /** Opens the document from its start (called once per pass). */
  open: () => AsyncIterable<Uint8Array>;
  catalogId: string;
  layout: ReleaseLayout;
  /** The store's currencies, for a document that names none. */
  storeCurrencies: Record<string, CurrencySettings>;
  /** Receives every item, once; awaited, so a slow consumer slows the reading. */
  emit: (item: ReleaseItem) => Promise<void> | void;
}

export interface StreamDeriveResult {
  counts: ReleaseCounts;
  items: number;
  totalNodes: number;
  /** The document's small members, normalised (the switch needs its rules and currencies). */
  head: Omit<ReleaseDocument, 'products'>;
}

/** DynamoDB's item limit is 400 KB; leave room for keys and attribute names (as the publisher does). */
const MAX_ITEM_BYTES = 390 * 1024;

/** Each product of the source, normalised as the validation normalises it, with its index. */
async function* products(
  source: AsyncIterable<Uint8Array>,
  head?: (part: DocumentPart) => void,
): AsyncGenerator<{ index: number; product: ProductInput }> {
  for await (const parts of readReleaseDocument(source)) {
    for (const part of parts) {
      if (part.key !== 'products') {
        head?.(part);
        continue;
      }
      if (part.kind !== 'element') continue;
      const checked = validateProduct(part.value, part.index);
      if (!checked.ok) throw new Error(`products[${part.index}] is not valid: validate the document first`);
      yield { index: part.index, product: checked.product };
    }
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

export async function deriveReleaseStream(options: StreamDeriveOptions): Promise<StreamDeriveResult> {
  const { layout, catalogId } = options;
  const publishedAt = layout.published_at;

  // Pass 1: the small members, families, components, repeated slugs.
  const raw: Record<string, unknown> = Object.create(null);
  const lists = new Map<string, unknown[]>();
  const families = new Map<string, FamilyFacts>();
  const components = new Set<string>();
  const slugs = new NumberList();
  for await (const { product } of products(options.open(), (part) => {
    if (part.kind === 'value') raw[part.key] = part.value;
    else {
      const list = lists.get(part.key) ?? [];
      lists.set(part.key, list);
      if (part.kind === 'element') list.push(part.value);
      else raw[part.key] = list;
    }
  })) {
    const a = product.attributes;
    const live = a.status === 'live';
    if (a.base_product_id !== undefined) {
      let family = families.get(a.base_product_id);
      if (!family) {
        family = { children: 0, liveChildren: 0, live: [] };
        families.set(a.base_product_id, family);
      }
      family.children += 1;
      if (live) {
        family.liveChildren += 1;
        if (Object.keys(product.variation_options).length > 0) {
          family.live.push({ id: product.id, variation_options: product.variation_options });
        }
      }
    }
    for (const component of Object.values(a.components ?? {})) {
      for (const option of component.options) components.add(option.id);
    }
    if (live) slugs.push(hash53(a.slug ?? slugFromName(a.name, product.id)));
  }
  for (const [key, list] of lists) raw[key] ??= list;
  const headCheck = validateReleaseDocument({ ...raw, products: [] });
  if (!headCheck.ok) throw new ReleaseValidationError(headCheck.issues, headCheck.total);
  const { products: _none, ...head } = headCheck.document;
  const repeatedSlugs = slugs.repeated();
  slugs.values = new Float64Array(0);

  // Pass 2: the inputs others need.
  const held = new Map<string, ProductInput>();
  for await (const { product } of products(options.open())) {
    if (families.has(product.id) || components.has(product.id)) held.set(product.id, product);
  }
  // A component's parent is needed for its prices; a component that is a child has one, which is a parent.
  const { paths } = resolveNodePaths(head.nodes);
  const currencies = head.currencies ?? options.storeCurrencies;
  const scope: DeriveScope = {
    document: head,
    paths,
    context: { catalogId, publishedAt, currencies },
    product: (id) => held.get(id),
    family: (id) => families.get(id),
  };
  const cache = new Map();

  // Pass 3: every product derived and its items emitted.
  let emitted = 0;
  const productIssues: ValidationIssue[] = [];
  const otherIssues: ValidationIssue[] = [];
  const emit = async (item: ReleaseItem, onOversize?: (bytes: number) => void) => {
    if (typeof item.d !== 'string' || item.d.length * 3 > MAX_ITEM_BYTES) {
      const bytes =
        typeof item.d === 'string' ? Buffer.byteLength(item.d) : (item.z as Uint8Array).byteLength;
      if (bytes > MAX_ITEM_BYTES) onOversize?.(bytes);
    }
    emitted += 1;
    await options.emit(item);
  };
  const oversizedChunk = (bytes: number) =>
    otherIssues.push({
      path: 'products',
      rule: 'item_size',
      message: `a child index chunk takes ${bytes} bytes as stored; at most ${MAX_ITEM_BYTES} fit in one item`,
    });

  const files = head.files.map(renderFile);
  const fileIssues: ValidationIssue[] = [];
  for (const [index, file] of files.entries()) {
    await emit(catalogRepository.fileItem(layout, file), (bytes) =>
      fileIssues.push({
        path: `files[${index}]`,
        rule: 'item_size',
        message: `the file takes ${bytes} bytes as stored; at most ${MAX_ITEM_BYTES} fit in one item`,
      }),
    );
  }

  // The budget of product pages: bounded from the stored sizes; exact only when the bounds do not fit.
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
  let indexChunks = 0;
  let livePosition = 0;
  const slugLists = new Map<string, LookupEntry[]>();
  const nodeProducts = new Map<string, { count: number; chunk: string[] }>();
  const flushNodeChunk = async (nodeId: string, list: { count: number; chunk: string[] }) => {
    const chunk = Math.floor((list.count - 1) / NODE_LIST_CHUNK);
    await emit(
      catalogRepository.nodeListItem(
        layout,
        { owner: nodeId, kind: 'products', chunk },
        encodeIdList(list.chunk),
      ),
      oversizedChunk,
    );
    list.chunk = [];
  };
  const familyDone = async (parentId: string, entries: ChildIndexEntry[]) => {
    for (const [n, chunk] of chunkEntries(entries, layout.chunk_size).entries()) {
      await emit(catalogRepository.chunkItem(layout, parentId, n, encodeChunk(chunk)), oversizedChunk);
    }
    for (const item of filterIndexItems(layout, parentId, entries)) await emit(item, oversizedChunk);
    childEntries.delete(parentId);
  };

  for await (const { index, product } of products(options.open())) {
    const derived = deriveProduct(product, scope, cache);
    const { stored } = derived;
    countProduct(counts, derived);
    const item = catalogRepository.productItem(layout, stored);
    await emit(item, (bytes) =>
      productIssues.push({
        path: `products[${index}]`,
        rule: 'item_size',
        message: `the product takes ${bytes} bytes as stored; at most ${MAX_ITEM_BYTES} fit in one item`,
      }),
    );
    // A parent without live children: its (empty) family is complete now.
    if (derived.isBase && (families.get(product.id)?.liveChildren ?? 0) === 0)
      await familyDone(product.id, []);
    if (!stored.live) continue;
    heaviest.add(weigh(stored, (item.d as string).length, index));

    const parentId = product.attributes.base_product_id;
    if (parentId !== undefined && held.has(parentId)) {
      const entries = childEntries.get(parentId) ?? [];
      entries.push(indexEntry(product, publishedAt));
      childEntries.set(parentId, entries);
      const family = families.get(parentId) as FamilyFacts;
      // The family's index is complete once its last live child is read (a product with children is a base
      // product, whose index the whole-document derivation keeps too).
      if (entries.length === family.liveChildren) await familyDone(parentId, entries);
    }

    const entry = indexEntryOf(stored);
    indexChunk.push(entry);
    if (indexChunk.length === layout.chunk_size) {
      await emit(catalogLookupItem(layout, indexChunks, indexChunk), oversizedChunk);
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
      await emit(lookupItem(layout, attribute, value, [listed]), oversizedChunk);
    }
    livePosition += 1;

    for (const nodeId of new Set(product.node_ids)) {
      let list = nodeProducts.get(nodeId);
      if (!list) {
        list = { count: 0, chunk: [] };
        nodeProducts.set(nodeId, list);
      }
      list.count += 1;
      list.chunk.push(product.id);
      if (list.chunk.length === NODE_LIST_CHUNK) await flushNodeChunk(nodeId, list);
    }
  }
  // What is left: families whose parent is not a base product never complete above (none: validated).
  for (const [parentId, entries] of childEntries) await familyDone(parentId, entries);
  if (indexChunk.length > 0) await emit(catalogLookupItem(layout, indexChunks, indexChunk), oversizedChunk);
  for (const [value, list] of slugLists) await emit(lookupItem(layout, 'slug', value, list), oversizedChunk);
  await emit(releaseSummaryItem(head, { catalogId, layout }, livePosition), oversizedChunk);
  for (const [nodeId, list] of nodeProducts) if (list.chunk.length > 0) await flushNodeChunk(nodeId, list);

  // The nodes: rendered with their product counts; their children and descendants lists.
  const hierarchy = buildHierarchyItems({ nodes: head.nodes, products: [] }, { catalogId, publishedAt });
  for (const [id, node] of hierarchy.nodes) node.products = nodeProducts.get(id)?.count ?? 0;
  for (const item of hierarchyReleaseItems(hierarchy, layout)) await emit(item, oversizedChunk);

  const budget: ValidationIssue[] = [];
  if (heaviest.total() > PAGE_BUDGET_BYTES) {
    budget.push(...(await exactProductBudget(options, scope, files)));
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
  return { counts, items: emitted, totalNodes: head.nodes.length, head };
}

function catalogLookupItem(layout: ReleaseLayout, n: number, entries: ChildIndexEntry[]): ReleaseItem {
  return catalogLookupRepository.indexChunkItem(layout, n, encodeChunk(entries));
}

/**
 * The product pages' budget rendered exactly (a fourth pass, only when the bounds from the stored sizes do
 * not fit): every live product at its largest, with its files and live components (see size-budget.ts).
 */
async function exactProductBudget(
  options: StreamDeriveOptions,
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
  for await (const { index, product } of products(options.open())) {
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
