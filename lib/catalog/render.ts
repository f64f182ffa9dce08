import { chooseLocale } from './locale';
import type { ProductResource, StoredProduct } from './types';

/** The locale a request renders a product in: from `accept-language`, among the product's locales. */
export function productLocale(
  stored: StoredProduct,
  acceptLanguage: string | undefined,
  defaultLocale: string,
): string {
  return chooseLocale(acceptLanguage, Object.keys(stored.locales), defaultLocale);
}

/**
 * The product of seed section 2.3 in one locale: `name` and `description` from that locale's text where the
 * product has one (else the base text), `attributes.language` naming the locale. The stored resource is
 * shared (cached) and never mutated.
 */
export function renderProduct(stored: StoredProduct, locale: string): ProductResource {
  const base = stored.resource;
  const text = Object.hasOwn(stored.locales, locale) ? stored.locales[locale] : undefined;
  return {
    id: base.id,
    type: 'product',
    attributes: {
      ...base.attributes,
      name: text?.name ?? base.attributes.name,
      description: text?.description ?? base.attributes.description,
      language: locale,
    },
    relationships: base.relationships,
    meta: base.meta,
  };
}

/** Serialized products per stored product (cached, so they live and die with it) and locale. */
const renderedJson = new WeakMap<StoredProduct, Map<string, string>>();

/**
 * `renderProduct` as JSON text, computed once per cached stored product and locale: releases are
 * immutable, so a warm container answers a page by joining cached strings instead of re-rendering and
 * re-serializing 25 products (the largest cost of a warm request when measured).
 */
export function renderProductJson(stored: StoredProduct, locale: string): string {
  let byLocale = renderedJson.get(stored);
  if (!byLocale) {
    byLocale = new Map();
    renderedJson.set(stored, byLocale);
  }
  let json = byLocale.get(locale);
  if (json === undefined) {
    json = JSON.stringify(renderProduct(stored, locale));
    byLocale.set(locale, json);
  }
  return json;
}
