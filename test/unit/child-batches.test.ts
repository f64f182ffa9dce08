import { type ChildWrite, TRANSACTION_BYTES, transactionBatches } from '../../lib/store/child-repository';

/** How a build packs children into transactions: DynamoDB takes 100 items and 4 MB a transaction. */

const child = (index: number, sku: string, bytes: number, previousSku?: string): ChildWrite => ({
  id: `child-${index}`,
  options: [`option-${index}`],
  generation: 1,
  attributes: { name: 'x'.repeat(bytes), sku, status: 'draft', commodity_type: 'physical' },
  child_variations: [],
  price_modifiers: [],
  ...(previousSku === undefined
    ? {}
    : { previous: { child_id: `child-${index}`, options: [], generation: 1, sku: previousSku } }),
});
const THREE_ITEMS = () => 3;

describe('transaction batches', () => {
  it('hold at most 100 items with the parent check', () => {
    const children = Array.from({ length: 100 }, (_, i) => child(i, `S${i}`, 10));
    const batches = transactionBatches('store', children, THREE_ITEMS);
    expect(batches.map((batch) => batch.length)).toEqual([33, 33, 33, 1]);
  });

  it('hold at most TRANSACTION_BYTES of attributes, however few the items', () => {
    const children = Array.from({ length: 20 }, (_, i) => child(i, `S${i}`, 240_000));
    const batches = transactionBatches('store', children, THREE_ITEMS);
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) {
      const bytes = batch.reduce((sum, c) => sum + Buffer.byteLength(JSON.stringify(c.attributes)), 0);
      expect(bytes).toBeLessThanOrEqual(TRANSACTION_BYTES);
    }
    expect(batches.flat()).toHaveLength(20);
  });

  it('never touch one claim twice: a sku one child frees and another takes go to separate transactions', () => {
    const batches = transactionBatches(
      'store',
      [child(1, 'NEW-A', 10, 'OLD'), child(2, 'old', 10)],
      THREE_ITEMS,
    );
    expect(batches.map((batch) => batch.map((c) => c.id))).toEqual([['child-1'], ['child-2']]);
  });
});
