import './silent-logs';
import { handler } from '../functions/list-child-products/handler';
import { clearAuthCache } from '../lib/auth/authenticate';
import { clearCatalogCaches } from '../lib/catalog/cache';
import { catalogCapacity } from '../lib/store/catalog-repository';
import { createHttpEvent, createLambdaContext } from '../local/http-event';
import { publishRelease } from '../test/support/one-process-publisher';
import { setUpChildList } from './list-child-products';
import { measure, progress, round, runAsScript, type Timing } from './support';

/**
 * `npx tsx bench/filtered-cold.ts [--children N] [--iterations N]`: the first filtered page
 * (`eq(tags,red)`, 25 per page) of a parent with N live children (default 50,000) from a cold container
 * (catalog and token caches emptied before each request), in-process, beside the unfiltered first page;
 * p50 and the read units of one request. With the filter index the filtered page's cost should not grow
 * with N; without it, it read every chunk of the child index.
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

runAsScript(
  import.meta.url,
  (args) => {
    const at = args.indexOf('--children');
    const children = at === -1 ? 50_000 : Number(args[at + 1]);
    const it = args.indexOf('--iterations');
    return measureFilteredCold(children, it === -1 ? 9 : Number(args[it + 1]));
  },
  (f) =>
    [
      `first page, cold, parent with ${f.children} live children, in-process, DynamoDB Local`,
      `  filter=eq(tags,red)   p50 ${f.filtered.p50_ms} ms  p99 ${f.filtered.p99_ms} ms  ${f.filtered.read_units} read units`,
      `  unfiltered            p50 ${f.unfiltered.p50_ms} ms  p99 ${f.unfiltered.p99_ms} ms  ${f.unfiltered.read_units} read units`,
      '',
    ].join('\n'),
);
