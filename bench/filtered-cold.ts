import './silent-logs';
import { handler } from '../functions/list-child-products/handler';
import { clearAuthCache } from '../lib/auth/authenticate';
import { clearCatalogCaches } from '../lib/catalog/cache';
import { catalogCapacity } from '../lib/store/catalog-repository';
import { createHttpEvent, createLambdaContext } from '../local/http-event';
import { publishRelease } from '../test/support/one-process-publisher';
import {
  FILTERED_FIRST_PAGE_MS_MAX,
  type ReleaseFilterFigures,
  releaseFilterFigures,
  setUpProducts,
} from './catalog-products';
import { setUpChildList } from './list-child-products';
import { measure, progress, round, runAsScript, type Timing } from './support';

/**
 * `npx tsx bench/filtered-cold.ts [--children N] [--iterations N]`: the first filtered page
 * (`eq(tags,red)`, 25 per page) of a parent with N live children (default 50,000) from a cold container
 * (catalog and token caches emptied before each request), in-process, beside the unfiltered first page;
 * p50 and the read units of one request. With the filter index the filtered page's cost should not grow
 * with N; without it, it read every chunk of the child index.
 *
 * `npx tsx bench/filtered-cold.ts --products N [--iterations N]`: the same for `GET /catalog/products` on a
 * generated release of N products (10 parents of N/10 children), for every filter kind of the grammar
 * (`releaseFilters` in bench/catalog-products.ts), each against the target of 100 ms.
 */
export interface FilteredColdFigures {
  children: number;
  filtered: Timing & { read_units: number };
  unfiltered: Timing & { read_units: number };
}

async function measureFilteredCold(children: number, iterations: number): Promise<FilteredColdFigures> {
  progress(`publishing a release with a ${children}-child parent`);
  const setup = await setUpChildList(children);
  await publishRelease(setup.storeId, setup.document);
  const context = createLambdaContext('list-child-products');
  const page = (filter: string | undefined, first: string) => async () => {
    clearCatalogCaches();
    clearAuthCache();
    const query = `${filter === undefined ? '' : `filter=${encodeURIComponent(filter)}&`}page[limit]=25`;
    const response = await handler(
      createHttpEvent({
        method: 'GET',
        path: `/catalog/products/${setup.parentId}/relationships/children?${query}`,
        routeKey: 'GET /catalog/products/{product_id}/relationships/children',
        pathParameters: { product_id: setup.parentId },
        headers: { authorization: `Bearer ${setup.token}`, 'svc-channel': 'web' },
      }) as never,
      context,
    );
    const body = JSON.parse(response.body ?? '{}') as { data?: { id: string }[] };
    if (response.statusCode !== 200 || body.data?.[0]?.id !== first)
      throw new Error(`unexpected answer ${response.statusCode}`);
  };
  const filtered = page('eq(tags,red)', setup.firstRedId);
  const unfiltered = page(undefined, setup.liveChildIds[0] as string);
  const units = async (fn: () => Promise<void>) => {
    catalogCapacity.reset();
    await fn();
    return round(catalogCapacity.read, 1);
  };
  progress(`timing ${iterations} cold filtered and unfiltered first pages`);
  return {
    children,
    filtered: { ...(await measure(filtered, iterations, 2)), read_units: await units(filtered) },
    unfiltered: { ...(await measure(unfiltered, iterations, 2)), read_units: await units(unfiltered) },
  };
}

/** The release-wide filters' first pages, cold, on a generated release of `products` products. */
async function measureReleaseFilters(products: number, iterations: number): Promise<ReleaseFilterFigures> {
  progress(`publishing a ${products.toLocaleString('en-US')}-product release`);
  const setup = await setUpProducts(products);
  progress(`timing ${iterations} cold first pages of each filter`);
  return releaseFilterFigures(setup, iterations);
}

/** The release-wide rows as text, each against the target. */
export function describeReleaseFilters(f: ReleaseFilterFigures): string {
  const width = Math.max(...f.rows.map((row) => row.filter.length));
  return [
    `GET /catalog/products first page (25), cold, ${f.products.toLocaleString('en-US')} products, in-process, DynamoDB Local; target p50 <= ${FILTERED_FIRST_PAGE_MS_MAX} ms`,
    ...f.rows.map(
      (row) =>
        `  ${row.filter.padEnd(width)}  total ${String(row.total).padStart(6)}  p50 ${row.cold_p50_ms} ms  p99 ${row.cold_p99_ms} ms  ${row.cold_round_trips} round trips  ${row.read_units} read units  ${row.cold_p50_ms <= FILTERED_FIRST_PAGE_MS_MAX ? 'met' : 'MISSED'}`,
    ),
    '',
  ].join('\n');
}

runAsScript(
  import.meta.url,
  async (args) => {
    const it = args.indexOf('--iterations');
    const iterations = it === -1 ? 9 : Number(args[it + 1]);
    const release = args.indexOf('--products');
    if (release !== -1) return measureReleaseFilters(Number(args[release + 1]), iterations);
    const at = args.indexOf('--children');
    const children = at === -1 ? 50_000 : Number(args[at + 1]);
    return measureFilteredCold(children, iterations);
  },
  (f) =>
    'rows' in f
      ? describeReleaseFilters(f)
      : [
          `first page, cold, parent with ${f.children} live children, in-process, DynamoDB Local`,
          `  filter=eq(tags,red)   p50 ${f.filtered.p50_ms} ms  p99 ${f.filtered.p99_ms} ms  ${f.filtered.read_units} read units`,
          `  unfiltered            p50 ${f.unfiltered.p50_ms} ms  p99 ${f.unfiltered.p99_ms} ms  ${f.unfiltered.read_units} read units`,
          '',
        ].join('\n'),
);
