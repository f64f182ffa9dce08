import './silent-logs';
import { handler } from '../functions/update-merchant-realm-mapping/handler';
import { issueAccessToken } from '../lib/auth/issue-token';
import { uuidv4 } from '../lib/ids';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { getDocumentClient } from '../lib/store/client';
import { TransactWriteCommand } from '../lib/store/dynamodb';
import { type MappingRecord, mappingRepository, prefixChangeItems } from '../lib/store/mapping-repository';
import { storeRepository } from '../lib/store/store-repository';
import { createHttpEvent, createLambdaContext } from '../local/http-event';
import { iterationsArg, measurePair, progress, round, runAsScript, type Timing } from './support';

export interface UpdateMappingFigures {
  /** The whole update handler in-process: middy stack, cached auth, consistent read, transaction. */
  handler: Timing;
  /** The same three-item transaction sent straight to DynamoDB (no read, no handler). */
  transaction: Timing;
  /** handler p50 / transaction p50. */
  p50_ratio: number;
}

/**
 * A store with a key and its token. Its rate limit is far above what the loop sends: at the default (100
 * a second) a machine that runs the handler and the transaction in under 10 ms a pair was refused (429).
 */
async function storeWithToken(name: string) {
  const store = await storeRepository.create({ name, rate_limit: 100_000 });
  const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
    name,
    reserved_rate_limit: 0,
  });
  const token = await issueAccessToken({
    grant_type: 'client_credentials',
    client_id: key.client_id,
    client_secret: clientSecret,
  });
  return { store, token: token.access_token };
}

/** Two prefixes to alternate between, so every call really moves the prefix (claim + release). */
function prefixPair(label: string): [string, string] {
  const tag = uuidv4().slice(0, 8);
  return [`${label}-${tag}-a`, `${label}-${tag}-b`];
}

/**
 * In-process p50/p99 of `PUT /v2/merchant-realm-mappings/{id}` against the p50 of the raw transaction
 * it performs, timed in alternation in the same run. Expects the library to point at a database with
 * the tables (see `startBenchDatabase`).
 */
export async function benchUpdateMerchantRealmMapping(
  iterations = 500,
  warmup = 30,
): Promise<UpdateMappingFigures> {
  const viaHandler = await storeWithToken('bench mapping handler');
  const viaTransaction = await storeWithToken('bench mapping transaction');
  const handlerPrefixes = prefixPair('bench-handler');
  const transactionPrefixes = prefixPair('bench-raw');
  const mappingId = viaHandler.store.mapping_id;
  const context = createLambdaContext('update-merchant-realm-mapping');

  let handlerCalls = 0;
  const callHandler = async () => {
    const prefix = handlerPrefixes[handlerCalls % 2] as string;
    handlerCalls += 1;
    const event = createHttpEvent({
      method: 'PUT',
      path: `/v2/merchant-realm-mappings/${mappingId}`,
      routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
      pathParameters: { mapping_id: mappingId },
      headers: { authorization: `Bearer ${viaHandler.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix } }),
    });
    const response = await handler(event as never, context);
    if (response.statusCode !== 200)
      throw new Error(`update answered ${response.statusCode}: ${response.body}`);
  };

  const initial = await mappingRepository.get(viaTransaction.store.mapping_id);
  if (!initial) throw new Error('bench mapping missing');
  let current: MappingRecord = initial;
  let transactionCalls = 0;
  const sendTransaction = async () => {
    const prefix = transactionPrefixes[transactionCalls % 2] as string;
    transactionCalls += 1;
    await getDocumentClient().send(
      new TransactWriteCommand({ TransactItems: prefixChangeItems(current, prefix) }),
    );
    current = { ...current, prefix, version: current.version + 1 };
  };

  const [handlerTiming, transactionTiming] = await measurePair(
    callHandler,
    sendTransaction,
    iterations,
    warmup,
  );
  const stored = await mappingRepository.get(mappingId);
  if (stored?.version !== handlerCalls)
    throw new Error('the handler did not change the prefix on every call');
  return {
    handler: handlerTiming,
    transaction: transactionTiming,
    p50_ratio: round(handlerTiming.p50_ms / transactionTiming.p50_ms),
  };
}

runAsScript(
  import.meta.url,
  (args) => {
    const iterations = iterationsArg(args, 500);
    progress(`timing ${iterations} update-handler calls against ${iterations} raw transactions`);
    return benchUpdateMerchantRealmMapping(iterations);
  },
  (figures) =>
    [
      'PUT /v2/merchant-realm-mappings/{id}, in-process, DynamoDB Local',
      `  update handler     p50 ${figures.handler.p50_ms} ms  p99 ${figures.handler.p99_ms} ms  (${figures.handler.samples} calls)`,
      `  raw transaction    p50 ${figures.transaction.p50_ms} ms  p99 ${figures.transaction.p99_ms} ms`,
      `  handler/transaction p50 ratio ${figures.p50_ratio}`,
      '',
    ].join('\n'),
);
