import { childRepository } from '../../store/child-repository';
import type { Currency } from '../../store/currency-repository';
import { currencyRepository } from '../../store/currency-repository';
import { fileRepository } from '../../store/file-repository';
import { hierarchyRepository } from '../../store/hierarchy-repository';
import { askedFirst, startedEarly } from '../../store/items';
import { nodeRepository } from '../../store/node-repository';
import type { AuthoredSources } from '../../store/pcm-repository';
import { priceRepository } from '../../store/price-repository';
import { pricebookRepository } from '../../store/pricebook-repository';
import { type ProductRecord, productRepository } from '../../store/product-repository';
import { variationRepository } from '../../store/variation-repository';
import type { File as DocumentFile, Variation as DocumentVariation } from '../release-input.generated';
import {
  type AuthoredNode,
  type AuthoredPrice,
  documentNodes,
  documentPriceModifier,
  documentProduct,
} from './authored-document';
import { IdTable } from './id-table';

/**
 * The Export step's work: an authored catalog (its hierarchies' nodes, the live products attached to them
 * with their built children and bundle components, priced from its books) written out as a release
 * document, one product at a time, so that the steps that publish documents publish it (docs/publishing.md,
 * "Authored catalogs"). What it holds at once: the hierarchies' nodes, the attached products' ids with
 * their nodes and the ids written so far (each in an IdTable: about 44 bytes an id, outside the heap), and
 * the pages read ahead.
 */

/** Products read, priced and written at once: one BatchGetItem of products, one of prices per book. */
export const EXPORT_PAGE = 100;
/**
 * Pages read ahead while the document is written, in order: the reads of a page (products, prices, each
 * parent's children) are a few round trips of 5-20 ms, so one page at a time would take a million
 * products 10,000 pages x ~50 ms, over 8 minutes; 8 at once keep DynamoDB busy while the upload streams.
 */
export const PAGES_IN_FLIGHT = 8;

/** A family as the export wrote it: where its text is, whether it came in as a component, its products. */
export interface ExportedFamily {
  offset: number;
  length: number;
  /** Written as a bundle's component (any status), not as a product of the hierarchies (live only). */
  extra: boolean;
  /** Its products in the order written, the head first. */
  ids: string[];
}

/** What an export tells its index (lib/catalog/pipeline/export-index.ts) as it writes. */
export interface ExportIndexSink {
  /** The byte where the catalog head ends (`{"catalog":{…}`). */
  headEnd(offset: number): void;
  family(family: ExportedFamily): void;
  /** A sale of a product written starts or ends at this time (ms): a release after it prices differently. */
  boundary(ms: number): void;
}

/** A parent's built children's ids in build order (only a product that ever linked variations has any). */
export async function childIdsOf(storeId: string, product: ProductRecord): Promise<string[]> {
  return product.parent_id === undefined && product.variations_generation !== undefined
    ? (await childRepository.entries(storeId, product.id)).map((entry) => entry.child_id)
    : [];
}

/** A page of products read, with their prices by product id. */
interface LoadedPage {
  products: ProductRecord[];
  prices: Map<string, AuthoredPrice & { pricebook_id: string }>;
}

/** `ids` in runs of `size`. */
const chunks = <T>(ids: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(ids.length / size) }, (_, n) => ids.slice(n * size, (n + 1) * size));

/**
 * The results of `tasks`, in their order, with at most `window` started and not yet yielded: reads ahead
 * while the consumer writes. A task's failure is thrown when its turn comes.
 */
export async function* inOrder<T>(tasks: Iterable<() => Promise<T>>, window: number): AsyncGenerator<T> {
  const started: Promise<T>[] = [];
  const pending = tasks[Symbol.iterator]();
  let done = false;
  const fill = () => {
    while (!done && started.length < window) {
      const next = pending.next();
      if (next.done) {
        done = true;
        return;
      }
      // Awaited in its turn.
      started.push(startedEarly(next.value()));
    }
  };
  fill();
  while (started.length > 0) {
    const result = await (started.shift() as Promise<T>);
    fill();
    yield result;
  }
}

