// The object store's thread entry (local/object-store-thread.ts): tsx's loader hooks the main thread only,
// so the thread registers it itself before it loads the TypeScript that runs the store.
import { register } from 'tsx/esm/api';

register();
await import('./object-store-worker.ts');
