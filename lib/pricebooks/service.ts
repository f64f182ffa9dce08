import { BadRequestError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import type { WriteCaller } from '../store/caller-check';
import { priceRepository } from '../store/price-repository';
import {
  MAX_PRICEBOOKS_PER_STORE,
  PricebookLimitError,
  PricebookNameTakenError,
  PricebookNotFoundError,
  type PricebookRecord,
  PricebookWriteConflictError,
  pricebookRepository,
} from '../store/pricebook-repository';
import type { PricebookAttributes } from '../validation/pricebook';

/** The platform's price books (docs/price-books.md): names unique in the store, at most MAX_PRICEBOOKS_PER_STORE. */

async function answered<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof PricebookNotFoundError) throw new NotFoundError('price book not found');
    if (error instanceof PricebookNameTakenError) {
      throw new ConflictError('the store has a price book of this name already', 'data.attributes.name');
    }
    if (error instanceof PricebookLimitError) {
      throw new ConflictError(
        `the store has ${MAX_PRICEBOOKS_PER_STORE} price books, the most it may hold: delete one first`,
      );
    }
    if (error instanceof PricebookWriteConflictError) throw new ConflictError(WRITE_CONFLICT);
    throw error;
  }
}

export async function pricebookOf(storeId: string, id: string): Promise<PricebookRecord> {
  const book = await pricebookRepository.get(storeId, id);
  if (!book) throw new NotFoundError('price book not found');
  return book;
}

export async function createPricebook(
  storeId: string,
  attributes: PricebookAttributes & { name: string },
  caller: WriteCaller | undefined,
): Promise<PricebookRecord> {
  const at = new Date().toISOString();
  const book = { id: uuidv7(), ...attributes, created_at: at, updated_at: at };
  await answered(pricebookRepository.create(storeId, book, caller));
  return { ...book, version: 1 };
}

export function updatePricebook(
  storeId: string,
  id: string,
  changes: PricebookAttributes,
  caller: WriteCaller | undefined,
): Promise<PricebookRecord> {
  // Nothing sent, nothing changed (not even updated_at).
  if (Object.keys(changes).length === 0) return pricebookOf(storeId, id);
  return answered(pricebookRepository.update(storeId, id, changes, new Date().toISOString(), caller));
}

/**
 * Deletes a book (at once: 404 from then on, its name free), then everything its partition held (prices,
 * modifiers, their claims), 100 items a round. Should the request stop part way, what is left is reachable
 * by nothing (every read goes through the book, and ids are never reused).
 */
export async function deletePricebook(storeId: string, id: string, caller: WriteCaller): Promise<void> {
  await answered(pricebookRepository.delete(storeId, id, caller));
  await priceRepository.deleteContents(storeId, id);
}

/**
 * 400 for a query parameter the price book routes do not take: `filter` on the book routes, and any
 * `include` but `prices` (taken where `includes` says): never silently ignored. Answers whether prices are
 * to be included.
 */
export function refuseUnservedParameters(
  query: Record<string, string | undefined> | undefined,
  includes: 'prices' | 'nothing' = 'nothing',
): boolean {
  if (query?.filter !== undefined) {
    throw new BadRequestError('filter is not supported on the price book routes', 'filter');
  }
  const include = query?.include;
  if (include === undefined) return false;
  if (includes === 'prices' && include === 'prices') return true;
  throw new BadRequestError(
    includes === 'prices' ? 'include takes only prices here' : 'include is not supported on this route',
    'include',
  );
}