/** `ids` in runs of `size`, taken as they come. */
function* runs(ids: Iterable<string>, size: number): Generator<string[]> {
  let run: string[] = [];
  for (const id of ids) {
    run.push(id);
    if (run.length === size) {
      yield run;
      run = [];
    }
  }
  if (run.length > 0) yield run;
}

function* mapped<T, U>(items: Iterable<T>, map: (item: T) => U): Generator<U> {
  for (const item of items) yield map(item);
}

/** The value of a product attached to more than one node: MULTIPLE plus the number of its list. */
const MULTIPLE = 0x40000000;

/** The attached products in the order Export writes them: the curated ones first, then the others as attached. */
function* attachedInOrder(curated: Set<string>, placed: IdTable): Generator<string> {
  yield* curated;
  for (const id of placed.keys()) if (!curated.has(id)) yield id;
}

/** Products of these ids in the order given, read and priced. */
async function loadProducts(storeId: string, pricebookIds: string[], ids: string[]): Promise<LoadedPage> {
  const order = new Map(ids.map((id, i) => [id, i]));
  const products = (await productRepository.getMany(storeId, ids)).sort(
    (a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0),
  );
  return { products, prices: await pricesOf(storeId, pricebookIds, products) };
}

/** A hierarchy or price book the release names is gone: the release fails with this message. */
export class AuthoredSourceError extends Error {
  override name = 'AuthoredSourceError';
}

/** The store's enabled currencies as the document's `currencies` (undefined when it has none). */
function documentCurrencies(currencies: Currency[]): Record<string, unknown> | undefined {
  const enabled = currencies.filter((currency) => currency.enabled);
  if (enabled.length === 0) return undefined;
  const fallbackDefault = enabled.some((currency) => currency.default) ? undefined : enabled[0]?.code;
  return Object.fromEntries(
    enabled.map((currency) => [
      currency.code,
      {
        format: currency.format,
        decimal_point: currency.decimal_point,
        thousand_separator: currency.thousand_separator,
        decimal_places: currency.decimal_places,
        default: currency.default || currency.code === fallbackDefault,
      },
    ]),
  );
}

/**
 * The authored catalog as release document text, in pieces (for a streamed upload). Throws
 * AuthoredSourceError when a hierarchy or price book it names was deleted since the catalog named it.
 */
export async function* authoredDocument(
  storeId: string,
  catalog: { id: string; name: string; sources: AuthoredSources },
  at: Date,
  index?: ExportIndexSink,
): AsyncGenerator<string> {
  let offset = 0;
  const text = (piece: string) => {
    offset += Buffer.byteLength(piece);
    return piece;
  };
  for await (const piece of authoredPieces(storeId, catalog, at, index, () => offset)) yield text(piece);
}

/** The head of an authored release's document: `{"catalog":{…}` (the rest follows it). */
export const catalogHead = (catalog: { id: string; name: string }, pricebookIds: string[]) =>
  `{"catalog":${JSON.stringify({ id: catalog.id, name: catalog.name, pricebook_id: pricebookIds[0] ?? null })}`;

