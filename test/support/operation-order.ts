import { getDocumentClient } from '../../lib/store/client';
import { integrationRepository } from '../../lib/store/integration-repository';
import { getS3Client, objectStore } from '../../lib/store/object-store';

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

/**
 * Marks the bucket's requests in `order` as they happen: `read <name>` when an object is asked for,
 * `put sent <name>` and `put answered <name>` around a write, `<Operation> sent[ <prefix>]` and
 * `<Operation> answered` around a listing or a batch deletion (which go through the bucket's client, not
 * the store's methods); an object is named by `names`, else by its key. Answers how to stop.
 */
export function recordObjectOrder(order: string[], names: Record<string, string> = {}): () => void {
  const name = (key: string) => names[key] ?? key;
  const read = objectStore.read.bind(objectStore);
  const put = objectStore.put.bind(objectStore);
  const reads = jest.spyOn(objectStore, 'read').mockImplementation((key, range) => {
    order.push(`read ${name(key)}`);
    return read(key, range);
  });
  const puts = jest.spyOn(objectStore, 'put').mockImplementation(async (key, body, options) => {
    order.push(`put sent ${name(key)}`);
    await put(key, body, options);
    order.push(`put answered ${name(key)}`);
  });
  const client = getS3Client();
  const sendForXml = client.sendForXml.bind(client);
  const xml = jest.spyOn(client, 'sendForXml').mockImplementation(async (bucket, request) => {
    const prefix = request.query?.prefix;
    order.push(`${request.operation} sent${typeof prefix === 'string' ? ` ${prefix}` : ''}`);
    const answer = await sendForXml(bucket, request);
    order.push(`${request.operation} answered`);
    return answer;
  });
  return () => {
    reads.mockRestore();
    puts.mockRestore();
    xml.mockRestore();
  };
}
