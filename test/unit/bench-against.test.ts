import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundlesAt, type ColdStartComparison, describeComparison } from '../../bench/against';
import type { ColdStart } from '../../bench/cold-start';

const run = (median: number, baseline: number, handler: number): ColdStart => ({
  median_ms: median,
  node_baseline_ms: baseline,
  phases: { boot: 40, init: 14, before_handler: 11, handler, response: 0.1, exit: 10 },
});

describe("the bench's comparison with another commit", () => {
  it('prints each round over node -e 0 and the medians of the rounds and of each phase, before and now', () => {
    const comparison: ColdStartComparison = {
      against: [run(100, 50, 20), run(96, 50, 18), run(110, 52, 25)],
      current: [run(90, 50, 10), run(88, 51, 9), run(95, 50, 12)],
    };
    expect(describeComparison('pcm-get-product', 'abc123', comparison)).toBe(
      [
        '  pcm-get-product: over node -e 0, abc123 +50 +46 +58 | now +40 +37 +45: median +50 -> +40 ms (-10)',
        '    import+init 14 -> 14, auth+limiter 11 -> 11, handler 20 -> 10, exit 10 -> 10',
      ].join('\n'),
    );
  });

  it("bundles a commit's functions with that commit's own code, and leaves no worktree behind", () => {
    const out = mkdtempSync(join(tmpdir(), 'against-test-'));
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const worktrees = () => execFileSync('git', ['worktree', 'list'], { encoding: 'utf8' });
    const before = worktrees();
    const bundles = bundlesAt(head, ['get-currency'], out);
    expect(bundles['get-currency']?.file).toBe(join(out, 'get-currency.mjs'));
    expect(existsSync(join(out, 'get-currency.mjs'))).toBe(true);
    expect(readFileSync(join(out, 'get-currency.mjs'), 'utf8').length).toBeGreaterThan(10_000);
    expect(worktrees()).toBe(before);
    expect(() => bundlesAt(head, ['no-such-function'], out)).toThrow(/has no function no-such-function/);
    expect(() => bundlesAt('no-such-ref-anywhere', ['get-currency'], out)).toThrow(
      'no commit named no-such-ref-anywhere',
    );
    expect(worktrees()).toBe(before);
  }, 60_000);
});
