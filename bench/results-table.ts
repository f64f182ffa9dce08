import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeepOffsetFigures } from './catalog';
import type { CatalogProductsFigures } from './catalog-products';
import type { HttpFirstRequestsFigures } from './http-first-requests';

/**
 * The README's performance table, generated from bench/results.json (the last `npm run bench`): the
 * only place the figures are written out. `npm run bench` rewrites it; a test fails when the README's
 * table is not the rendering of the committed results.
 */

/** Fresh processes per function in the cold-start stage: 138 functions stay near ten minutes. */
export const COLD_START_RUNS = 15;

/** The targets; every figure is compared with a baseline from the same run. */
export const TARGETS = {
  bundle_kib_max: 350,
  cold_start_over_node_ms_max: 35,
  operation_ratio_max: 1.3,
  cold_ratio_max: 3,
  rcu_offset9975_max: 150,
  warm_ratio_max: 1.2,
  include_warm_ratio_max: 1.3,
  publish_ratio_max: 1.5,
  first_requests_p50_ms_max: 1.5,
  filtered_cold_ms_max: 100,
  rss_mb_max: 200,
};

export interface BenchResults {
  bundle_kb: Record<string, number>;
  cold_start: Record<string, { median_ms: number; node_baseline_ms: number }>;
  /**
   * A function that does nothing, measured the same way: what the harness costs every function. Absent in
   * results of runs before it was measured.
   */
  cold_start_floor?: { median_ms: number; node_baseline_ms: number };
  operations: Record<string, { p50_ms: number; p99_ms: number; db_p50_ms: number; ratio: number }>;
  /** The table renders these; `include` is reported by `npm run bench` itself. */
  child_products_deep_offset: Omit<DeepOffsetFigures, 'include'>;
  publish_10k: { seconds: number; items_per_s: number; raw_batchwrite_seconds: number; ratio: number };
  local_server: {
    rps: number;
    p99_ms: number;
    bare_node_rps: number;
    ratio: number;
    /** Absent in results of runs before the gateway's floor was measured. */
    gateway_floor_rps?: number;
    gateway_floor_ratio?: number;
  };
  /** Absent in results of runs before this stage existed. */
  http_first_requests?: HttpFirstRequestsFigures;
  memory: { list_child_products_rss_mb: number };
  /** Absent in results of runs before the storefront product reads existed. */
  catalog_products?: CatalogProductsFigures;
}

export const TABLE_START = '<!-- performance table: generated from bench/results.json by npm run bench -->';
export const TABLE_END = '<!-- end of the performance table -->';

const ROOT = join(import.meta.dirname, '..');
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const grouped = (value: number) => value.toLocaleString('en-US');
const met = (ok: boolean) => (ok ? 'met' : '**missed**');

/** Where each figure was measured: the same words in every row, so a reader can compare. */
const SETUP = {
  build: 'esbuild bundle, as deployed',
  fresh: 'fresh `node` process, in-memory DynamoDB Local',
  inProcess: 'in-process handler, in-memory DynamoDB Local',
  http: 'HTTP, `npm start`-style server, in-memory DynamoDB Local',
};

/** Operations whose handler serves from the release caches (their baseline is the uncached reads). */
const CACHED_READS = new Set([
  'list-child-products',
  'get-catalog',
  'get-catalog-product',
  'list-catalog-products',
]);

