import { mapAtMost } from '../at-most';
import { ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import { pricebookOf } from '../pricebooks/service';
import type { WriteCaller } from '../store/caller-check';
import { besideParent } from '../store/items';
import {
  type InBook,
  ModifierNameTakenError,
  PriceBookGoneError,
  type PriceModifierRecord,
  PriceNotFoundError,
  type PriceRecord,
  PriceSkuTakenError,
  PriceWriteConflictError,
  priceRepository,
  type Versioned,
  withoutVersion,
} from '../store/price-repository';
import { type PricebookRecord, pricebookRepository } from '../store/pricebook-repository';
import {
  checkResponseBudget,
  type NewPriceAttributes,
  type NewPriceModifierAttributes,
  type PriceAttributes,
  type PriceModifierAttributes,
} from '../validation/price';
import { compileEntryFilter, type EntryFilter, filteredSkus } from './filter';

/**
 * A price book's prices (one per sku, compared without regard to case) and price modifiers (names unique in
 * the book, compared exactly): docs/price-books.md.
 */

async function answered<T>(write: Promise<T>, what: 'price' | 'price modifier'): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof PriceBookGoneError) throw new NotFoundError('price book not found');
    if (error instanceof PriceNotFoundError) throw new NotFoundError(`${what} not found`);
    if (error instanceof PriceSkuTakenError) {
      throw new ConflictError('the price book has a price for this sku already', 'data.attributes.sku');
    }
    if (error instanceof ModifierNameTakenError) {
      throw new ConflictError(
        'the price book has a price modifier of this name already',
        'data.attributes.name',
      );
    }
    if (error instanceof PriceWriteConflictError) throw new ConflictError(WRITE_CONFLICT);
    throw error;
  }
}

/** A price of a book of the store (404 for a book or price that is not). */
export async function priceOf(storeId: string, pricebookId: string, id: string): Promise<PriceRecord> {
  const price = withoutVersion(await entryInBook(priceRepository.readPriceInBook(storeId, pricebookId, id)));
  if (!price) throw new NotFoundError('price not found');
  return price;
}

export async function modifierOf(
  storeId: string,
  pricebookId: string,
  id: string,
): Promise<PriceModifierRecord> {
  const modifier = withoutVersion(
    await entryInBook(priceRepository.readModifierInBook(storeId, pricebookId, id)),
  );
  if (!modifier) throw new NotFoundError('price modifier not found');
  return modifier;
}

/**
 * The entry of a read of a book and one of its entries (one request: the book's 404 first), which a write's
 * first round starts from.
 */
async function entryInBook<T>(read: Promise<InBook<T>>): Promise<Versioned<T> | undefined> {
  const { book, entry } = await read;
  if (!book) throw new NotFoundError('price book not found');
  return entry;
}

export async function createPrice(
  storeId: string,
  pricebookId: string,
  attributes: NewPriceAttributes,
  caller: WriteCaller | undefined,
): Promise<PriceRecord> {
  const at = new Date().toISOString();
  const price: PriceRecord = { id: uuidv7(), ...attributes, created_at: at, updated_at: at };
  checkResponseBudget(price, 'price');
  await answered(priceRepository.createPrice(storeId, pricebookId, price, caller), 'price');
  return price;
}

/** Changes only the attributes sent; nothing sent changes nothing (not even updated_at). */
export async function updatePrice(
  storeId: string,
  pricebookId: string,
  id: string,
  changes: PriceAttributes,
  caller: WriteCaller | undefined,
): Promise<PriceRecord> {
  if (Object.keys(changes).length === 0) return priceOf(storeId, pricebookId, id);
  // The book and the price in one read: the book's 404 before anything is written, and the write's first
  // round starts from the price as read.
  const read = entryInBook(priceRepository.readPriceInBook(storeId, pricebookId, id));
  await read;
  const check = (next: PriceRecord) => checkResponseBudget(next, 'price');
  const at = new Date().toISOString();
  return answered(
    priceRepository.updatePrice(storeId, pricebookId, id, changes, at, caller, check, read),
    'price',
  );
}

export async function deletePrice(storeId: string, pricebookId: string, id: string, caller: WriteCaller) {
  const read = entryInBook(priceRepository.readPriceInBook(storeId, pricebookId, id));
  await read;
  return answered(priceRepository.deletePrice(storeId, pricebookId, id, caller, read), 'price');
}

export async function createModifier(
  storeId: string,
  pricebookId: string,
  attributes: NewPriceModifierAttributes,
  caller: WriteCaller | undefined,
): Promise<PriceModifierRecord> {
  const at = new Date().toISOString();
  const modifier: PriceModifierRecord = { id: uuidv7(), ...attributes, created_at: at, updated_at: at };
  checkResponseBudget(modifier, 'price modifier');
  await answered(priceRepository.createModifier(storeId, pricebookId, modifier, caller), 'price modifier');
  return modifier;
}

export async function updateModifier(
  storeId: string,
  pricebookId: string,
  id: string,
  changes: PriceModifierAttributes,
  caller: WriteCaller | undefined,
): Promise<PriceModifierRecord> {
  if (Object.keys(changes).length === 0) return modifierOf(storeId, pricebookId, id);
  const read = entryInBook(priceRepository.readModifierInBook(storeId, pricebookId, id));
  await read;
  const check = (next: PriceModifierRecord) => checkResponseBudget(next, 'price modifier');
  const at = new Date().toISOString();
  return answered(
    priceRepository.updateModifier(storeId, pricebookId, id, changes, at, caller, check, read),
    'price modifier',
  );
}

export async function deleteModifier(storeId: string, pricebookId: string, id: string, caller: WriteCaller) {
  const read = entryInBook(priceRepository.readModifierInBook(storeId, pricebookId, id));
  await read;
  return answered(priceRepository.deleteModifier(storeId, pricebookId, id, caller, read), 'price modifier');
}

