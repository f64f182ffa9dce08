// The workflow thread's entry (local/workflow-thread.ts): tsx's loader hooks the main thread only, so the
// thread registers them itself before it loads the TypeScript that runs the steps.
import { register } from 'tsx/esm/api';

register();
await import('./workflow-worker.ts');
