import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { abandonStep } from '../../lib/catalog/pipeline/steps';
import type { AbandonInput } from '../workflow';

/** The publishing workflow's abandon step (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<AbandonInput, Awaited<ReturnType<typeof abandonStep>>>(
  'release-abandon',
  abandonStep,
);
