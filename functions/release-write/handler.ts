import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { writeStep } from '../../lib/catalog/pipeline/steps';
import type { WriteInput } from '../workflow';

/** The publishing workflow's write step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<WriteInput, Awaited<ReturnType<typeof writeStep>>>(
  'release-write',
  writeStep,
);
