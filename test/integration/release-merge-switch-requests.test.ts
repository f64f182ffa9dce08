import { generateRelease } from '../../lib/catalog/generator';
import { deltaFileKey } from '../../lib/catalog/pipeline/delta-file';
import { releaseObjects } from '../../lib/catalog/pipeline/share';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import * as steps from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { pcmRepository, progressOf } from '../../lib/store/pcm-repository';
import { adminOfNewStore } from '../support/catalog-fixtures';
import { markIntegrationReads, recordObjectOrder, recordOperationOrder } from '../support/operation-order';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { publishDocument, runStepByStep } from '../support/step-runner';

/**
 * Derive writes a range's partial beside its last chunk file. Merge sends at once what needs nothing before it: the store's record (the delta file's locale) goes out
 * with its first reads, the manifest parts of the chunk files it wrote itself are not read back, the
 * release records the merge beside the delta file's upload, not after it, and its last writes go out
 * beside the manifest's list of parts. Switch reads the store's integrations (for the release's event)
 * beside its PUBLISHED record, and lists what it makes unneeded (the release's work files, the catalog's
 * releases' objects) beside its transaction.
 */

jest.setTimeout(60_000);

/** Merge's and Switch's DynamoDB requests and their object reads and writes, in the order they happened. */
const orders: Record<'derive' | 'merge' | 'write' | 'switch', string[]> = {
  derive: [],
  merge: [],
  write: [],
  switch: [],
};
/** The release's progress once every Write step has run, as its record gives it. */
let progressAfterWrites: number | undefined;
const runs: Promise<unknown>[] = [];

function watchSteps(input: ReleaseExecutionInput) {
  let stop = () => undefined as unknown;
  const watch = (step: keyof typeof orders) => async () => {
    const recording = recordOperationOrder();
    const order = recording.order;
    orders[step] = order;
    const asked = markIntegrationReads(order);
    const objects = recordObjectOrder(order);
    stop = () => {
      recording.stop();
      asked();
      objects();
    };
  };
  const unwatch = async () => {
    stop();
  };
  return runStepByStep(input, {
    beforeDerive: watch('derive'),
    beforeMerge: async () => {
      await unwatch();
      await watch('merge')();
    },
    afterMerge: async () => {
      await unwatch();
      await watch('write')();
    },
    beforeSwitch: async () => {
      await unwatch();
      const release = await pcmRepository.getRelease(input.store_id, input.catalog_id, input.release_id);
      progressAfterWrites = release && progressOf(release);
      await watch('switch')();
    },
    afterSwitch: unwatch,
  });
}

beforeAll(() => {
  registerLocalWorkflow((input) => {
    const running = watchSteps(input);
    runs.push(running);
    return running;
  });
});

it("sends the store's read with Merge's first reads, reads back none of its own manifest parts, records the merge beside the delta file's upload, has each Write add its count without a read, and reads the integrations beside Switch's record", async () => {
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Merge requests');
  const document = generateRelease({ children: 20, parents: 2, seed: 5, catalogName: 'Merge requests' }) as {
    catalog: { id: string };
  };
  document.catalog.id = catalogId;
  const release = await publishDocument({ storeId, catalogId, headers, document, runs });
  expect(release?.state).toBe('PUBLISHED');
  expect(release?.delta?.lines).toBeGreaterThan(0);
  const releaseId = release?.release_id as string;
  const order = orders.merge;
  const at = (event: string, events = order) => {
    const index = events.indexOf(event);
    expect([event, index]).not.toEqual([event, -1]);
    return index;
  };

  // Every DynamoDB read (the release, the registry, the store) is sent before the merged part is written.
  const merged = at(`put sent ${releaseObjects.mergedManifest(storeId, catalogId, releaseId)}`);
  const reads = order.flatMap((event, n) => (event === 'GetItem sent' ? [n] : []));
  expect(reads).toHaveLength(3);
  expect(reads.filter((n) => n > merged)).toEqual([]);

  // The merge wrote manifest parts of its own chunk files and read none of them back.
  const own = /items-merge-\d+\.manifest$/;
  expect(order.filter((event) => event.startsWith('put sent') && own.test(event))).not.toEqual([]);
  expect(order.filter((event) => event.startsWith('read') && own.test(event))).toEqual([]);

  // Derive: the range's partial (and the range it keeps for later releases) is sent beside its last chunk
  // file's upload, before that answers.
  const derived = orders.derive;
  const partialKey = steps.workKeys.partial({ store_id: storeId, release_id: releaseId }, 0);
  const lastChunk = derived.filter((event) => /^put answered .*items-r0000-\d+\.jsonl$/.test(event)).at(-1);
  expect(at(`put sent ${partialKey}`, derived)).toBeLessThan(at(lastChunk as string, derived));

  // The manifest's list of parts follows its merged part's answer, and the step's last writes (the
  // manifest the write map reads among them) go out beside it, not after it.
  const listKey = releaseObjects.manifestParts(storeId, catalogId, releaseId);
  expect(at(`put sent ${listKey}`)).toBeGreaterThan(
    at(`put answered ${releaseObjects.mergedManifest(storeId, catalogId, releaseId)}`),
  );
  expect(
    at(`put sent ${steps.workKeys.manifest({ store_id: storeId, release_id: releaseId })}`),
  ).toBeLessThan(at(`put answered ${listKey}`));

  // The release's record (the merge's one UpdateItem) goes out before the delta file's upload answers.
  const delta = deltaFileKey(storeId, catalogId, releaseId);
  expect(order.filter((event) => event === 'UpdateItem sent')).toHaveLength(1);
  expect(at('UpdateItem sent')).toBeLessThan(at(`put answered ${delta}`));

  // Write: each step adds its items to the release's count in one request, without reading the release;
  // the progress is the share written, 99 once all are.
  const writes = orders.write;
  expect(writes.filter((event) => event === 'GetItem sent')).toEqual([]);
  expect(writes.filter((event) => event === 'UpdateItem sent').length).toBeGreaterThan(0);
  expect(progressAfterWrites).toBe(99);

  // Switch: the integrations are asked for before the PUBLISHED record (its first UpdateItem after the
  // switch's transaction) has answered.
  const switched = orders.switch;
  const afterTransaction = switched.slice(at('TransactWriteItems answered', switched));
  expect(at('integrations asked', afterTransaction)).toBeLessThan(
    at('UpdateItem answered', afterTransaction),
  );
  // What the switch makes unneeded is listed beside its transaction (sent before it answers): the
  // release's work files and the catalog's releases' objects. The work files are deleted once the
  // PUBLISHED record has answered.
  const transaction = at('TransactWriteItems answered', switched);
  expect(at(`ListObjectsV2 sent work/${storeId}/${releaseId}/`, switched)).toBeLessThan(transaction);
  expect(at(`ListObjectsV2 sent releases/${storeId}/${catalogId}/`, switched)).toBeLessThan(transaction);
  expect(at('DeleteObjects sent', afterTransaction)).toBeGreaterThan(
    at('UpdateItem answered', afterTransaction),
  );
});
