import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { deriveStep } from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../workflow';

/** The publishing workflow's derive step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<ReleaseExecutionInput, Awaited<ReturnType<typeof deriveStep>>>(
  'release-derive',
  deriveStep,
);
