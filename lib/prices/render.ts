import { pricebookUrl } from '../pricebooks/render';
import type { PriceModifierRecord, PriceRecord } from '../store/price-repository';

/** The platform's `product-price` and `price-modifier` resources (docs/price-books.md). */

export const priceUrl = (origin: string, pricebookId: string, id: string) =>
  `${pricebookUrl(origin, pricebookId)}/prices/${id}`;
export const modifierUrl = (origin: string, pricebookId: string, id: string) =>
  `${pricebookUrl(origin, pricebookId)}/modifiers/${id}`;

/** A price; across books (`GET /pcm/pricebooks/prices`) with its book's `external_ref` when it has one. */
export function renderPrice(
  pricebookId: string,
  price: PriceRecord,
  pricebookExternalRef?: string,
): Record<string, unknown> {
  const { id, created_at, updated_at, ...attributes } = price;
  return {
    id,
    type: 'product-price',
    attributes: { ...attributes, created_at, updated_at },
    meta: { owner: 'store', pricebook_id: pricebookId },
    ...(pricebookExternalRef === undefined ? {} : { pricebook_external_ref: pricebookExternalRef }),
  };
}

export function renderModifier(pricebookId: string, modifier: PriceModifierRecord): Record<string, unknown> {
  const { id, created_at, updated_at, ...attributes } = modifier;
  return {
    id,
    type: 'price-modifier',
    attributes: { ...attributes, created_at, updated_at },
    meta: { owner: 'store', pricebook_id: pricebookId },
  };
}

export function renderPriceDocument(
  origin: string,
  pricebookId: string,
  price: PriceRecord,
): Record<string, unknown> {
  return { data: renderPrice(pricebookId, price), links: { self: priceUrl(origin, pricebookId, price.id) } };
}

export function renderModifierDocument(
  origin: string,
  pricebookId: string,
  modifier: PriceModifierRecord,
): Record<string, unknown> {
  return {
    data: renderModifier(pricebookId, modifier),
    links: { self: modifierUrl(origin, pricebookId, modifier.id) },
  };
}
