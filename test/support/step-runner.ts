import { handler as createRelease } from '../../functions/pcm-create-release/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import * as steps from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { type PcmRelease, pcmRepository } from '../../lib/store/pcm-repository';
import { invoke } from './fixtures';
import { setPcmDocument } from './pcm-fixtures';

/** What a test runs between the publishing workflow's steps. */
export interface StepHooks {
  /** Between the plan and the derivations. */
  beforeDerive?: () => Promise<void>;
  /** After each range's derivation: whether it was taken up from the release before (derive-memo.ts). */
  derived?: (kept: boolean) => void;
  /** Between the derivations and the merge. */
  beforeMerge?: () => Promise<void>;
  /** Between the merge and the writes. */
  afterMerge?: () => Promise<void>;
  /** Between the writes and the switch. */
  beforeSwitch?: () => Promise<void>;
  /** After the switch. */
  afterSwitch?: () => Promise<void>;
}

/**
 * A document release's workflow run step after step in this process, as the local harness runs it (no
 * export, one range at a time), with `hooks` between the steps.
 */
export async function runStepByStep(input: ReleaseExecutionInput, hooks: StepHooks = {}): Promise<unknown> {
  // Each step is given what the step before it answered, as the state machine passes it on.
  const validated = await steps.validateStep(input);
  const plan = await steps.planStep(validated);
  const ranges = await steps.readRanges(plan.ranges_key);
  await hooks.beforeDerive?.();
  for (const range of ranges) {
    const result = await steps.deriveStep({ ...input, range });
    hooks.derived?.(result.kept === true);
  }
  await hooks.beforeMerge?.();
  const merged = await steps.mergeStep(plan);
  await hooks.afterMerge?.();
  for (const chunk of await steps.readManifest(merged.manifest_key))
    await steps.writeStep({ ...input, chunk });
  await hooks.beforeSwitch?.();
  const switched = await steps.switchStep(merged);
  await hooks.afterSwitch?.();
  return switched;
}

/**
 * Sets the catalog's document, asks for a release of it (`POST /pcm/catalogs/{id}/releases` with `body`),
 * waits for the workflow runs the local workflow registered in `runs` meanwhile, and answers the release
 * record as it ended (catalog caches cleared, so shoppers' reads see it).
 */
export async function publishDocument(input: {
  storeId: string;
  catalogId: string;
  headers: Record<string, string>;
  document: unknown;
  runs: Promise<unknown>[];
  body?: string;
}): Promise<PcmRelease | undefined> {
  const { storeId, catalogId, runs } = input;
  await setPcmDocument(storeId, catalogId, input.document);
  runs.length = 0;
  const created = await invoke(createRelease, {
    method: 'POST',
    path: `/pcm/catalogs/${catalogId}/releases`,
    pathParameters: { catalog_id: catalogId },
    headers: { ...input.headers, 'content-type': 'application/json' },
    body: input.body ?? '{}',
  });
  expect(created.status).toBe(201);
  await Promise.all(runs);
  clearCatalogCaches();
  return pcmRepository.getRelease(storeId, catalogId, created.body.data.id);
}