/** The markdown table of one bench run. */
export function renderPerformanceTable(r: BenchResults): string {
  const rows: string[][] = [];
  const bundles = Object.values(r.bundle_kb);
  const maxBundle = Math.max(...bundles);
  rows.push([
    'bundle size per function',
    SETUP.build,
    `${fixed(Math.min(...bundles), 1)}-${fixed(maxBundle, 1)} KiB`,
    '—',
    `<= ${TARGETS.bundle_kib_max} KiB: ${met(maxBundle <= TARGETS.bundle_kib_max)}`,
  ]);
  const cold = Object.entries(r.cold_start).map(([name, c]) => ({
    name,
    over: c.median_ms - c.node_baseline_ms,
    c,
  }));
  const overs = cold.map((each) => each.over);
  const missed = cold.filter((each) => each.over > TARGETS.cold_start_over_node_ms_max);
  const baselines = cold.map((each) => each.c.node_baseline_ms);
  rows.push([
    `cold start (import + one call), median of ${COLD_START_RUNS}`,
    SETUP.fresh,
    `+${fixed(Math.min(...overs), 1)} to +${fixed(Math.max(...overs), 1)} ms over \`node -e 0\`${
      missed.length > 0
        ? ` (over the target: ${missed.map((each) => `${each.name} +${fixed(each.over, 1)}`).join(', ')})`
        : ''
    }`,
    `\`node -e 0\`: ${fixed(Math.min(...baselines), 1)}-${fixed(Math.max(...baselines), 1)} ms${
      r.cold_start_floor === undefined
        ? ''
        : `; a function that does nothing: +${fixed(r.cold_start_floor.median_ms - r.cold_start_floor.node_baseline_ms, 1)} ms`
    }`,
    `<= +${TARGETS.cold_start_over_node_ms_max} ms: ${missed.length === 0 ? 'met' : `**missed by ${missed.length} of ${cold.length}**`}`,
  ]);
  for (const [name, o] of Object.entries(r.operations)) {
    const cached = CACHED_READS.has(name);
    rows.push([
      `\`${name}\` warm p50 / p99`,
      SETUP.inProcess,
      `${fixed(o.p50_ms)} / ${fixed(o.p99_ms)} ms`,
      `${cached ? 'uncached raw reads' : 'raw DynamoDB'} p50 ${fixed(o.db_p50_ms)} ms (ratio ${fixed(o.ratio)}${cached ? ': the caches' : ''})`,
      `ratio <= ${TARGETS.operation_ratio_max}: ${met(o.ratio <= TARGETS.operation_ratio_max)}`,
    ]);
  }
  const d = r.child_products_deep_offset;
  rows.push([
    'child list, 10,000 children, cold offset 0 / 9,975',
    SETUP.inProcess,
    `${fixed(d.cold_offset0_ms)} / ${fixed(d.cold_offset9975_ms)} ms (ratio ${fixed(d.cold_ratio)}), ${d.rcu_offset9975} read units`,
    `naive full read: ${fixed(d.naive_full_read_ms, 0)} ms, ${grouped(d.naive_rcu)} read units`,
    `ratio <= ${TARGETS.cold_ratio_max}, <= ${TARGETS.rcu_offset9975_max} RU: ${met(d.cold_ratio <= TARGETS.cold_ratio_max && d.rcu_offset9975 <= TARGETS.rcu_offset9975_max)}`,
  ]);
  rows.push([
    'child list, warm offset 0 / 9,975',
    SETUP.inProcess,
    `${fixed(d.warm_offset0_ms, 3)} / ${fixed(d.warm_offset9975_ms, 3)} ms (ratio ${fixed(d.warm_ratio)})`,
    '—',
    `ratio <= ${TARGETS.warm_ratio_max}: ${met(d.warm_ratio <= TARGETS.warm_ratio_max)}`,
  ]);
  const c = r.catalog_products;
  if (c) {
    rows.push([
      '`GET /catalog/products/{id}` warm p50 / p99',
      SETUP.inProcess,
      `${fixed(c.product_warm_p50_ms, 3)} / ${fixed(c.product_warm_p99_ms, 3)} ms`,
      '—',
      `p50 <= 1 ms: ${met(c.product_warm_p50_ms <= 1)}`,
    ]);
    const [small, large] = [c.slug_100, c.slug_100k];
    rows.push([
      `\`filter=eq(slug,…)\`, ${grouped(large.products)} products, cold / warm p50`,
      SETUP.inProcess,
      `${fixed(large.cold_p50_ms)} / ${fixed(large.warm_p50_ms, 3)} ms, ${large.cold_round_trips} / ${large.warm_round_trips} round trips`,
      `${grouped(small.products)} products: ${fixed(small.cold_p50_ms)} / ${fixed(small.warm_p50_ms, 3)} ms, ${small.cold_round_trips} / ${small.warm_round_trips} round trips`,
      `same round trips: ${met(large.cold_round_trips === small.cold_round_trips && large.warm_round_trips === small.warm_round_trips)}`,
    ]);
  }
  const p = r.publish_10k;
  rows.push([
    'publish of the 10,000-child release (all its items)',
    'publisher in-process, in-memory DynamoDB Local',
    `${fixed(p.seconds)} s (${grouped(p.items_per_s)} items/s)`,
    `raw \`BatchWriteItem\` ${fixed(p.raw_batchwrite_seconds)} s (ratio ${fixed(p.ratio)})`,
    `ratio <= ${TARGETS.publish_ratio_max}: ${met(p.ratio <= TARGETS.publish_ratio_max)}`,
  ]);
  const l = r.local_server;
  rows.push([
    'local API, warm child list',
    SETUP.http,
    `${grouped(l.rps)} rps, p99 ${l.p99_ms} ms`,
    `bare \`node:http\`: ${grouped(l.bare_node_rps)} rps (ratio ${fixed(l.ratio)})${
      l.gateway_floor_rps === undefined
        ? ''
        : `; the local gateway alone, answering at once: ${grouped(l.gateway_floor_rps)} rps (ratio ${fixed(l.gateway_floor_ratio ?? 0)})`
    }`,
    'information (no target: 5,000 requests/s is plenty for development)',
  ]);
  const h = r.http_first_requests;
  if (h) {
    const f = h.first_requests;
    rows.push([
      `fresh local API: the 30 child-list requests after the first (${grouped(f.children)} children)`,
      SETUP.http,
      `p50 ${fixed(f.first30_p50_ms)} ms`,
      `steady state (after 70 more): p50 ${fixed(f.steady_p50_ms)} ms`,
      `<= ${TARGETS.first_requests_p50_ms_max} ms: ${met(f.first30_p50_ms <= TARGETS.first_requests_p50_ms_max)}`,
    ]);
    const c = h.filtered_cold;
    rows.push([
      `filtered first page of a parent the container never read (${grouped(c.children)} children)`,
      SETUP.http,
      `p50 ${fixed(c.p50_ms, 1)} ms (${c.processes} fresh processes)`,
      '—',
      `<= ${TARGETS.filtered_cold_ms_max} ms: ${met(c.p50_ms <= TARGETS.filtered_cold_ms_max)}`,
    ]);
  }
  rows.push([
    'child-list function RSS, all 400 pages cached',
    'fresh `node` process with the bundle',
    `${fixed(r.memory.list_child_products_rss_mb, 0)} MB`,
    '—',
    `<= ${TARGETS.rss_mb_max} MB: ${met(r.memory.list_child_products_rss_mb <= TARGETS.rss_mb_max)}`,
  ]);
  const header = ['figure', 'measured on', 'measured', 'baseline in the same run', 'target'];
  return [header, header.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

/** The README with its performance table replaced by the rendering of `results`. */
export function withPerformanceTable(readme: string, results: BenchResults): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end < start) throw new Error('README.md has no performance table markers');
  return `${readme.slice(0, start + TABLE_START.length)}\n${renderPerformanceTable(results)}\n${readme.slice(end)}`;
}

/** Rewrites README.md's performance table from bench/results.json. */
export function updateReadmeTable(): void {
  const results = JSON.parse(readFileSync(join(ROOT, 'bench/results.json'), 'utf8')) as BenchResults;
  const file = join(ROOT, 'README.md');
  writeFileSync(file, withPerformanceTable(readFileSync(file, 'utf8'), results));
}
