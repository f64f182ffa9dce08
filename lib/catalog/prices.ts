import type { CurrencySettings } from '../store/store-repository';
import type { DisplayPrice, PriceMap, PriceModifier, PriceTier, ProductPricing } from './types';

/** Applies modifiers, in order, to one amount: increments add, decrements subtract (never below 0), equals set. */
function modifyAmount(amount: number, modifier: PriceModifier, code: string): number {
  const change = modifier.currencies[code];
  if (change === undefined) return amount;
  switch (modifier.modifier_type) {
    case 'price_increment':
      return Math.min(Number.MAX_SAFE_INTEGER, amount + change.amount);
    case 'price_decrement':
      return Math.max(0, amount - change.amount);
    case 'price_equals':
      return change.amount;
  }
}

/**
 * A price map with the modifiers applied per currency. Only the currencies of `prices` are priced: a
 * modifier without an entry for a currency leaves that currency unchanged. `price_equals` also takes the
 * modifier's `includes_tax`.
 */
export function applyModifiers(prices: PriceMap, modifiers: PriceModifier[]): PriceMap {
  const result: PriceMap = {};
  for (const [code, entry] of Object.entries(prices)) {
    let amount = entry.amount;
    let includesTax = entry.includes_tax;
    for (const modifier of modifiers) {
      amount = modifyAmount(amount, modifier, code);
      const change = modifier.currencies[code];
      if (modifier.modifier_type === 'price_equals' && change !== undefined)
        includesTax = change.includes_tax;
    }
    result[code] = { amount, includes_tax: includesTax };
  }
  return result;
}

/** A product's prices (currencies and every tier) with the modifiers applied. */
export function applyModifiersToPricing(pricing: ProductPricing, modifiers: PriceModifier[]): ProductPricing {
  if (modifiers.length === 0) return pricing;
  const tiers: Record<string, PriceTier> = {};
  for (const [name, tier] of Object.entries(pricing.tiers)) {
    tiers[name] = { minimum_quantity: tier.minimum_quantity, price: applyModifiers(tier.price, modifiers) };
  }
  return { currencies: applyModifiers(pricing.currencies, modifiers), tiers };
}

/** The code of the store's default currency (the one marked `default`, else the first). */
export function defaultCurrency(currencies: Record<string, CurrencySettings>): string | undefined {
  const entries = Object.entries(currencies);
  return (entries.find(([, settings]) => settings.default) ?? entries[0])?.[0];
}

/**
 * Formats an amount in minor units with the currency's settings: `47500` with `${price}`, `.`, `,` and
 * 2 decimal places gives `$475.00`; `123456789` gives `$1,234,567.89`.
 */
export function formatPrice(amount: number, settings: CurrencySettings): string {
  const places = settings.decimal_places;
  const digits = String(Math.trunc(Math.abs(amount))).padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, settings.thousand_separator);
  const number = `${amount < 0 ? '-' : ''}${grouped}${places > 0 ? settings.decimal_point + fraction : ''}`;
  return settings.format.split('{price}').join(number);
}

/**
 * `meta.display_price` for a price map in `code` (default: the store's default currency); undefined when
 * the map has no price in that currency. No tax rates are modelled, so both sides carry the list amount.
 */
export function displayPrice(
  prices: PriceMap,
  currencies: Record<string, CurrencySettings>,
  code: string | undefined = defaultCurrency(currencies),
): DisplayPrice | undefined {
  if (code === undefined) return undefined;
  const entry = prices[code];
  const settings = currencies[code];
  if (entry === undefined || settings === undefined) return undefined;
  const shown = { amount: entry.amount, currency: code, formatted: formatPrice(entry.amount, settings) };
  return { with_tax: { ...shown }, without_tax: { ...shown } };
}

/** The wire shape of a product's `price`: the currency map plus `tiers` when there are any. */
export function renderPricing(pricing: ProductPricing): Record<string, unknown> {
  const rendered: Record<string, unknown> = { ...pricing.currencies };
  if (Object.keys(pricing.tiers).length > 0) rendered.tiers = pricing.tiers;
  return rendered;
}
