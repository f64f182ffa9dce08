import { parentPort, workerData } from 'node:worker_threads';
import { type ObjectStoreLocalOptions, startObjectStoreLocal } from './object-store-local';
import type { ObjectStoreThreadMessage } from './object-store-thread';

/**
 * The local object store in a thread of its own (local/object-store-thread.ts starts it through
 * object-store-worker.mjs): posts where it listens, then stops when told and lets the thread end.
 */
const post = (message: ObjectStoreThreadMessage) => parentPort?.postMessage(message);
startObjectStoreLocal(workerData as ObjectStoreLocalOptions).then(
  (store) => {
    post({ started: { endpoint: store.endpoint, port: store.port, directory: store.directory } });
    parentPort?.on('message', (message: unknown) => {
      if (message !== 'stop') return;
      store.stop().finally(() => parentPort?.close());
    });
  },
  (error: unknown) => {
    post({ failed: (error as Error).message });
    parentPort?.close();
  },
);
