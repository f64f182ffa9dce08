import { generateRelease } from '../../lib/catalog/generator';
import { releaseObjects } from '../../lib/catalog/pipeline/share';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import * as steps from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { objectStore } from '../../lib/store/object-store';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { adminOfNewStore } from '../support/catalog-fixtures';
import { markIntegrationReads, recordObjectOrder, recordOperationOrder } from '../support/operation-order';
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
  const objects = recordObjectOrder(order, { [input.document_key]: 'document' });
  // Who the release's event goes to, and when the release's FAILED record has answered.
  const asked = markIntegrationReads(order);
  const update = pcmRepository.updateRelease.bind(pcmRepository);
  const recorded = jest.spyOn(pcmRepository, 'updateRelease').mockImplementation(async (...args) => {
    const answer = await update(...args);
    if (args[3].state === 'FAILED') order.push('FAILED record answered');
    return answer;
  });
  try {
    return await work();
  } finally {
    stop();
    objects();
    asked();
    recorded.mockRestore();
    orders[name] = order;
  }
}

/** Validates and plans the release, then abandons it (as a failed step would); an invalid one stops at Validate. */
async function run(input: ReleaseExecutionInput): Promise<unknown> {
  const validated = await watched('validate', input, () => steps.validateStep(input));
  if (!validated.valid) return validated;
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
  before('validate', 'read document', 'UpdateItem answered');
  // Plan: before the release, the store and the registry answer.
  before('plan', 'read document', 'GetItem answered');
  // Abandon: the fence is sent before the release's read answers; the integrations, for the release's
  // event, are asked for before its FAILED record answers.
  before('abandon', 'UpdateItem sent', 'GetItem answered');
  before('abandon', 'integrations asked', 'FAILED record answered');
  // What Plan kept among the release's objects went with it.
  const left: string[] = [];
  for await (const object of objectStore.list(
    releaseObjects.prefix(storeId, catalogId, release?.release_id as string),
  ))
    left.push(object.key);
  expect(left).toEqual([]);
});

it('asks for the integrations beside the FAILED record of a release Validate refuses', async () => {
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Refused');
  const document = generateRelease({ children: 4, parents: 1, seed: 4, catalogName: 'Refused' }) as {
    catalog: { id: string };
    products: { id: string }[];
  };
  document.catalog.id = catalogId;
  // The same product twice: Validate refuses the document.
  document.products.push(document.products[0] as { id: string });
  const release = await publishDocument({ storeId, catalogId, headers, document, runs });
  expect(release?.state).toBe('FAILED');
  const order = orders.validate as string[];
  expect(order.indexOf('integrations asked')).not.toBe(-1);
  expect(order.indexOf('integrations asked')).toBeLessThan(order.indexOf('FAILED record answered'));
});
