import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { mergeStep } from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../workflow';

/** The publishing workflow's merge step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<ReleaseExecutionInput, Awaited<ReturnType<typeof mergeStep>>>(
  'release-merge',
  mergeStep,
);