type Page = { limit: number; offset: number };

/** Keeps the entries of one page out of a stream, counting them all: never more than a page held. */
class PageWindow<T> {
  readonly items: T[] = [];
  total = 0;
  constructor(private readonly page: Page) {}
  add(item: T): void {
    if (this.total >= this.page.offset && this.items.length < this.page.limit) this.items.push(item);
    this.total += 1;
  }
}

/** The prices of a book matching a filter, in creation order: by sku claims for an sku filter, else a scan. */
async function* matchingPrices(
  storeId: string,
  pricebookId: string,
  filter: EntryFilter,
): AsyncIterable<PriceRecord> {
  const test = compileEntryFilter(filter);
  const skus = filteredSkus(filter);
  if (skus === undefined) {
    for await (const price of priceRepository.pricesOf(storeId, pricebookId)) if (test(price)) yield price;
    return;
  }
  const found = await priceRepository.pricesBySku(storeId, pricebookId, skus);
  const prices = [...new Map([...found.values()].map((price) => [price.id, price])).values()];
  prices.sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const price of prices) if (test(price)) yield price;
}

/** A page of a book's prices (404 for a book not the store's), filtered when `filter` is given. */
export async function listPrices(
  storeId: string,
  pricebookId: string,
  page: Page,
  filter: EntryFilter | undefined,
): Promise<{ prices: PriceRecord[]; total: number }> {
  const book = pricebookOf(storeId, pricebookId);
  if (filter === undefined) return besideParent(book, priceRepository.pricePage(storeId, pricebookId, page));
  await book;
  const window = new PageWindow<PriceRecord>(page);
  for await (const price of matchingPrices(storeId, pricebookId, filter)) window.add(price);
  return { prices: window.items, total: window.total };
}

/** A page of a book's modifiers, filtered when `filter` is given (a book holds few: read whole). */
export async function listModifiers(
  storeId: string,
  pricebookId: string,
  page: Page,
  filter: EntryFilter | undefined,
): Promise<{ modifiers: PriceModifierRecord[]; total: number }> {
  const book = pricebookOf(storeId, pricebookId);
  if (filter === undefined)
    return besideParent(book, priceRepository.modifierPage(storeId, pricebookId, page));
  await book;
  const test = compileEntryFilter(filter);
  const window = new PageWindow<PriceModifierRecord>(page);
  for await (const modifier of priceRepository.modifiersOf(storeId, pricebookId))
    if (test(modifier)) window.add(modifier);
  return { modifiers: window.items, total: window.total };
}

export type PriceOfBook = { book: PricebookRecord; price: PriceRecord };

/** Price books read a request (the store's books, in creation order). */
const BOOKS_A_READ = 100;

/**
 * Books whose prices are counted or read at once: a few requests side by side, not one a book in turn. Few:
 * on a new container each request beside another opens a connection of its own (in AWS, a TLS handshake on
 * the function's share of a CPU), and a store of up to four books is counted in one round trip.
 */
const BOOKS_AT_ONCE = 4;

/**
 * A page of the prices of every book of the store (`GET /pcm/pricebooks/prices`): books in creation order,
 * each book's prices in creation order. Without a filter, each book's prices are counted (COUNT queries,
 * several books at once) and only the books the page falls in are read, from the position it starts at;
 * with one, every price of the store is read (by claims for an sku filter) and one page of them held.
 */
export async function listAllPrices(
  storeId: string,
  page: Page,
  filter: EntryFilter | undefined,
): Promise<{ prices: PriceOfBook[]; total: number }> {
  const books = await pricebooksOf(storeId);
  if (filter !== undefined) {
    const window = new PageWindow<PriceOfBook>(page);
    for (const book of books)
      for await (const price of matchingPrices(storeId, book.id, filter)) window.add({ book, price });
    return { prices: window.items, total: window.total };
  }
  // The first book's share starts where the page does: read beside the counts, it is the only read a page
  // within the first book needs.
  const [counts, firstRead] = await Promise.all([
    mapAtMost(books, BOOKS_AT_ONCE, (book) => priceRepository.countPrices(storeId, book.id)),
    books[0] === undefined ? [] : priceRepository.pricesAt(storeId, books[0].id, page),
  ]);
  // Each book's share of the page: the positions of the page that fall among its prices.
  const shares: { book: PricebookRecord; offset: number; limit: number }[] = [];
  let start = 0;
  for (const [index, book] of books.entries()) {
    const count = counts[index] ?? 0;
    const from = Math.max(page.offset, start);
    const to = Math.min(page.offset + page.limit, start + count);
    if (from < to) shares.push({ book, offset: from - start, limit: to - from });
    start += count;
  }
  const reads = await mapAtMost(shares, BOOKS_AT_ONCE, (share) =>
    share.book === books[0]
      ? Promise.resolve(firstRead)
      : priceRepository.pricesAt(storeId, share.book.id, share),
  );
  // A price added since the count is not this page's: a book's share is what the counts gave it.
  const prices = shares.flatMap((share, index) =>
    (reads[index] ?? []).slice(0, share.limit).map((price) => ({ book: share.book, price })),
  );
  return { prices, total: start };
}

/** Every price book of the store, in creation order, read BOOKS_A_READ at a time. */
async function pricebooksOf(storeId: string): Promise<PricebookRecord[]> {
  const books: PricebookRecord[] = [];
  for (let offset = 0; ; offset += BOOKS_A_READ) {
    const { pricebooks } = await pricebookRepository.page(storeId, { limit: BOOKS_A_READ, offset });
    books.push(...pricebooks);
    if (pricebooks.length < BOOKS_A_READ) return books;
  }
}
