import { pathToFileURL } from 'node:url';
import { type CatalogRule, resolveCatalog } from '../lib/catalog/rules';
import {
  canonicalFilter,
  compileFilter,
  type FilterableProduct,
  MAX_FILTER_BYTES,
  matchesFilter,
  parseFilter,
} from '../lib/filter/index';
import { uuidv7 } from '../lib/ids';
import { measure, measurePair, progress, type Timing } from './support';

export interface FilterFigures {
  /** `eq(tags,sale):in(product_types,child)`: the common storefront filter. */
  parse_typical: Timing;
  /** An 8 KiB `in(id,...)` of UUIDs: the largest id lookup a caller can send. */
  parse_max_ids: Timing;
  /** An 8 KiB quoted value full of escapes: the slowest path through the value scanner. */
  parse_max_escapes: Timing;
  id_count: number;
  /** canonicalFilter of the 8 KiB id lookup (the cache key). */
  canonical_max_ids: Timing;
  /** The 8 KiB id lookup over 10,000 products: compileFilter (value sets) against matchesFilter (arrays). */
  match_10k_compiled: Timing;
  match_10k_uncompiled: Timing;
  /** resolveCatalog over 100 rules and 20 published catalogs. */
  resolve_100_rules: Timing;
}

function maxIdFilter(): { filter: string; ids: string[] } {
  const ids: string[] = [];
  let filter = 'in(id)';
  for (;;) {
    const id = uuidv7();
    const next = `in(id,${[...ids, id].join(',')})`;
    if (Buffer.byteLength(next) > MAX_FILTER_BYTES) return { filter, ids };
    ids.push(id);
    filter = next;
  }
}

function products(count: number, ids: string[]): FilterableProduct[] {
  return Array.from({ length: count }, (_, i) => ({
    // Every 50th product is one the filter asks for, so both branches run.
    id: i % 50 === 0 ? (ids[(i / 50) % ids.length] as string) : uuidv7(),
    name: `Shirt ${i}`,
    sku: `SKU-${i}`,
    slug: `shirt-${i}`,
    manufacturer_part_num: '',
    upc_ean: '',
    product_types: ['child'],
    tags: i % 3 === 0 ? ['sale', 'summer'] : ['summer'],
  }));
}

function rules(count: number): CatalogRule[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `rule-${i}`,
    name: `Rule ${i}`,
    catalog_id: `catalog-${i % 20}`,
    channels: [`channel-${i % 7}`],
    tags: i % 2 === 0 ? [`tag-${i % 5}`] : [],
    schedules: [
      { valid_from: '2026-01-01T00:00:00Z', valid_to: i % 3 === 0 ? '2026-02-01T00:00:00Z' : null },
    ],
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  }));
}

const sync =
  (fn: () => unknown): (() => Promise<unknown>) =>
  async () =>
    fn();

/** In-process p50/p99 of the pure filter and rule functions at their input limits. No database. */
export async function benchFilter(iterations = 2000, warmup = 200): Promise<FilterFigures> {
  const { filter: idFilter, ids } = maxIdFilter();
  const escaped = `eq(name,"${'\\"a'.repeat(Math.floor((MAX_FILTER_BYTES - 11) / 3))}")`;
  const parsedIds = parseFilter(idFilter);
  const catalog = products(10_000, ids);
  const ruleSet = rules(100);
  const catalogs = Array.from({ length: 20 }, (_, i) => ({
    id: `catalog-${i}`,
    created_at: new Date(Date.UTC(2025, 0, i + 1)).toISOString(),
  }));
  const context = { channel: 'channel-3', tag: 'tag-3', now: new Date('2026-06-01T00:00:00Z') };

  const parseTypical = await measure(
    sync(() => parseFilter('eq(tags,sale):in(product_types,child)')),
    iterations,
    warmup,
  );
  const parseMaxIds = await measure(
    sync(() => parseFilter(idFilter)),
    iterations,
    warmup,
  );
  const parseMaxEscapes = await measure(
    sync(() => parseFilter(escaped)),
    iterations,
    warmup,
  );
  const canonical = await measure(
    sync(() => canonicalFilter(parsedIds)),
    iterations,
    warmup,
  );
  const matchIterations = Math.max(20, Math.floor(iterations / 20));
  const [compiled, uncompiled] = await measurePair(
    sync(() => catalog.filter(compileFilter(parsedIds)).length),
    sync(() => catalog.filter((product) => matchesFilter(product, parsedIds)).length),
    matchIterations,
    5,
  );
  const resolve = await measure(
    sync(() => resolveCatalog(ruleSet, catalogs, context)),
    iterations,
    warmup,
  );
  return {
    parse_typical: parseTypical,
    parse_max_ids: parseMaxIds,
    parse_max_escapes: parseMaxEscapes,
    id_count: ids.length,
    canonical_max_ids: canonical,
    match_10k_compiled: compiled,
    match_10k_uncompiled: uncompiled,
    resolve_100_rules: resolve,
  };
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  progress('timing parseFilter, canonicalFilter, compileFilter/matchesFilter and resolveCatalog');
  const f = await benchFilter();
  if (json) {
    process.stdout.write(`${JSON.stringify(f, null, 2)}\n`);
    return;
  }
  const line = (label: string, t: Timing) => `  ${label.padEnd(44)} p50 ${t.p50_ms} ms  p99 ${t.p99_ms} ms`;
  process.stdout.write(
    [
      'Filter and catalog rules, in-process (pure functions, no database)',
      line('parseFilter typical', f.parse_typical),
      line(`parseFilter 8 KiB in(id,...) (${f.id_count} ids)`, f.parse_max_ids),
      line('parseFilter 8 KiB quoted value of escapes', f.parse_max_escapes),
      line('canonicalFilter 8 KiB in(id,...)', f.canonical_max_ids),
      line('10,000 products, compileFilter', f.match_10k_compiled),
      line('10,000 products, matchesFilter', f.match_10k_uncompiled),
      line('resolveCatalog, 100 rules, 20 catalogs', f.resolve_100_rules),
      '',
    ].join('\n'),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
