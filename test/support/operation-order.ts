import { getDocumentClient } from '../../lib/store/client';
import { integrationRepository } from '../../lib/store/integration-repository';

/**
 * Records the process's DynamoDB requests in the order things happen to them: `GetItem sent` when one
 * goes out, `GetItem answered` when its answer is back; what ran beside what shows in the order. `stop`
 * removes the recording.
 */
export function recordOperationOrder(): { order: string[]; stop: () => void } {
  const order: string[] = [];
  const stop = getDocumentClient().use((next) => async (operation, body) => {
    order.push(`${operation} sent`);
    const answer = await next(operation, body);
    order.push(`${operation} answered`);
    return answer;
  });
  return { order, stop };
}

/** Marks `integrations asked` in `order` whenever the store's integrations are read; answers how to stop. */
export function markIntegrationReads(order: string[]): () => void {
  const list = integrationRepository.list.bind(integrationRepository);
  const spy = jest.spyOn(integrationRepository, 'list').mockImplementation((storeId) => {
    order.push('integrations asked');
    return list(storeId);
  });
  return () => spy.mockRestore();
}
