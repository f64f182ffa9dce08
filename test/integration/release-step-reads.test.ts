import { generateRelease } from '../../lib/catalog/generator';
import { releaseObjects } from '../../lib/catalog/pipeline/share';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import * as steps from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { objectStore } from '../../lib/store/object-store';
import { adminOfNewStore } from '../support/catalog-fixtures';
import { recordOperationOrder } from '../support/operation-order';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { publishDocument } from '../support/step-runner';

/**
 * The publishing workflow's steps send at once the requests that need nothing before them: a document
 * release's Validate and Plan read the document beside their first DynamoDB requests, and Abandon fences
 * the release beside reading it (its objects listed meanwhile, deleted once the fence holds).
 */

jest.setTimeout(60_000);

/** Each step's DynamoDB requests (sent, answered) and the document's reads, in the order they happened. */
const orders: Record<string, string[]> = {};
const runs: Promise<unknown>[] = [];

async function watched<T>(name: string, input: ReleaseExecutionInput, work: () => Promise<T>): Promise<T> {
  const { order, stop } = recordOperationOrder();
  const read = objectStore.read.bind(objectStore);
  const spy = jest.spyOn(objectStore, 'read').mockImplementation((key, range) => {
    if (key === input.document_key && range === undefined) order.push('document read');
    return read(key, range);
  });
  try {
    return await work();
  } finally {
    stop();
    spy.mockRestore();
    orders[name] = order;
  }
}

/** Validates and plans the release, then abandons it (as a failed step would). */
async function run(input: ReleaseExecutionInput): Promise<unknown> {
  await watched('validate', input, () => steps.validateStep(input));
  await watched('plan', input, () => steps.planStep(input));
  return watched('abandon', input, () =>
    steps.abandonStep({ ...input, error: { Error: 'Stopped', Cause: 'stopped after the plan' } }),
  );
}

beforeAll(() => {
  registerLocalWorkflow((input) => {
    const running = run(input);
    runs.push(running);
    return running;
  });
});

it("reads a document release's document beside Validate's and Plan's first requests, and fences beside Abandon's read", async () => {
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Reads');
  const document = generateRelease({ children: 20, parents: 2, seed: 3, catalogName: 'Reads' }) as {
    catalog: { id: string };
  };
  document.catalog.id = catalogId;
  const release = await publishDocument({ storeId, catalogId, headers, document, runs });
  expect(release?.state).toBe('FAILED');
  const before = (name: string, first: string, second: string) => {
    const order = orders[name] as string[];
    expect([name, order.indexOf(first)]).not.toEqual([name, -1]);
    expect([name, order.indexOf(first) < order.indexOf(second)]).toEqual([name, true]);
  };
  // Validate: the document is asked for before the state's record answers.
  before('validate', 'document read', 'UpdateItem answered');
  // Plan: before the release, the store and the registry answer.
  before('plan', 'document read', 'GetItem answered');
  // Abandon: the fence is sent before the release's read answers.
  before('abandon', 'UpdateItem sent', 'GetItem answered');
  // What Plan kept among the release's objects went with it.
  const left: string[] = [];
  for await (const object of objectStore.list(
    releaseObjects.prefix(storeId, catalogId, release?.release_id as string),
  ))
    left.push(object.key);
  expect(left).toEqual([]);
});
