import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { chunksForPage } from '../lib/catalog/child-index';
import { releaseFor } from '../lib/catalog/list-children';
import { catalogRepository } from '../lib/store/catalog-repository';
import { createHttpEvent } from '../local/http-event';
import { publishRelease } from '../test/support/one-process-publisher';
import {
  benchListChildProducts,
  type ChildListFigures,
  type ChildListSetup,
  setUpChildList,
} from './list-child-products';
import type { OperationBench } from './operations';
import { round } from './support';

export const CHILDREN = 10000;
const LIMIT = 25;
const ROUTE_KEY = 'GET /catalog/products/{product_id}/relationships/children';

export interface DeepOffsetFigures {
  cold_offset0_ms: number;
  cold_offset9975_ms: number;
  cold_ratio: number;
  warm_offset0_ms: number;
  warm_offset9975_ms: number;
  warm_ratio: number;
  rcu_offset9975: number;
  naive_full_read_ms: number;
  naive_rcu: number;
  /** First page with `include=main_image,files` against the same page without (see IncludeFigures). */
  include: ChildListFigures['include'];
}

export interface Publish10kFigures {
  seconds: number;
  items_per_s: number;
  raw_batchwrite_seconds: number;
  ratio: number;
}

/** The catalog side of the suite: a published release with a 10,000-child parent and its figures. */
export interface CatalogBench {
  /** A storefront (implicit token) request for one page of the parent's children. */
  event(offset: number): APIGatewayProxyEventV2;
  /** Warm list against the three round trips an uncached request needs, issued directly. */
  operation: OperationBench;
  deepOffset(): Promise<DeepOffsetFigures>;
  publish10k(): Promise<Publish10kFigures>;
  httpRequest(): { path: string; headers: Record<string, string> };
  everyPageEvents(): APIGatewayProxyEventV2[];
}

function pagePath(parentId: string, offset: number): string {
  return `/catalog/products/${parentId}/relationships/children?page[offset]=${offset}&page[limit]=${LIMIT}`;
}

/** Publishes a generated release with a 10,000-child parent for a new store (the scenario's keys stay apart). */
export async function setUpCatalogBench(): Promise<CatalogBench> {
  const setup: ChildListSetup = await setUpChildList(CHILDREN);
  await publishRelease(setup.storeId, setup.document);
  const headers = { authorization: `Bearer ${setup.token}`, 'svc-channel': 'web', host: 'api.bench.local' };
  const event = (offset: number) =>
    createHttpEvent({
      method: 'GET',
      path: pagePath(setup.parentId, offset),
      routeKey: ROUTE_KEY,
      pathParameters: { product_id: setup.parentId },
      headers: { ...headers, 'user-agent': 'bench', 'accept-language': 'en-US' },
    });
  let figures: ChildListFigures | undefined;
  const measured = async () => {
    figures ??= await benchListChildProducts({ children: CHILDREN, publishRuns: 10 }, setup);
    return figures;
  };
  const firstPage = setup.liveChildIds.slice(0, LIMIT);
  return {
    event,
    operation: {
      function: 'list-child-products',
      expectStatus: 200,
      event: () => event(0),
      raw: async () => {
        // What an uncached request reads: the registry, the parent with the page's index chunk, the page.
        const registry = await catalogRepository.getRegistry(setup.storeId);
        const layout = releaseFor(registry, { channel: 'web', tag: undefined, now: new Date() });
        const chunks = chunksForPage(0, LIMIT, CHILDREN, layout.chunk_size).map((chunk) => ({
          parentId: setup.parentId,
          chunk,
        }));
        await catalogRepository.readRelease(layout, {
          products: [setup.parentId],
          chunks,
          speculativeChunks: true,
        });
        await catalogRepository.readRelease(layout, { products: firstPage, chunks: [] });
      },
    },
    async deepOffset() {
      const f = await measured();
      const [coldFirst, coldDeep] = f.cold;
      const [warmFirst, warmDeep] = f.warm;
      if (!coldFirst || !coldDeep || !warmFirst || !warmDeep)
        throw new Error('child list figures incomplete');
      return {
        cold_offset0_ms: coldFirst.timing.p50_ms,
        cold_offset9975_ms: coldDeep.timing.p50_ms,
        cold_ratio: round(coldDeep.timing.p50_ms / coldFirst.timing.p50_ms, 3),
        warm_offset0_ms: warmFirst.timing.p50_ms,
        warm_offset9975_ms: warmDeep.timing.p50_ms,
        // "within 1.2x of each other": the larger over the smaller.
        warm_ratio: round(
          Math.max(warmFirst.timing.p50_ms, warmDeep.timing.p50_ms) /
            Math.min(warmFirst.timing.p50_ms, warmDeep.timing.p50_ms),
          3,
        ),
        rcu_offset9975: coldDeep.read_units,
        naive_full_read_ms: f.naive.timing.p50_ms,
        naive_rcu: f.naive.read_units,
        include: f.include,
      };
    },
    async publish10k() {
      const { publish } = await measured();
      return {
        seconds: round(publish.publish.median_ms / 1000, 3),
        items_per_s: publish.publish.items_per_s,
        raw_batchwrite_seconds: round(publish.raw_batch_write.median_ms / 1000, 3),
        ratio: publish.ratio,
      };
    },
    httpRequest: () => ({ path: pagePath(setup.parentId, 0), headers }),
    everyPageEvents: () => Array.from({ length: CHILDREN / LIMIT }, (_, page) => event(page * LIMIT)),
  };
}
