import { IdTable } from '../../lib/catalog/pipeline/id-table';
import { uuidv7 } from '../../lib/ids';

describe('IdTable', () => {
  it('maps ids to numbers, in the order first set, through its growth', () => {
    const table = new IdTable();
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    for (const [n, id] of ids.entries()) table.set(id, n);
    expect(table.size).toBe(5000);
    expect(ids.every((id, n) => table.get(id) === n)).toBe(true);
    expect([...table.keys()]).toEqual(ids);
    table.set(ids[7] as string, 42);
    expect(table.get(ids[7] as string)).toBe(42);
    expect(table.size).toBe(5000);
    expect(table.get(uuidv7())).toBeUndefined();
    expect(table.has(ids[4999] as string)).toBe(true);
  });

  it('keeps ids of any other form as given, among the others in order', () => {
    const table = new IdTable();
    const upper = uuidv7().toUpperCase();
    const lower = uuidv7();
    table.set(lower, 1);
    table.set('product-7', 2);
    table.set(upper, 3);
    table.set('product-7', 4);
    expect([...table.keys()]).toEqual([lower, 'product-7', upper]);
    expect(table.get('product-7')).toBe(4);
    expect(table.get(upper)).toBe(3);
    expect(table.get(upper.toLowerCase())).toBeUndefined();
    expect(table.size).toBe(3);
  });

  it('refuses a value it cannot hold', () => {
    expect(() => new IdTable().set(uuidv7(), -1)).toThrow(RangeError);
    expect(() => new IdTable().set(uuidv7(), 2 ** 31)).toThrow(RangeError);
  });
});
