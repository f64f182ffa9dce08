import type { Currency } from '../store/currency-repository';

/** The platform's currency resource, legacy flat format (docs/currencies.md), as the SDK's `Currencies` reads it. */

export const currencyUrl = (origin: string, currencyId: string) => `${origin}/v2/currencies/${currencyId}`;

export function renderCurrency(currency: Currency, origin: string): Record<string, unknown> {
  return {
    id: currency.id,
    type: 'currency',
    code: currency.code,
    exchange_rate: currency.exchange_rate,
    format: currency.format,
    decimal_point: currency.decimal_point,
    thousand_separator: currency.thousand_separator,
    decimal_places: currency.decimal_places,
    default: currency.default,
    enabled: currency.enabled,
    links: { self: currencyUrl(origin, currency.id) },
    meta: {
      owner: 'store',
      timestamps: { created_at: currency.created_at, updated_at: currency.updated_at },
    },
  };
}
