import {
  applyModifiers,
  applyModifiersToPricing,
  defaultCurrency,
  displayPrice,
  formatPrice,
  renderPricing,
} from '../../lib/catalog/prices';
import type { PriceModifier } from '../../lib/catalog/types';
import type { CurrencySettings } from '../../lib/store/store-repository';

const USD: CurrencySettings = {
  format: '${price}',
  decimal_point: '.',
  thousand_separator: ',',
  decimal_places: 2,
  default: true,
};
const EUR: CurrencySettings = {
  format: '{price} €',
  decimal_point: ',',
  thousand_separator: '.',
  decimal_places: 2,
  default: false,
};

const increment = (amounts: Record<string, number>): PriceModifier => ({
  modifier_type: 'price_increment',
  currencies: Object.fromEntries(
    Object.entries(amounts).map(([code, amount]) => [code, { amount, includes_tax: false }]),
  ),
});
const decrement = (amounts: Record<string, number>): PriceModifier => ({
  ...increment(amounts),
  modifier_type: 'price_decrement',
});
const equals = (amounts: Record<string, number>, includesTax = true): PriceModifier => ({
  modifier_type: 'price_equals',
  currencies: Object.fromEntries(
    Object.entries(amounts).map(([code, amount]) => [code, { amount, includes_tax: includesTax }]),
  ),
});

const base = { USD: { amount: 2500, includes_tax: false }, EUR: { amount: 2300, includes_tax: true } };

describe('applyModifiers', () => {
  it('adds price_increment per currency and leaves currencies the modifier does not name', () => {
    expect(applyModifiers(base, [increment({ USD: 300 })])).toEqual({
      USD: { amount: 2800, includes_tax: false },
      EUR: { amount: 2300, includes_tax: true },
    });
  });

  it('subtracts price_decrement and never goes below 0', () => {
    expect(applyModifiers(base, [decrement({ USD: 1000, EUR: 5000 })])).toEqual({
      USD: { amount: 1500, includes_tax: false },
      EUR: { amount: 0, includes_tax: true },
    });
  });

  it("sets price_equals, taking the modifier's includes_tax", () => {
    expect(applyModifiers(base, [equals({ USD: 990 }, true)])).toEqual({
      USD: { amount: 990, includes_tax: true },
      EUR: { amount: 2300, includes_tax: true },
    });
  });

  it('applies several modifiers in the order the product lists them', () => {
    expect(applyModifiers(base, [equals({ USD: 1000 }, false), increment({ USD: 250 })]).USD).toEqual({
      amount: 1250,
      includes_tax: false,
    });
    expect(applyModifiers(base, [increment({ USD: 250 }), equals({ USD: 1000 }, false)]).USD).toEqual({
      amount: 1000,
      includes_tax: false,
    });
    expect(applyModifiers(base, [decrement({ USD: 3000 }), increment({ USD: 100 })]).USD?.amount).toBe(100);
  });

  it('prices only the currencies of the base price (a modifier does not add a currency)', () => {
    expect(
      Object.keys(applyModifiers({ USD: { amount: 1, includes_tax: false } }, [equals({ GBP: 5 })])),
    ).toEqual(['USD']);
  });

  it('returns the same amounts without modifiers and does not mutate its input', () => {
    const input = structuredClone(base);
    expect(applyModifiers(input, [])).toEqual(base);
    applyModifiers(input, [increment({ USD: 1 })]);
    expect(input).toEqual(base);
  });
});

describe('applyModifiersToPricing', () => {
  it('applies the modifiers to every tier as well', () => {
    const pricing = {
      currencies: base,
      tiers: { bulk: { minimum_quantity: 10, price: { USD: { amount: 2200, includes_tax: false } } } },
    };
    expect(applyModifiersToPricing(pricing, [increment({ USD: 300 })])).toEqual({
      currencies: { USD: { amount: 2800, includes_tax: false }, EUR: { amount: 2300, includes_tax: true } },
      tiers: { bulk: { minimum_quantity: 10, price: { USD: { amount: 2500, includes_tax: false } } } },
    });
  });
});

describe('formatPrice', () => {
  it.each([
    [47500, USD, '$475.00'],
    [0, USD, '$0.00'],
    [5, USD, '$0.05'],
    [99, USD, '$0.99'],
    [100000, USD, '$1,000.00'],
    [123456789, USD, '$1,234,567.89'],
    [123456789, EUR, '1.234.567,89 €'],
    [2300, EUR, '23,00 €'],
  ])('formats %p as %p', (amount, settings, expected) => {
    expect(formatPrice(amount as number, settings as CurrencySettings)).toBe(expected);
  });

  it('handles currencies without minor units and with three decimal places', () => {
    const jpy = {
      format: '¥{price}',
      decimal_point: '.',
      thousand_separator: ',',
      decimal_places: 0,
      default: true,
    };
    expect(formatPrice(1234567, jpy)).toBe('¥1,234,567');
    const kwd = {
      format: '{price} KWD',
      decimal_point: '.',
      thousand_separator: '',
      decimal_places: 3,
      default: true,
    };
    expect(formatPrice(1234567, kwd)).toBe('1234.567 KWD');
    expect(formatPrice(7, kwd)).toBe('0.007 KWD');
  });

  it('keeps a literal $ in the format (no replacement patterns)', () => {
    expect(formatPrice(100, { ...USD, format: '$$ {price} $&' })).toBe('$$ 1.00 $&');
  });
});

describe('displayPrice and defaultCurrency', () => {
  it("shows the store's default currency on both sides (no tax rates are modelled)", () => {
    expect(displayPrice(base, { USD, EUR })).toEqual({
      with_tax: { amount: 2500, currency: 'USD', formatted: '$25.00' },
      without_tax: { amount: 2500, currency: 'USD', formatted: '$25.00' },
    });
    expect(displayPrice(base, { USD: { ...USD, default: false }, EUR: { ...EUR, default: true } })).toEqual({
      with_tax: { amount: 2300, currency: 'EUR', formatted: '23,00 €' },
      without_tax: { amount: 2300, currency: 'EUR', formatted: '23,00 €' },
    });
  });

  it('is undefined when the price has no amount in the default currency', () => {
    expect(displayPrice({ EUR: { amount: 1, includes_tax: true } }, { USD, EUR })).toBeUndefined();
    expect(displayPrice(base, {})).toBeUndefined();
  });

  it('picks the currency marked default, else the first', () => {
    expect(defaultCurrency({ EUR, USD })).toBe('USD');
    expect(defaultCurrency({ EUR, GBP: { ...EUR } })).toBe('EUR');
    expect(defaultCurrency({})).toBeUndefined();
  });
});

describe('renderPricing', () => {
  it('puts tiers under price.tiers only when there are any', () => {
    expect(renderPricing({ currencies: base, tiers: {} })).toEqual(base);
    const tiers = { bulk: { minimum_quantity: 5, price: { USD: { amount: 1, includes_tax: false } } } };
    expect(renderPricing({ currencies: base, tiers })).toEqual({ ...base, tiers });
  });
});
