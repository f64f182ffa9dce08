/** The webhook delivery function's settings, for the stack (infra/integrations.ts) and the local harness. */
import type { FunctionDefinition } from './routes';

export { MAX_ATTEMPTS } from '../lib/integrations/deliver';

/** The deliveries queue's consumer: `functions/integration-deliver/handler.ts`. */
export const DELIVERY_WORKER = {
  name: 'integration-deliver',
  description:
    'Delivers webhook events of the deliveries queue, each record one attempt, retried with backoff',
  /** Ten records side by side, each at most a 10 s request plus its log write. */
  timeoutSeconds: 60,
  /** Records a batch hands it: attempts run side by side, each waiting on a merchant's server. */
  batchSize: 10,
  memoryMb: 256,
  tables: { products: 'readwrite' } as FunctionDefinition['tables'],
};