async function* authoredPieces(
  storeId: string,
  catalog: { id: string; name: string; sources: AuthoredSources },
  at: Date,
  index: ExportIndexSink | undefined,
  offset: () => number,
): AsyncGenerator<string> {
  const { hierarchy_ids: hierarchyIds, pricebook_ids: pricebookIds } = catalog.sources;
  // The small reads the document opens with go out together, each awaited where its part is written: one
  // round trip, not five one after the other. A read left unawaited because an earlier one threw is no
  // unhandled rejection (`startedEarly`).
  const booksRead = startedEarly(Promise.all(pricebookIds.map((id) => priceBookExists(storeId, id))));
  const currenciesRead = startedEarly(currencyRepository.list(storeId));
  const hierarchiesRead = hierarchyIds.map((id) => startedEarly(hierarchyRepository.get(storeId, id)));
  const modifiersRead = startedEarly(bookModifiers(storeId, pricebookIds));
  // So do the hierarchies' nodes (all of them are held while they are written anyway) and the first page of
  // the first hierarchy's attached products (the others are read a page at a time, after it).
  const nodesRead = hierarchyIds.map((id) => startedEarly(nodesOfHierarchy(storeId, id)));
  const firstAttached =
    hierarchyIds[0] === undefined
      ? undefined
      : askedFirst(nodeRepository.attachedProductsOf(storeId, hierarchyIds[0]));
  const books = await booksRead;
  const gone = pricebookIds.find((_, i) => !books[i]);
  if (gone !== undefined) {
    throw new AuthoredSourceError(
      `price book ${gone} of the catalog was deleted: update the catalog's price books`,
    );
  }

  const currencies = documentCurrencies(await currenciesRead);
  yield catalogHead(catalog, pricebookIds);
  index?.headEnd(offset());
  if (currencies !== undefined) yield `,"currencies":${JSON.stringify(currencies)}`;

  // The nodes, and where products sit: each attached product's nodes, curated products first.
  const nodeIds = new Set<string>();
  const curated: string[] = [];
  yield ',"nodes":[';
  let first = true;
  for (const [n, hierarchyId] of hierarchyIds.entries()) {
    const hierarchy = await hierarchiesRead[n];
    if (hierarchy === undefined) {
      throw new AuthoredSourceError(
        `hierarchy ${hierarchyId} of the catalog was deleted: update the catalog's hierarchy_ids`,
      );
    }
    const nodes: AuthoredNode[] = await (nodesRead[n] as Promise<AuthoredNode[]>);
    const written = documentNodes(hierarchy, nodes);
    const byId = new Map(nodes.map((node) => [node.id, node]));
    for (const node of written) {
      nodeIds.add(node.id);
      curated.push(...(byId.get(node.id)?.curated_products ?? []));
      yield `${first ? '' : ','}${JSON.stringify(node)}`;
      first = false;
    }
  }
  yield ']';

  // Each attached product's nodes, held compactly (a million products in about 50 MB, outside the heap):
  // a product's value is its one node's number, or MULTIPLE and the number of its list of nodes.
  const nodeList = [...nodeIds];
  const nodeNumber = new Map(nodeList.map((id, n) => [id, n]));
  const placed = new IdTable();
  const lists: number[][] = [];
  for (const [n, hierarchyId] of hierarchyIds.entries()) {
    const attached =
      n === 0 && firstAttached !== undefined
        ? firstAttached
        : nodeRepository.attachedProductsOf(storeId, hierarchyId);
    for await (const { node_id: nodeId, product_id: productId } of attached) {
      const node = nodeNumber.get(nodeId);
      if (node === undefined) continue;
      const value = placed.get(productId);
      if (value === undefined) placed.set(productId, node);
      else if (value < MULTIPLE) {
        if (value !== node) {
          placed.set(productId, MULTIPLE + lists.length);
          lists.push([value, node]);
        }
      } else {
        const list = lists[value - MULTIPLE] as number[];
        if (!list.includes(node)) list.push(node);
      }
    }
  }
  const nodesOf = (productId: string): string[] => {
    const value = placed.get(productId);
    if (value === undefined) return [];
    const numbers = value < MULTIPLE ? [value] : (lists[value - MULTIPLE] as number[]);
    return numbers.map((n) => nodeList[n] as string);
  };
  const curatedIds = new Set(curated.filter((id) => placed.has(id)));

  const modifiers = await modifiersRead;
  yield `,"price_modifiers":${JSON.stringify(modifiers)}`;
  const modifierNames = new Set(Object.keys(modifiers));

  const written = new IdTable();
  const fileIds = new Set<string>();
  const variations = new Map<string, DocumentVariation | null>();
  const extras: string[] = [];
  let separator = '';
  yield ',"products":[';

  /** Writes a loaded page of products, each with its price and context (each product once), into `family`. */
  const writeAll = async function* (page: LoadedPage, family: string[]): AsyncGenerator<string> {
    for (const product of page.products) {
      if (written.has(product.id)) continue;
      written.set(product.id, 1);
      family.push(product.id);
      for (const component of Object.values(product.attributes.components ?? {})) {
        for (const option of component.options) if (!written.has(option.id)) extras.push(option.id);
      }
      if (product.main_image) fileIds.add(product.main_image);
      for (const file of product.files ?? []) fileIds.add(file.id);
      const price = page.prices.get(product.id);
      if (index !== undefined) for (const ms of saleBoundaries(price, at)) index.boundary(ms);
      const entry = documentProduct(product, {
        node_ids: nodesOf(product.id),
        curated: curatedIds.has(product.id),
        ...(price === undefined ? {} : { price }),
        variations: await variationsOf(storeId, product, variations),
        modifiers: modifierNames,
        at,
      });
      yield `${separator}${JSON.stringify(entry)}`;
      separator = ',';
    }
  };

  /**
   * The family heads of `ids` (a child's parent, else the product; attached products only when live), read
   * and priced, with each parent's children ids.
   */
  const loadHeads = async (
    ids: string[],
    liveOnly: boolean,
  ): Promise<LoadedPage & { children: Map<string, string[]> }> => {
    const found = new Map((await productRepository.getMany(storeId, ids)).map((p) => [p.id, p]));
    const heads: string[] = [];
    for (const id of ids) {
      const product = found.get(id);
      if (product === undefined) continue;
      if (liveOnly && product.attributes.status !== 'live') continue;
      heads.push(product.parent_id ?? product.id);
    }
    const missing = heads.filter((id) => !found.has(id));
    for (const parent of await productRepository.getMany(storeId, missing)) found.set(parent.id, parent);
    const products = [...new Set(heads)].flatMap((id) => found.get(id) ?? []);
    const [prices, children] = await Promise.all([
      pricesOf(storeId, pricebookIds, products),
      Promise.all(
        products.map(
          async (product): Promise<[string, string[]]> => [product.id, await childIdsOf(storeId, product)],
        ),
      ),
    ]);
    return { products, prices, children: new Map(children) };
  };

  /** Writes the families of `ids`, in the order given: each head, then its children in build order. */
  const writeFamilies = async function* (ids: Iterable<string>, liveOnly: boolean): AsyncGenerator<string> {
    const pages = mapped(runs(ids, EXPORT_PAGE), (page) => () => loadHeads(page, liveOnly));
    for await (const loaded of inOrder(pages, PAGES_IN_FLIGHT)) {
      for (const head of loaded.products) {
        if (written.has(head.id)) continue;
        const family: string[] = [];
        const start = offset() + (separator === '' ? 0 : 1);
        yield* writeAll({ products: [head], prices: loaded.prices }, family);
        const children = chunks(loaded.children.get(head.id) ?? [], EXPORT_PAGE).map(
          (page) => () => loadProducts(storeId, pricebookIds, page),
        );
        for await (const page of inOrder(children, PAGES_IN_FLIGHT)) yield* writeAll(page, family);
        index?.family({ offset: start, length: offset() - start, extra: !liveOnly, ids: family });
      }
    }
  };

  yield* writeFamilies(attachedInOrder(curatedIds, placed), true);
  // Bundle components outside the hierarchies: in the release so that bundles can name them.
  while (extras.length > 0) {
    yield* writeFamilies(
      extras.splice(0).filter((id) => !written.has(id)),
      false,
    );
  }
  yield ']';

  const files = [...fileIds];
  yield ',"files":[';
  let fileSeparator = '';
  for (let start = 0; start < files.length; start += EXPORT_PAGE) {
    for (const file of await fileRepository.byIds(storeId, files.slice(start, start + EXPORT_PAGE))) {
      const entry: DocumentFile = {
        id: file.id,
        file_name: file.file_name,
        mime_type: file.mime_type,
        file_size: 0,
        link: { href: file.file_location },
        meta: { timestamps: { created_at: file.created_at } },
      };
      yield `${fileSeparator}${JSON.stringify(entry)}`;
      fileSeparator = ',';
    }
  }
  yield ']}';
}

