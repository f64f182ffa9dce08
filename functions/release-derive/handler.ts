import { workflowStep } from '../../lib/catalog/pipeline/step-handler';
import { deriveStep } from '../../lib/catalog/pipeline/steps';
import type { DeriveInput } from '../workflow';

/** The publishing workflow's derive step, one range of products (functions/workflow.ts), as a Step Functions Lambda task. */
export const handler = workflowStep<DeriveInput, Awaited<ReturnType<typeof deriveStep>>>(
  'release-derive',
  deriveStep,
);
