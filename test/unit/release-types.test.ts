import type * as Input from '../../lib/catalog/release-input.generated';
import type {
  CatalogFile,
  CatalogNode,
  Component,
  ComponentOption,
  CustomInput,
  LocaleText,
  PriceEntry,
  PriceModifier,
  PriceTier,
  ProductAttributesInput,
  ProductInput,
  ReleaseDocument,
  ReleaseRuleInput,
  Sale,
  Variation,
  VariationOption,
} from '../../lib/catalog/types';
import type { CurrencySettings } from '../../lib/store/store-repository';

/**
 * The hand-written types of a validated document (lib/catalog/types.ts) against the types generated from
 * the schema (lib/catalog/release-input.generated.ts): for each object, the same field names, and every
 * normalised value is a value the schema accepts. `npm test` type-checks this file, so a field added to
 * one side only fails the build; the generated side is kept current by release-schema.test.ts.
 */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Fits<A, B> = [A] extends [B] ? true : false;
/** Same field names, and the normalised object fits the input type. */
type Agree<Normalised, Schema> =
  Equal<keyof Normalised, keyof Schema> extends true ? Fits<Normalised, Schema> : false;

type Checks = {
  document: Equal<keyof ReleaseDocument, Exclude<keyof Input.ReleaseDocumentInput, '$schema'>>;
  catalog: Agree<ReleaseDocument['catalog'], Input.ReleaseDocumentInput['catalog']>;
  currency: Agree<CurrencySettings, Input.CurrencySettings>;
  rule: Agree<ReleaseRuleInput, Input.Rule>;
  node: Agree<CatalogNode, Input.Node>;
  modifier: Agree<PriceModifier, Input.PriceModifier>;
  file: Agree<CatalogFile, Input.File>;
  product: Agree<Omit<ProductInput, 'attributes'>, Omit<Input.Product, 'attributes'>>;
  // `price` is restructured ({currencies, tiers} from a flat map with `tiers`), checked piece by piece below.
  attributes: Equal<keyof ProductAttributesInput, keyof Input.Attributes>;
  attributeValues: Fits<Omit<ProductAttributesInput, 'price'>, Omit<Input.Attributes, 'price'>>;
  priceEntry: Agree<PriceEntry, Input.PriceEntry>;
  tier: Agree<PriceTier, Input.Tier>;
  productCurrencies: Fits<PriceEntry, Input.ProductPrice[string]>;
  component: Agree<Component, Input.Component>;
  componentOption: Agree<ComponentOption, Input.ComponentOption>;
  customInput: Agree<CustomInput, Input.CustomInput>;
  locale: Agree<LocaleText, Input.LocaleText>;
  variation: Agree<Variation, Input.Variation>;
  variationOption: Agree<VariationOption, Input.VariationOption>;
  sale: Agree<Sale, Input.Sale>;
  productFile: Agree<ProductInput['files'][number], Input.ProductFile>;
};

/** Compiles only when every check above is true. */
const agreement: { [K in keyof Checks]: Checks[K] extends true ? true : never } = {
  document: true,
  catalog: true,
  currency: true,
  rule: true,
  node: true,
  modifier: true,
  file: true,
  product: true,
  attributes: true,
  attributeValues: true,
  priceEntry: true,
  tier: true,
  productCurrencies: true,
  component: true,
  componentOption: true,
  customInput: true,
  locale: true,
  variation: true,
  variationOption: true,
  sale: true,
  productFile: true,
};

describe('release document types', () => {
  it('the validated document types and the types generated from the schema agree (checked by tsc)', () => {
    expect(Object.values(agreement).every((check) => check === true)).toBe(true);
    expect(Object.keys(agreement)).toHaveLength(21);
  });
});
