import { gunzipSync } from 'node:zlib';
import { load } from '../../lib/catalog/list-children';
import type { DeltaChange } from '../../lib/catalog/pipeline/delta-file';
import { catalogRepository } from '../../lib/store/catalog-repository';

/**
 * Delta files for tests: changes built from a published catalog's own products, and a delta file
 * downloaded from its link without credentials.
 */

/** A `createupdate` of each of `productIds` the catalog's current release holds (live or not), then a `delete` of each of `deleted`. */
export async function releaseChanges(
  storeId: string,
  catalogId: string,
  productIds: string[],
  deleted: string[] = [],
): Promise<DeltaChange[]> {
  const layout = (await catalogRepository.getRegistry(storeId))?.catalogs[catalogId]?.release;
  if (!layout) throw new Error(`catalog ${catalogId} is not published`);
  const { products } = await load(layout, productIds, '', []);
  const changes: DeltaChange[] = [];
  for (const productId of productIds) {
    const stored = products.get(productId);
    if (stored) changes.push({ type: 'createupdate', stored });
  }
  for (const id of deleted) changes.push({ type: 'delete', id });
  return changes;
}

export async function* streamOf<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

export type DeltaLine = Record<string, any>;

/** Downloads a delta file with plain `fetch` (no credentials), and its lines when it answered 200. */
export async function downloadDelta(url: string): Promise<{ status: number; lines: DeltaLine[] }> {
  const response = await fetch(url);
  if (response.status !== 200) return { status: response.status, lines: [] };
  const text = gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8');
  if (text !== '' && !text.endsWith('\n')) throw new Error('a delta file ends with a newline');
  return {
    status: 200,
    lines:
      text === ''
        ? []
        : text
            .slice(0, -1)
            .split('\n')
            .map((line) => JSON.parse(line)),
  };
}
