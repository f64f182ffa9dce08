import { runHistories } from '../../histories/session';

/*
 * A deliberately broken build, for this test only: every sku claim is written without its condition (a Put
 * that overwrites whichever product held the sku), as a repository that forgot `attribute_not_exists`
 * would. The commands module is substituted in this test's module registry; nothing in functions/ or lib/
 * can switch it on. The default history run must catch two products holding one sku.
 */
jest.mock('../../lib/store/dynamodb', () => {
  const actual = jest.requireActual('../../lib/store/dynamodb');
  class UnconditionalSkuClaims extends actual.TransactWriteCommand {
    constructor(input: {
      TransactItems?: { Put?: { Item?: { pk?: unknown }; ConditionExpression?: string } }[];
    }) {
      for (const item of input.TransactItems ?? [])
        if (item.Put && String(item.Put.Item?.pk).startsWith('PSKU#')) delete item.Put.ConditionExpression;
      super(input);
    }
  }
  return { ...actual, TransactWriteCommand: UnconditionalSkuClaims };
});

it('the default history run flags an sku claim without its condition', async () => {
  const report = await runHistories({ ops: 1000, clients: 8, seed: 1, faults: false });
  expect(report.anomalies).toBeGreaterThan(0);
  expect(report.text.join('\n')).toContain('(products and their skus): no linearization');
  expect(report.caught_after).toBeLessThanOrEqual(1000);
  process.stderr.write(`unconditional sku claim caught after ${report.caught_after} operations\n`);
}, 180_000);