/** The books' price modifiers as the document's `price_modifiers`: a name from the highest-priority book with it. */
export async function bookModifiers(
  storeId: string,
  pricebookIds: string[],
): Promise<Record<string, unknown>> {
  const modifiers: Record<string, unknown> = {};
  for (const bookId of pricebookIds) {
    for await (const modifier of priceRepository.modifiersOf(storeId, bookId)) {
      if (!Object.hasOwn(modifiers, modifier.name))
        modifiers[modifier.name] = documentPriceModifier(modifier);
    }
  }
  return modifiers;
}

/** The times (ms) after `at` at which one of the price's sales starts or ends. */
export function saleBoundaries(price: AuthoredPrice | undefined, at: Date): number[] {
  const out: number[] = [];
  for (const sale of Object.values(price?.sales ?? {})) {
    for (const edge of [sale.schedule?.valid_from, sale.schedule?.valid_to]) {
      const ms = edge ? Date.parse(edge) : Number.NaN;
      if (ms > at.getTime()) out.push(ms);
    }
  }
  return out;
}

/** Every node of a hierarchy (one Query of its range, paged). */
async function nodesOfHierarchy(storeId: string, hierarchyId: string): Promise<AuthoredNode[]> {
  const nodes: AuthoredNode[] = [];
  for await (const node of nodeRepository.nodesOf(storeId, hierarchyId)) nodes.push(node);
  return nodes;
}

