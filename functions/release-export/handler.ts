import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { exportStep } from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../workflow';

/** The publishing workflow's export step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<ReleaseExecutionInput, Awaited<ReturnType<typeof exportStep>>>(
  'release-export',
  exportStep,
);
