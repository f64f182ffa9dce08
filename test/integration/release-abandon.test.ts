import { generateRelease } from '../../lib/catalog/generator';
import { releaseObjects } from '../../lib/catalog/pipeline/share';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import * as steps from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { uuidv7 } from '../../lib/ids';
import { getDocumentClient } from '../../lib/store/client';
import { objectStore } from '../../lib/store/object-store';
import { adminOfNewStore, itemsOfRelease } from '../support/catalog-fixtures';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { publishDocument } from '../support/step-runner';

/**
 * The workflow's failure branch (Abandon) deletes what the release wrote: its items when a Write step ran,
 * and reads none of its shards when none did (a release has 64 to query). Either end of the workflow
 * (Abandon, Switch) deletes the release's work files.
 */

jest.setTimeout(60_000);

/** Where the registered workflow stops and abandons the release ('switch-fails': its switch fails). */
let stopAfter: 'validate' | 'first-write' | 'switch-fails' | 'never' = 'validate';
/** After a switch that failed: its work files, and whether a releases' object without a marker is there. */
let afterFailedSwitch: { work: number; orphan: boolean } | undefined;
/** The release's items found in its shards when the workflow stopped. */
let itemsAtStop = -1;
/** The release's work files when the workflow stopped. */
let workAtStop = -1;
const runs: Promise<unknown>[] = [];

async function run(input: ReleaseExecutionInput): Promise<unknown> {
  if (stopAfter === 'switch-fails') {
    const merged = await writtenUpToSwitch(input);
    workAtStop = await workFiles(input);
    // An object of a release of the catalog that has no marker: a switch that happened would sweep it.
    const orphan = `${releaseObjects.prefix(input.store_id, input.catalog_id, uuidv7())}authored.json`;
    await objectStore.put(orphan, '{}');
    const remove = getDocumentClient().use((next) => async (operation, body) => {
      if (operation === 'TransactWriteItems') throw new Error('the switch was refused');
      return next(operation, body);
    });
    try {
      await expect(steps.switchStep(merged)).rejects.toThrow('the switch was refused');
    } finally {
      remove();
    }
    afterFailedSwitch = {
      work: await workFiles(input),
      orphan: (await objectStore.head(orphan)) !== undefined,
    };
    await objectStore.delete(orphan);
    return steps.abandonStep({ ...input, error: { Error: 'Stopped', Cause: 'the switch failed' } });
  }
  if (stopAfter === 'never') {
    // Published whole, but the switch: the work files are counted before it.
    await steps.validateStep(input);
    const plan = await steps.planStep(input);
    for (const range of await steps.readRanges(plan.ranges_key)) await steps.deriveStep({ ...input, range });
    const merged = await steps.mergeStep(input);
    for (const chunk of await steps.readManifest(merged.manifest_key))
      await steps.writeStep({ ...input, chunk });
    workAtStop = await workFiles(input);
    return steps.switchStep(input);
  }
  await steps.validateStep(input);
  if (stopAfter === 'first-write') {
    const plan = await steps.planStep(input);
    for (const range of await steps.readRanges(plan.ranges_key)) await steps.deriveStep({ ...input, range });
    const merged = await steps.mergeStep(input);
    const [first] = await steps.readManifest(merged.manifest_key);
    if (!first) throw new Error('the merge wrote no chunk');
    await steps.writeStep({ ...input, chunk: first });
  }
  itemsAtStop = await itemsOfRelease(input.release_id);
  workAtStop = await workFiles(input);
  return steps.abandonStep({ ...input, error: { Error: 'Stopped', Cause: `stopped after ${stopAfter}` } });
}

/** Every step up to the switch; answers Merge's answer, which the state machine hands the switch. */
async function writtenUpToSwitch(input: ReleaseExecutionInput) {
  const validated = await steps.validateStep(input);
  const plan = await steps.planStep(validated);
  for (const range of await steps.readRanges(plan.ranges_key)) await steps.deriveStep({ ...input, range });
  const merged = await steps.mergeStep(plan);
  for (const chunk of await steps.readManifest(merged.manifest_key))
    await steps.writeStep({ ...input, chunk });
  return merged;
}

async function workFiles(ids: { store_id: string; release_id: string }): Promise<number> {
  let files = 0;
  for await (const _ of objectStore.list(steps.workKeys.prefix(ids))) files += 1;
  return files;
}

beforeAll(() => {
  registerLocalWorkflow((input) => {
    const running = run(input);
    runs.push(running);
    return running;
  });
});

async function abandonedRelease(after: typeof stopAfter, shardQueries?: string[]) {
  stopAfter = after;
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Abandoned');
  const document = generateRelease({ children: 40, parents: 2, seed: 5, catalogName: 'Abandoned' }) as {
    catalog: { id: string };
  };
  document.catalog.id = catalogId;
  const remove = shardQueries
    ? getDocumentClient().use((next) => async (operation, body) => {
        // The test's own counts select COUNT; any other query of the release's shards is the workflow's.
        if (operation === 'Query' && body.includes('"REL#') && !body.includes('"Select":"COUNT"'))
          shardQueries.push(body);
        return next(operation, body);
      })
    : undefined;
  try {
    const release = await publishDocument({ storeId, catalogId, headers, document, runs });
    if (!release) throw new Error('the release is gone');
    return {
      release,
      left: await itemsOfRelease(release.release_id),
      work: await workFiles({ store_id: storeId, release_id: release.release_id }),
    };
  } finally {
    remove?.();
  }
}

it('deletes the items a Write step wrote before the release failed, and its work files', async () => {
  const { release, left, work } = await abandonedRelease('first-write');
  expect(release.state).toBe('FAILED');
  expect(itemsAtStop).toBeGreaterThan(0);
  expect(left).toBe(0);
  expect(workAtStop).toBeGreaterThan(0);
  expect(work).toBe(0);
});

it('queries none of the shards of a release that failed before any Write step', async () => {
  const shardQueries: string[] = [];
  const { release, left } = await abandonedRelease('validate', shardQueries);
  expect(release.state).toBe('FAILED');
  expect([itemsAtStop, left]).toEqual([0, 0]);
  expect(shardQueries).toEqual([]);
});

it('deletes nothing when the switch fails: its work files are left for a retried switch, no release is swept', async () => {
  const { release, work } = await abandonedRelease('switch-fails');
  expect(release.state).toBe('FAILED');
  expect(workAtStop).toBeGreaterThan(0);
  expect(afterFailedSwitch).toEqual({ work: workAtStop, orphan: true });
  // Abandon, which follows, deletes them.
  expect(work).toBe(0);
});

it('deletes the work files of a release it publishes', async () => {
  const { release, work } = await abandonedRelease('never');
  expect(release.state).toBe('PUBLISHED');
  expect(workAtStop).toBeGreaterThan(0);
  expect(work).toBe(0);
});
