import { releaseObjects, sweepReleaseObjects } from '../../lib/catalog/pipeline/share';
import { uuidv7 } from '../../lib/ids';
import { catalogKeys } from '../../lib/store/catalog-repository';
import { getDocumentClient } from '../../lib/store/client';
import { DeleteCommand, PutCommand } from '../../lib/store/dynamodb';
import { objectStore } from '../../lib/store/object-store';
import { tableName } from '../../lib/store/schema';

/**
 * The sweep of releases' objects (run after every switch, and by `catalog cleanup`) deletes the objects of
 * releases that have no marker, and never those of a release created while it runs.
 */

const storeId = uuidv7();
const catalogId = uuidv7();

async function newMarker(releaseId: string): Promise<void> {
  const at = new Date().toISOString();
  await getDocumentClient().send(
    new PutCommand({
      TableName: tableName('products'),
      Item: {
        ...catalogKeys.releaseMarker(storeId, catalogId, releaseId),
        store_id: storeId,
        catalog_id: catalogId,
        release_id: releaseId,
        shards: 1,
        status: 'writing',
        started_at: at,
        heartbeat_at: at,
      },
    }),
  );
}

const objectOf = (releaseId: string) =>
  `${releaseObjects.prefix(storeId, catalogId, releaseId)}authored.json`;

async function exists(key: string): Promise<boolean> {
  return (await objectStore.head(key)) !== undefined;
}

it('deletes the objects of a release without a marker, and keeps those of a release created meanwhile', async () => {
  const kept = uuidv7();
  const orphan = uuidv7();
  const created = uuidv7();
  await newMarker(kept);
  await objectStore.put(objectOf(kept), '{}');
  await objectStore.put(objectOf(orphan), '{}');
  // A release is created (its marker, then its first object) right after the sweep read the markers.
  let creating: Promise<void> | undefined;
  const remove = getDocumentClient().use((next) => async (operation, body) => {
    const answer = await next(operation, body);
    if (creating === undefined && operation === 'Query' && body.includes('RELEASE#')) {
      creating = newMarker(created).then(() => objectStore.put(objectOf(created), '{}'));
      await creating;
    }
    return answer;
  });
  try {
    expect(await sweepReleaseObjects(storeId, catalogId)).toBe(1);
  } finally {
    remove();
  }
  expect(creating).toBeDefined();
  expect({
    kept: await exists(objectOf(kept)),
    orphan: await exists(objectOf(orphan)),
    created: await exists(objectOf(created)),
  }).toEqual({ kept: true, orphan: false, created: true });
});

it('reads the markers only once the cleanup beside it has settled, so what that cleanup deleted is swept', async () => {
  const doomed = uuidv7();
  await newMarker(doomed);
  await objectStore.put(objectOf(doomed), '{}');
  // A cleanup running beside the sweep deletes the marker after the sweep has listed the objects.
  let listed = false;
  const cleanup = (async () => {
    for await (const _ of objectStore.list(releaseObjects.prefix(storeId, catalogId, doomed))) listed = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await getDocumentClient().send(
      new DeleteCommand({
        TableName: tableName('products'),
        Key: catalogKeys.releaseMarker(storeId, catalogId, doomed),
      }),
    );
  })();
  expect(await sweepReleaseObjects(storeId, catalogId, cleanup)).toBe(1);
  expect(listed).toBe(true);
  expect(await exists(objectOf(doomed))).toBe(false);
});

it('sweeps nothing when what it waits on fails: a switch that did not happen makes no objects unneeded', async () => {
  const orphan = uuidv7();
  await objectStore.put(objectOf(orphan), '{}');
  const failed = Promise.reject(new Error('the switch failed'));
  expect(await sweepReleaseObjects(storeId, catalogId, failed)).toBe(0);
  expect(await exists(objectOf(orphan))).toBe(true);
  // Once nothing stands in its way, the same sweep deletes them.
  expect(await sweepReleaseObjects(storeId, catalogId, Promise.resolve())).toBe(1);
  expect(await exists(objectOf(orphan))).toBe(false);
});