async function priceBookExists(storeId: string, id: string): Promise<boolean> {
  return (await pricebookRepository.get(storeId, id)) !== undefined;
}

/** Each product's price by sku from the first book (highest priority first) that has one, with that book. */
export async function pricesOf(
  storeId: string,
  pricebookIds: string[],
  products: ProductRecord[],
): Promise<Map<string, AuthoredPrice & { pricebook_id: string }>> {
  const prices = new Map<string, AuthoredPrice & { pricebook_id: string }>();
  let unpriced = products.filter((product) => product.attributes.sku);
  for (const bookId of pricebookIds) {
    if (unpriced.length === 0) break;
    const found = await priceRepository.pricesBySku(
      storeId,
      bookId,
      unpriced.map((product) => product.attributes.sku as string),
    );
    for (const product of unpriced) {
      const price = found.get(product.attributes.sku as string);
      if (price !== undefined) prices.set(product.id, { ...price, pricebook_id: bookId });
    }
    unpriced = unpriced.filter((product) => !prices.has(product.id));
  }
  return prices;
}

/** A parent's linked variations with their options, in link order (read once per variation). */
export async function variationsOf(
  storeId: string,
  product: ProductRecord,
  cache: Map<string, DocumentVariation | null>,
): Promise<DocumentVariation[]> {
  const out: DocumentVariation[] = [];
  for (const link of product.variations ?? []) {
    if (!cache.has(link.id)) {
      const tree = await variationRepository.getVariationTree(storeId, link.id);
      cache.set(
        link.id,
        tree === undefined || tree.options.length === 0
          ? null
          : {
              id: tree.variation.id,
              name: tree.variation.name,
              ...(tree.variation.sort_order === undefined ? {} : { sort_order: tree.variation.sort_order }),
              options: tree.options.map(({ option }) => ({
                id: option.id,
                name: option.name,
                ...(option.description ? { description: option.description } : {}),
                ...(option.sort_order === undefined ? {} : { sort_order: option.sort_order }),
              })),
            },
      );
    }
    const variation = cache.get(link.id);
    if (variation) out.push(variation);
  }
  return out;
}
