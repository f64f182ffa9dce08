import { Worker } from 'node:worker_threads';
import type { ObjectStoreLocal, ObjectStoreLocalOptions } from './object-store-local';

/**
 * The local object store on a thread of its own, for `npm start`: s3rver handles every request in
 * JavaScript, and a publish streams its document, chunk files and item manifests through it; on the API's
 * thread those requests queued the API's own behind them (a release poll's p99 was 417 ms while a
 * comparison ran). Same options and handle as startObjectStoreLocal; a start that fails (a port in use)
 * rejects with its message.
 */
export function startObjectStoreThread(options: ObjectStoreLocalOptions = {}): Promise<ObjectStoreLocal> {
  const worker = new Worker(new URL('./object-store-worker.mjs', import.meta.url), { workerData: options });
  return new Promise<ObjectStoreLocal>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: ObjectStoreThreadMessage) => {
      if ('failed' in message) {
        reject(new Error(message.failed));
        return;
      }
      const exited = new Promise<void>((done) => worker.once('exit', () => done()));
      let stopping: Promise<void> | undefined;
      resolve({
        ...message.started,
        stop() {
          stopping ??= (async () => {
            worker.postMessage('stop');
            await exited;
          })();
          return stopping;
        },
      });
    });
  });
}

/** What the object store's thread posts once: where it listens, or why it could not start. */
export type ObjectStoreThreadMessage =
  | { started: { endpoint: string; port: number; directory: string } }
  | { failed: string };
