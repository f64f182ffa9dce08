import { parseFilter } from '../../lib/filter/index';
import { compileProductFilter, parseProductFilter, skusOf } from '../../lib/products/filter';
import type { ProductRecord } from '../../lib/store/product-repository';

/** The product list's filter: the shared grammar with `like`, and which operator may test which attribute. */

const product = (attributes: Partial<ProductRecord['attributes']>, id = 'a-1'): ProductRecord => ({
  id,
  attributes: { name: 'Tee', status: 'draft', commodity_type: 'physical', ...attributes },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  version: 1,
});
const matches = (filter: string, subject: ProductRecord) =>
  compileProductFilter(parseProductFilter(filter))(subject);

describe('parseProductFilter', () => {
  it('parses like with one value, and mpn as manufacturer_part_num', () => {
    expect(parseProductFilter('like(sku,TEE-*):eq(mpn,M1)')).toEqual([
      { op: 'like', attribute: 'sku', values: ['TEE-*'] },
      { op: 'eq', attribute: 'manufacturer_part_num', values: ['M1'] },
    ]);
  });

  it.each([
    [
      'like(sku,a,b)',
      "like(sku,...) takes exactly one value, found ',' at character 11; use in(sku,...) for several values",
    ],
    ['like(status,live)', "like cannot be used with attribute 'status' at character 6; use eq(status,...)"],
    ['in(owner,store)', "in cannot be used with attribute 'owner' at character 4; use eq(owner,...)"],
    ['gt(sku,a)', "unknown operator 'gt' at character 1; expected eq, like or in"],
  ])('refuses %s with 400 naming why', (filter, detail) => {
    expect(() => parseProductFilter(filter)).toThrow(expect.objectContaining({ status: 400, detail }));
  });

  it('leaves the catalog grammar without like', () => {
    expect(() => parseFilter('like(sku,a*)')).toThrow(
      expect.objectContaining({ detail: "unknown operator 'like' at character 1; expected eq or in" }),
    );
  });
});

describe('compileProductFilter', () => {
  it('like: * is any run, other characters literal (a dot is a dot), any case', () => {
    expect(matches('like(sku,tee.*)', product({ sku: 'TEE.RED' }))).toBe(true);
    expect(matches('like(sku,tee.*)', product({ sku: 'TEEXRED' }))).toBe(false);
    expect(matches('like(name,*E*)', product({ name: 'tee' }))).toBe(true);
    expect(matches('like(name,t)', product({ name: 'tee' }))).toBe(false);
  });

  it('eq: sku and id ignore case, names compare exactly, absent strings are empty', () => {
    expect(matches('eq(sku,tee-1)', product({ sku: 'TEE-1' }))).toBe(true);
    expect(matches('eq(id,A-1)', product({}))).toBe(true);
    expect(matches('eq(name,tee)', product({ name: 'Tee' }))).toBe(false);
    expect(matches('eq(upc_ean,x)', product({}))).toBe(false);
  });

  it('tags match any tag, in lower case; product_types and owner are derived', () => {
    expect(matches('eq(tags,RED)', product({ tags: ['blue', 'red'] }))).toBe(true);
    expect(matches('in(product_types,bundle)', product({}))).toBe(false);
    expect(matches('eq(product_types,standard):eq(owner,store)', product({}))).toBe(true);
  });

  it('skusOf names the skus an eq or in on sku allows, never a like', () => {
    expect(skusOf(parseProductFilter('in(sku,A,B):eq(status,live)'))).toEqual(['A', 'B']);
    expect(skusOf(parseProductFilter('like(sku,A*)'))).toBeUndefined();
  });
});
