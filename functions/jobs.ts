/** The job worker's settings, for the stack (infra/jobs.ts) and the local harness. */
import type { FunctionDefinition } from './routes';

export { MAX_RECEIVES } from '../lib/jobs/worker';

/** The queue's consumer: `functions/job-run/handler.ts`. */
export const JOB_WORKER = {
  name: 'job-run',
  description: "Runs the jobs of the jobs queue (imports, builds), a store's jobs one at a time",
  /** Lambda's longest: a 50,000-row import or a 10,000-child build runs in one invocation (docs/jobs.md). */
  timeoutSeconds: 900,
  memoryMb: 256,
  tables: { keys: 'read', products: 'readwrite' } as FunctionDefinition['tables'],
  /** It reads uploaded import files from the documents bucket. */
  bucket: 'read' as const,
};
