import { prefetchRegistry } from '../lib/catalog/cache';
import {
  acceptLanguage,
  displayCurrency,
  parseInclude,
  shopperHeaders,
} from '../lib/catalog/child-list-response';
import {
  listNodeList,
  listNodeProducts,
  nodePageJson,
  parseNodeFilter,
  rejectFilter,
} from '../lib/catalog/nodes';
import { pathParameter, queryParameter } from '../lib/http/request';
import { jsonText } from '../lib/http/response';
import { parsePageRequest } from '../lib/pagination/index';
import { createHandler } from './create-handler';
import type { FUNCTIONS } from './routes';

/** What one of the node-list routes lists: whose nodes, which of them, and where its pages link. */
export interface NodeListRoute {
  /** The path parameter naming the node or hierarchy. */
  param: 'node_id' | 'hierarchy_id';
  of: 'node' | 'hierarchy';
  /** Its direct children, or every node below it. */
  kind: 'children' | 'descendants';
  /** The route's path for `id`, which the page's links carry. */
  path: (id: string) => string;
}

/** What one of the product-list routes lists: a node's products or a hierarchy's. */
export type ProductListRoute = Omit<NodeListRoute, 'kind'>;

/**
 * The handler of a node-list route: the nodes `route` names in the catalog the shopper's context selects,
 * in document order, paginated; `filter=in(id,...)` keeps the named ones, in the order they were last
 * updated. Any token of the store.
 */
export function nodeListHandler<
  N extends 'list-node-children' | 'list-hierarchy-children' | 'list-hierarchy-nodes',
>(name: N, definition: (typeof FUNCTIONS)[N], route: NodeListRoute) {
  return createHandler(name, definition, { prefetch: prefetchRegistry }, async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
    const filterText = queryParameter(event, 'filter');
    const filter = parseNodeFilter(filterText);
    const id = pathParameter(event, route.param);
    const result = await listNodeList(
      { storeId: store.id, channel, tag },
      id,
      route.kind,
      route.of,
      page,
      filter,
    );
    return jsonText(200, nodePageJson(route.path(id), { filter: filterText }, page, result));
  });
}

/**
 * The handler of a product-list route: the live products of the node or hierarchy `route` names in the
 * catalog the shopper's context selects, in document order, paginated, rendered as the child list renders
 * products (locale, display currency, `include`); no `filter` (400). Any token of the store.
 */
export function productListHandler<N extends 'list-node-products' | 'list-hierarchy-products'>(
  name: N,
  definition: (typeof FUNCTIONS)[N],
  route: ProductListRoute,
) {
  return createHandler(name, definition, { prefetch: prefetchRegistry }, async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
    rejectFilter(queryParameter(event, 'filter'));
    const includeText = queryParameter(event, 'include');
    const include = parseInclude(includeText);
    const currency = displayCurrency(event.headers, store.currencies);
    const id = pathParameter(event, route.param);
    const result = await listNodeProducts(
      {
        storeId: store.id,
        channel,
        tag,
        defaultLocale: store.default_locale,
        acceptLanguage: acceptLanguage(event.headers),
        ...(include === undefined ? {} : { include }),
        ...(currency === undefined ? {} : { currency }),
      },
      id,
      page,
      route.of,
    );
    return jsonText(200, nodePageJson(route.path(id), { include: includeText }, page, result));
  });
}
