import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { validateStep } from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../workflow';

/** The publishing workflow's validate step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<ReleaseExecutionInput, Awaited<ReturnType<typeof validateStep>>>(
  'release-validate',
  validateStep,
);
