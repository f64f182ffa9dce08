import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { planStep } from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../workflow';

/** The publishing workflow's plan step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<ReleaseExecutionInput, Awaited<ReturnType<typeof planStep>>>(
  'release-plan',
  planStep,
);
