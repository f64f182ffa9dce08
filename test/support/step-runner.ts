import * as steps from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';

/** What a test runs between the publishing workflow's steps. */
export interface StepHooks {
  /** After each range's derivation: whether it was taken up from the release before (derive-memo.ts). */
  derived?: (kept: boolean) => void;
  /** Between the derivations and the merge. */
  beforeMerge?: () => Promise<void>;
  /** Between the merge and the writes. */
  afterMerge?: () => Promise<void>;
}

/**
 * A document release's workflow run step after step in this process, as the local harness runs it (no
 * export, one range at a time), with `hooks` between the steps.
 */
export async function runStepByStep(input: ReleaseExecutionInput, hooks: StepHooks = {}): Promise<unknown> {
  await steps.validateStep(input);
  const plan = await steps.planStep(input);
  for (const range of await steps.readRanges(plan.ranges_key)) {
    const result = await steps.deriveStep({ ...input, range });
    hooks.derived?.(result.kept === true);
  }
  await hooks.beforeMerge?.();
  const merged = await steps.mergeStep(input);
  await hooks.afterMerge?.();
  for (const chunk of await steps.readManifest(merged.manifest_key))
    await steps.writeStep({ ...input, chunk });
  return steps.switchStep(input);
}
