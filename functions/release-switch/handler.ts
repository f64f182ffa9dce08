import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { switchStep } from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../workflow';

/** The publishing workflow's switch step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<ReleaseExecutionInput, Awaited<ReturnType<typeof switchStep>>>(
  'release-switch',
  switchStep,
);
