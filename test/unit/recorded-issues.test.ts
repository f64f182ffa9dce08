import {
  MAX_RECORDED_ISSUE_CHARS,
  MAX_RECORDED_ISSUES_BYTES,
  recordableIssues,
} from '../../lib/catalog/recorded-issues';

const issue = (n: number, pathChars = 10) => ({
  path: `products[${n}].attributes.${'x'.repeat(pathChars)}`,
  rule: 'schema',
  message: `must not have the attribute (${n})`,
});

describe('recordableIssues: what a failed release record keeps', () => {
  it('keeps short issues as they are', () => {
    const issues = [issue(0), issue(1)];
    expect(recordableIssues(issues)).toEqual(issues);
  });

  it('cuts a long path or message to its first characters, marked with an ellipsis', () => {
    const [kept] = recordableIssues([{ path: 'p'.repeat(5000), rule: 'r', message: 'm'.repeat(1001) }]);
    expect(kept?.path).toBe(`${'p'.repeat(MAX_RECORDED_ISSUE_CHARS - 1)}…`);
    expect(kept?.message).toBe(`${'m'.repeat(MAX_RECORDED_ISSUE_CHARS - 1)}…`);
    expect(kept?.rule).toBe('r');
  });

  it('keeps the first issues that fit the record, in order, and never none', () => {
    const issues = Array.from({ length: 100 }, (_, n) => issue(n, 5000));
    const kept = recordableIssues(issues);
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(MAX_RECORDED_ISSUES_BYTES);
    // As many as fit: one more would not (each issue is about 1,060 bytes once its path is cut).
    expect(kept.length).toBe(60);
    const oneMore = recordableIssues(
      issues.slice(0, 61).map((each) => ({ ...each, path: each.path.slice(0, 999) })),
    );
    expect(Buffer.byteLength(JSON.stringify([...kept, oneMore[60]]))).toBeGreaterThan(
      MAX_RECORDED_ISSUES_BYTES,
    );
    expect(kept.map((each) => each.message)).toEqual(issues.slice(0, 60).map((each) => each.message));
    expect(recordableIssues([issue(0, 200_000)])).toHaveLength(1);
  });
});
