import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BenchResults,
  renderPerformanceTable,
  TABLE_END,
  TABLE_START,
  withPerformanceTable,
} from '../../bench/results-table';

const ROOT = join(__dirname, '../..');
const results = JSON.parse(readFileSync(join(ROOT, 'bench/results.json'), 'utf8')) as BenchResults;
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe("README's performance table", () => {
  it('is the rendering of bench/results.json (npm run bench rewrites both)', () => {
    expect(withPerformanceTable(readme, results)).toBe(readme);
  });

  it('changes with the results, and says on what each figure was measured', () => {
    const slower = structuredClone(results);
    slower.publish_10k.ratio = 1.6;
    const table = renderPerformanceTable(slower);
    expect(table).toContain('(ratio 1.60)');
    expect(table).toContain('ratio <= 1.5: **missed**');
    expect(withPerformanceTable(readme, slower)).not.toBe(readme);
    for (const row of table.split('\n').slice(2)) expect(row.split(' | ')[1]).toMatch(/\S/);
  });

  it('shows what a function that does nothing costs beside node -e 0, once a run measured it', () => {
    const { cold_start_floor: _floor, ...before } = structuredClone(results);
    expect(renderPerformanceTable(before)).not.toContain('a function that does nothing');
    const measured = { ...before, cold_start_floor: { median_ms: 42.5, node_baseline_ms: 35.4 } };
    expect(renderPerformanceTable(measured)).toContain('; a function that does nothing: +7.1 ms');
  });

  it('is the only performance table in the README and the docs', () => {
    const start = readme.indexOf(TABLE_START);
    const outside = readme.slice(0, start) + readme.slice(readme.indexOf(TABLE_END));
    expect(outside).not.toMatch(/\|\s*figure\s*\|/);
    expect(outside).not.toContain('1.94 s');
  });
});
