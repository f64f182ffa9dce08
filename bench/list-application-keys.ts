import './silent-logs';
import { handler } from '../functions/list-application-keys/handler';
import { issueAccessToken } from '../lib/auth/issue-token';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { getDocumentClient } from '../lib/store/client';
import { GetCommand, QueryCommand } from '../lib/store/dynamodb';
import { keysTable, tableName } from '../lib/store/schema';
import { storeRepository } from '../lib/store/store-repository';
import { createHttpEvent, createLambdaContext } from '../local/http-event';
import { iterationsArg, measurePair, progress, round, runAsScript, type Timing } from './support';

export interface ListKeysOffsetFigures {
  offset: number;
  limit: number;
  /** The whole list handler in-process: middy stack, cached auth, store read and key queries, rendering. */
  handler: Timing;
  /** The same DynamoDB requests sent straight to DynamoDB (store GetItem in parallel with the queries). */
  raw: Timing;
  /** handler p50 / raw p50. */
  p50_ratio: number;
}

export interface ListKeysFigures {
  keys: number;
  /** Time to create the keys through the repository (one transaction each), for context. */
  seed_ms: number;
  offsets: ListKeysOffsetFigures[];
}

const LIMIT = 25;

/** A store with `count` keys created through the repository (each reserving 1) and an admin token. */
async function storeWithKeys(count: number) {
  const store = await storeRepository.create({ name: 'bench keys', rate_limit: count * 10 });
  const ids: string[] = [];
  let clientId = '';
  let clientSecret = '';
  for (let i = 0; i < count; i += 1) {
    const created = await applicationKeyRepository.create(store.id, {
      name: `key ${i}`,
      reserved_rate_limit: 1,
    });
    ids.push(created.key.id);
    if (i === 0) {
      clientId = created.key.client_id;
      clientSecret = created.clientSecret;
    }
    if ((i + 1) % 250 === 0) progress(`created ${i + 1}/${count} keys`);
  }
  const token = await issueAccessToken({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  });
  return { storeId: store.id, ids, token: token.access_token };
}

/**
 * The DynamoDB requests the list handler makes for one page, issued directly: the store item (consistent)
 * in parallel with a COUNT query skipping `offset` keys and the query for the page after it.
 */
export function rawListCalls(storeId: string, offset: number, limit: number) {
  const client = getDocumentClient();
  const table = tableName('keys');
  const query = {
    TableName: table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': keysTable.store(storeId).pk,
      ':prefix': keysTable.applicationKeyPrefix,
    },
    ConsistentRead: true,
  };
  return async () => {
    const keys = async () => {
      let startKey: Record<string, unknown> | undefined;
      if (offset > 0) {
        const skipped = await client.send(new QueryCommand({ ...query, Select: 'COUNT', Limit: offset }));
        startKey = skipped.LastEvaluatedKey;
      }
      return client.send(new QueryCommand({ ...query, Limit: limit, ExclusiveStartKey: startKey }));
    };
    const [, page] = await Promise.all([
      client.send(new GetCommand({ TableName: table, Key: keysTable.store(storeId), ConsistentRead: true })),
      keys(),
    ]);
    if ((page.Items?.length ?? 0) !== limit) throw new Error('raw page came back short');
  };
}

/**
 * In-process p50/p99 of `GET /v2/application-keys` for a store with `keyCount` keys at each offset
 * (default 0 and 975, i.e. the first and the 40th page of 25), against the p50 of the raw DynamoDB calls
 * the handler makes, timed in alternation in the same run. Expects the library to point at a database
 * with the tables (see `startBenchDatabase`). Auth is warm (cached), as in a busy container.
 */
export async function benchListApplicationKeys(
  options: { keyCount?: number; offsets?: number[]; iterations?: number; warmup?: number } = {},
): Promise<ListKeysFigures> {
  const keyCount = options.keyCount ?? 1000;
  const offsets = options.offsets ?? [0, keyCount - LIMIT];
  const iterations = options.iterations ?? 300;
  const warmup = options.warmup ?? 30;
  const seedStart = performance.now();
  const { storeId, ids, token } = await storeWithKeys(keyCount);
  const seedMs = performance.now() - seedStart;
  const context = createLambdaContext('list-application-keys');
  const results: ListKeysOffsetFigures[] = [];
  for (const offset of offsets) {
    progress(`timing ${iterations} list calls at offset ${offset} against the raw DynamoDB calls`);
    const event = () =>
      createHttpEvent({
        method: 'GET',
        path: `/v2/application-keys?page[offset]=${offset}&page[limit]=${LIMIT}`,
        routeKey: 'GET /v2/application-keys',
        headers: { authorization: `Bearer ${token}`, host: 'bench.local', 'x-forwarded-proto': 'https' },
      });
    const expectedFirst = ids[offset];
    const callHandler = async () => {
      const response = await handler(event() as never, context);
      if (response.statusCode !== 200)
        throw new Error(`list answered ${response.statusCode}: ${response.body}`);
      const body = JSON.parse(response.body ?? '') as {
        data: { id: string }[];
        meta: { results: { total: number } };
      };
      if (
        body.data[0]?.id !== expectedFirst ||
        body.data.length !== LIMIT ||
        body.meta.results.total !== keyCount
      ) {
        throw new Error(`list at offset ${offset} returned the wrong page`);
      }
    };
    const [handlerTiming, rawTiming] = await measurePair(
      callHandler,
      rawListCalls(storeId, offset, LIMIT),
      iterations,
      warmup,
    );
    results.push({
      offset,
      limit: LIMIT,
      handler: handlerTiming,
      raw: rawTiming,
      p50_ratio: round(handlerTiming.p50_ms / rawTiming.p50_ms),
    });
  }
  return { keys: keyCount, seed_ms: Math.round(seedMs), offsets: results };
}

runAsScript(
  import.meta.url,
  (args) => {
    progress('creating a store with 1,000 keys');
    return benchListApplicationKeys({ iterations: iterationsArg(args, 300) });
  },
  (figures) => {
    const lines = [
      `GET /v2/application-keys, in-process, DynamoDB Local, store with ${figures.keys} keys, page[limit]=25`,
    ];
    for (const row of figures.offsets) {
      lines.push(
        `  offset ${String(row.offset).padStart(4)}  handler p50 ${row.handler.p50_ms} ms  p99 ${row.handler.p99_ms} ms` +
          `  | raw DynamoDB p50 ${row.raw.p50_ms} ms  p99 ${row.raw.p99_ms} ms  | p50 ratio ${row.p50_ratio}` +
          `  (${row.handler.samples} calls each)`,
      );
    }
    lines.push(`  (seeding ${figures.keys} keys through the repository took ${figures.seed_ms} ms)`, '');
    return lines.join('\n');
  },
);
