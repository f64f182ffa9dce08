import { chooseLocale } from './locale';
import type { DisplayPrices, ProductResource, StoredProduct } from './types';

/** The locale a request renders a product in: from `accept-language`, among the product's locales. */
export function productLocale(
  stored: StoredProduct,
  acceptLanguage: string | undefined,
  defaultLocale: string,
): string {
  return chooseLocale(acceptLanguage, Object.keys(stored.locales), defaultLocale);
}

/**
 * `meta` with its display prices in `currency`: unchanged when that is the currency it was rendered in,
 * else with the release's prices in that currency, and without a display price where the product has none.
 */
function metaIn(stored: StoredProduct, currency: string | undefined): Record<string, unknown> {
  const meta = stored.resource.meta;
  if (currency === undefined || currency === stored.currency) return meta;
  const prices: DisplayPrices = stored.display?.[currency] ?? {};
  const { display_price: _shown, original_display_price: _original, ...rest } = meta;
  const result: Record<string, unknown> = { ...rest };
  if (prices.display_price) result.display_price = prices.display_price;
  if (prices.original_display_price) result.original_display_price = prices.original_display_price;
  const components = meta.component_products as Record<string, Record<string, unknown>> | undefined;
  if (components) {
    const shown: Record<string, unknown> = {};
    for (const [id, entry] of Object.entries(components)) {
      const inCurrency = prices.component_products?.[id];
      const { display_price: _d, original_display_price: _o, tiers, ...other } = entry;
      const tierPrices: Record<string, unknown> = {};
      for (const [name, tier] of Object.entries((tiers ?? {}) as Record<string, Record<string, unknown>>)) {
        const { display_price: _t, ...tierRest } = tier;
        const tierShown = inCurrency?.tiers[name]?.display_price;
        tierPrices[name] = tierShown ? { ...tierRest, display_price: tierShown } : tierRest;
      }
      shown[id] = {
        ...other,
        ...(inCurrency?.display_price ? { display_price: inCurrency.display_price } : {}),
        ...(inCurrency?.original_display_price
          ? { original_display_price: inCurrency.original_display_price }
          : {}),
        tiers: tierPrices,
      };
    }
    result.component_products = shown;
  }
  return result;
}

/**
 * The product resource in one locale: `name` and `description` from that locale's text where the
 * product has one (else the base text), `attributes.language` naming the locale; display prices in
 * `currency` (default: the currency it was published in). The stored resource is shared (cached) and never
 * mutated.
 */
export function renderProduct(stored: StoredProduct, locale: string, currency?: string): ProductResource {
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
    meta: metaIn(stored, currency),
  };
}

/** Serialized products per stored product (cached, so they live and die with it), locale and currency. */
const renderedJson = new WeakMap<StoredProduct, Map<string, string>>();

/**
 * `renderProduct` as JSON text, computed once per cached stored product and locale: releases are
 * immutable, so a warm container answers a page by joining cached strings instead of re-rendering and
 * re-serializing 25 products (the largest cost of a warm request when measured).
 */
export function renderProductJson(stored: StoredProduct, locale: string, currency?: string): string {
  let byLocale = renderedJson.get(stored);
  if (!byLocale) {
    byLocale = new Map();
    renderedJson.set(stored, byLocale);
  }
  const key = currency === undefined ? locale : `${locale}|${currency}`;
  let json = byLocale.get(key);
  if (json === undefined) {
    json = JSON.stringify(renderProduct(stored, locale, currency));
    byLocale.set(key, json);
  }
  return json;
}
