import { runHistories } from '../../histories/session';

/*
 * A deliberately broken build, for this test only: every claim of a price's sku is written without its
 * condition (a Put that overwrites whichever price of the book held the sku), as a repository that forgot
 * `attribute_not_exists` would. The commands module is substituted in this test's module registry; nothing
 * in functions/ or lib/ can switch it on. The default history run must catch two prices holding one sku.
 */
jest.mock('../../lib/store/dynamodb', () => {
  const actual = jest.requireActual('../../lib/store/dynamodb');
  class UnconditionalPriceSkuClaims extends actual.TransactWriteCommand {
    constructor(input: {
      TransactItems?: { Put?: { Item?: { sk?: unknown }; ConditionExpression?: string } }[];
    }) {
      for (const item of input.TransactItems ?? [])
        if (item.Put && String(item.Put.Item?.sk).startsWith('PRICE_SKU#'))
          delete item.Put.ConditionExpression;
      super(input);
    }
  }
  return { ...actual, TransactWriteCommand: UnconditionalPriceSkuClaims };
});

it('the default history run flags a price sku claim without its condition', async () => {
  const report = await runHistories({ ops: 1000, clients: 8, seed: 1, faults: false });
  expect(report.anomalies).toBeGreaterThan(0);
  expect(report.text.join('\n')).toContain('(prices of a book and their skus): no linearization');
  expect(report.caught_after).toBeLessThanOrEqual(1000);
  process.stderr.write(`unconditional price sku claim caught after ${report.caught_after} operations\n`);
}, 180_000);
