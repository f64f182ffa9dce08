import { handler as deleteRelease } from '../../functions/pcm-delete-release/handler';
import { catalogKeys, catalogRepository } from '../../lib/store/catalog-repository';
import { getDocumentClient } from '../../lib/store/client';
import { BatchWriteCommand } from '../../lib/store/dynamodb';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { tableName } from '../../lib/store/schema';
import { itemsOfRelease } from '../support/catalog-fixtures';
import { bearer, createTestStore, invoke, tokenFor } from '../support/fixtures';
import { failedRelease, newPcmCatalog } from '../support/pcm-fixtures';

/**
 * A DELETE reclaims a failed release at once. Whether it searches the release's partitions for items
 * depends on what the release's record says the workflow got to: Write steps, the only writers of a
 * catalog-API release's items, start after Merge recorded `total_items`.
 */
describe('reclaiming a failed release', () => {
  let store: Awaited<ReturnType<typeof createTestStore>>;
  let token: string;
  let catalogId: string;

  beforeAll(async () => {
    store = await createTestStore();
    token = await tokenFor(store);
    catalogId = await newPcmCatalog(store.store.id, 'Reclaimed', {
      catalog: { name: 'Reclaimed' },
      products: [],
    });
  });

  /** DELETEs the release; returns the Queries of its partitions that were made meanwhile. */
  async function deleteCountingQueries(releaseId: string): Promise<number> {
    let queries = 0;
    const counting = getDocumentClient().use((next) => async (operation, body) => {
      if (operation === 'Query' && JSON.stringify(body).includes(`REL#${releaseId}#`)) queries += 1;
      return next(operation, body);
    });
    try {
      const response = await invoke(deleteRelease, {
        method: 'DELETE',
        path: `/pcm/catalogs/${catalogId}/releases/${releaseId}`,
        pathParameters: { catalog_id: catalogId, release_id: releaseId },
        headers: bearer(token),
      });
      expect(response.status).toBe(204);
    } finally {
      counting();
    }
    return queries;
  }

  const markerOf = async (releaseId: string) =>
    (await catalogRepository.listReleases(store.store.id, catalogId)).find((m) => m.release_id === releaseId);

  it('does not search the partitions of one that failed before Merge recorded its items', async () => {
    const releaseId = await failedRelease(store.store.id, catalogId);
    expect(await deleteCountingQueries(releaseId)).toBe(0);
    expect(await markerOf(releaseId)).toBeUndefined();
  });

  it('deletes the items of one that failed after its Write steps began', async () => {
    const releaseId = await failedRelease(store.store.id, catalogId);
    await pcmRepository.updateRelease(store.store.id, catalogId, releaseId, { total_items: 3 });
    // What a Write step had written before the publish failed: items in three of its partitions.
    await getDocumentClient().send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName('products')]: [0, 17, 63].map((shard) => ({
            PutRequest: { Item: { pk: catalogKeys.shardPartition(releaseId, shard), sk: 'P#written' } },
          })),
        },
      }),
    );
    expect(await itemsOfRelease(releaseId)).toBe(3);
    expect(await deleteCountingQueries(releaseId)).toBeGreaterThanOrEqual(64);
    expect(await itemsOfRelease(releaseId)).toBe(0);
    expect(await markerOf(releaseId)).toBeUndefined();
  });
});
