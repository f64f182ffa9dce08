import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { WorstCaseFigures } from '../../bench/cache-worst-case';

/*
 * The catalog caches stay within their documented budget under the worst valid catalog:
 * children with 100 tags of 250 characters and the longest texts, published to several stores, each
 * with every child-index chunk read (one one-product page per chunk). Runs in a fresh process with the
 * Lambda's 256 MB heap, against this run's DynamoDB Local. Before, each decoded entry was charged a
 * fixed 480 bytes while it took ~52 KB, so the caches kept every store's index and grew without bound.
 */

const run = promisify(execFile);

it('charges the caches at least what they hold and keeps them within the budget, in a 256 MB heap', async () => {
  const { stdout } = await run(
    process.execPath,
    [
      '--expose-gc',
      '--max-old-space-size=256',
      '--import',
      'tsx',
      join(import.meta.dirname, '../../bench/cache-worst-case.ts'),
      '--stores',
      '3',
      '--children',
      '60',
      '--json',
    ],
    { env: process.env, maxBuffer: 1024 * 1024, timeout: 240_000 },
  );
  const figures = JSON.parse(stdout) as WorstCaseFigures;
  expect(figures.stores).toBe(3);
  // The weights are honest (what emptying the caches frees is no more than what they were charged,
  // with 1 MB for GC noise), and so the caches can never hold more than their budget.
  expect(figures.held_mb).toBeLessThanOrEqual(figures.charged_mb + 1);
  expect(figures.charged_mb).toBeLessThanOrEqual(figures.budget_mb);
  expect(figures.heap_growth_mb).toBeLessThanOrEqual(figures.budget_mb);
  // Each store's index is ~3 MB here: it is charged, so the caches' weights track what they hold
  // (before: +3 MB held per store, charged 0.03 MB). Kept small: it shares DynamoDB Local with the suite.
  expect(figures.held_mb).toBeGreaterThan(1);
}, 300_000);
