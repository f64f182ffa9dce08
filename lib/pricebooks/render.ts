import type { PricebookRecord } from '../store/pricebook-repository';

/** The platform's price book resource (`type: "pricebook"`, docs/price-books.md), as the SDK's `PriceBooks` reads it. */

export const pricebookUrl = (origin: string, id: string) => `${origin}/pcm/pricebooks/${id}`;

export function renderPricebook(book: PricebookRecord): Record<string, unknown> {
  const { id, name, description, external_ref, created_at, updated_at } = book;
  return {
    id,
    type: 'pricebook',
    attributes: {
      name,
      ...(description === undefined ? {} : { description }),
      ...(external_ref === undefined ? {} : { external_ref }),
      created_at,
      updated_at,
    },
    meta: { owner: 'store' },
  };
}

/** One price book: `data` and the document's `links.self`. */
export function renderPricebookDocument(book: PricebookRecord, origin: string): Record<string, unknown> {
  return { data: renderPricebook(book), links: { self: pricebookUrl(origin, book.id) } };
}
