import { HIERARCHY_WORKLOAD } from '../../histories/driver';
import { runHistories } from '../../histories/session';

/*
 * A deliberately broken build, for this test only: node writes no longer condition on the versions of the
 * ancestors they read (the ConditionChecks on nodes are dropped, and a parent's child count moves without
 * its version condition), as a repository that checked for cycles only on what it read would. The commands
 * module is substituted in this test's module registry; nothing in functions/ or lib/ can switch it on.
 * A history run aimed at hierarchies must catch a move that no order explains (two moves making a cycle).
 */
jest.mock('../../lib/store/dynamodb', () => {
  const actual = jest.requireActual('../../lib/store/dynamodb');
  type Item = {
    ConditionCheck?: { Key?: { sk?: unknown } };
    Update?: {
      Key?: { sk?: unknown };
      UpdateExpression?: string;
      ConditionExpression?: string;
      ExpressionAttributeValues?: Record<string, unknown>;
    };
  };
  class UncheckedAncestors extends actual.TransactWriteCommand {
    constructor(input: { TransactItems?: Item[] }) {
      const onNode = (key?: { sk?: unknown }) => String(key?.sk).startsWith('NODE#');
      const items = (input.TransactItems ?? []).filter((item) => !onNode(item.ConditionCheck?.Key));
      for (const item of items) {
        const update = item.Update;
        if (update && onNode(update.Key) && update.UpdateExpression === 'ADD children :delta') {
          delete update.ConditionExpression;
          delete update.ExpressionAttributeValues?.[':version'];
        }
      }
      super({ ...input, TransactItems: items });
    }
  }
  return { ...actual, TransactWriteCommand: UncheckedAncestors };
});

it('a history run on hierarchies flags node moves that do not condition on their ancestors', async () => {
  const report = await runHistories(HIERARCHY_WORKLOAD);
  expect(report.anomalies).toBeGreaterThan(0);
  expect(report.text.join('\n')).toContain('(hierarchy nodes (a tree) and their products): no linearization');
  process.stderr.write(`unchecked ancestors caught after ${report.caught_after} operations\n`);
}, 180_000);
