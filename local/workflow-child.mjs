// The workflow process's entry (local/workflow-process.ts): a plain node process, so it registers tsx's
// loader itself before it loads the TypeScript that runs the steps.
import { register } from 'tsx/esm/api';

register();
await import('./workflow-child.ts');
