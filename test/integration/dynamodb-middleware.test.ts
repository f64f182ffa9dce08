import { createServer, type Server } from 'node:http';
import { seededRandom } from '../../lib/catalog/generator';
import { toApiError } from '../../lib/http/errors';
import { uuidv4 } from '../../lib/ids';
import { getDocumentClient } from '../../lib/store/client';
import {
  type AttemptFn,
  type AttemptMiddleware,
  DynamoDbClient,
  DynamoDbError,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '../../lib/store/dynamodb';
import { tableName } from '../../lib/store/schema';
import { type FaultKind, faultError, injectFaults } from '../support/faults';

const credentials = async () => ({ accessKeyId: 'local', secretAccessKey: 'local' });

/** A stand-in DynamoDB endpoint answering from a queue; `hang` answers nothing (for timeouts). */
describe('DynamoDbClient.use (real HTTP, a stand-in server)', () => {
  let server: Server;
  let port = 0;
  let answers: ({ status: number; body: unknown } | 'hang')[] = [];
  let calls: { target: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        calls.push({
          target: String(req.headers['x-amz-target']),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const answer = answers.shift() ?? { status: 200, body: {} };
        if (answer === 'hang') return;
        res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  beforeEach(() => {
    answers = [];
    calls = [];
  });

  const lean = (options: { maxAttempts?: number; requestTimeoutMs?: number } = {}) =>
    new DynamoDbClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials,
      retryBaseMs: { throttling: 1, other: 1 },
      ...options,
    });
  const get = () => new GetCommand({ TableName: 'ttt', Key: { pk: 'x' } });
  const dynamoError = (type: string, message: string, status = 400) => ({
    status,
    body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message },
  });

  it('runs every attempt through the middleware, below the retry loop', async () => {
    const client = lean();
    const seen: { operation: string; body: string }[] = [];
    client.use((next) => (operation, body) => {
      seen.push({ operation, body });
      return next(operation, body);
    });
    answers = [
      dynamoError('ThrottlingException', 'slow down'),
      { status: 200, body: { Item: { pk: { S: 'x' } } } },
    ];
    expect((await client.send(get())).Item).toEqual({ pk: 'x' });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({ operation: 'GetItem', body: seen[1]?.body });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ TableName: 'ttt', Key: { pk: { S: 'x' } } });
    expect(calls).toHaveLength(2);
    client.destroy();
  });

  it('retries a retryable error thrown by a middleware like a real one, and not a non-retryable one', async () => {
    const client = lean();
    let attempts = 0;
    const remove = client.use((next) => (operation, body) => {
      attempts += 1;
      if (attempts === 1) return Promise.reject(faultError('timeout', operation, body));
      return next(operation, body);
    });
    await client.send(get());
    expect(attempts).toBe(2);
    expect(calls).toHaveLength(1);
    remove();

    const refuse = client.use(
      () => () => Promise.reject(new DynamoDbError('ValidationException', 'no', 400)),
    );
    await expect(client.send(get())).rejects.toMatchObject({ name: 'ValidationException' });
    expect(calls).toHaveLength(1);
    refuse();
    client.destroy();
  });

  it('composes in registration order (first is outermost); each remover removes only its own, once', async () => {
    const client = lean();
    const order: string[] = [];
    const tag =
      (name: string): AttemptMiddleware =>
      (next: AttemptFn) =>
      async (operation, body) => {
        order.push(`${name}>`);
        const result = await next(operation, body);
        order.push(`<${name}`);
        return result;
      };
    const outer = tag('a');
    const removeA = client.use(outer);
    const removeB = client.use(tag('b'));
    const removeA2 = client.use(outer);
    await client.send(get());
    expect(order).toEqual(['a>', 'b>', 'a>', '<a', '<b', '<a']);
    order.length = 0;
    removeA2();
    removeA2();
    await client.send(get());
    expect(order).toEqual(['a>', 'b>', '<b', '<a']);
    order.length = 0;
    removeA();
    removeB();
    await client.send(get());
    expect(order).toEqual([]);
    expect(calls).toHaveLength(3);
    client.destroy();
  });

  it.each<[FaultKind, string, { status: number; body: unknown } | 'hang', number]>([
    [
      'throttle',
      'ProvisionedThroughputExceededException',
      dynamoError('ProvisionedThroughputExceededException', 'The level of configured provisioned throughput'),
      0,
    ],
    ['throttle', 'ThrottlingException', dynamoError('ThrottlingException', 'Throughput exceeds'), 0.9],
    ['internal', 'InternalServerError', dynamoError('InternalServerError', 'Internal server error', 500), 0],
    ['timeout', 'ETIMEDOUT', 'hang', 0],
  ])(
    'injects %s faults (%s) shaped like the errors the client itself produces',
    async (kind, _name, real, draw) => {
      const client = lean({ maxAttempts: 1, requestTimeoutMs: 50 });
      answers = [real];
      const actual = (await client.send(get()).then(
        () => undefined,
        (error: unknown) => error,
      )) as Error;
      const injected = faultError(kind, 'GetItem', '{"TableName":"ttt"}', () => draw);
      expect(injected.constructor).toBe(actual.constructor);
      expect(injected.name).toBe(actual.name);
      expect((injected as { code?: string }).code).toBe((actual as { code?: string }).code);
      expect((injected as DynamoDbError).$metadata).toEqual((actual as DynamoDbError).$metadata);
      if (kind === 'timeout') expect(injected.message).toBe(actual.message);
      expect(toApiError(injected).status).toBe(503);
      client.destroy();
    },
  );

  it('gives up after maxAttempts of injected faults, without reaching the server before-send', async () => {
    for (const kind of ['throttle', 'timeout', 'internal'] as const) {
      const client = lean({ maxAttempts: 3 });
      const faults = injectFaults(client, { rate: 1, kinds: [kind] });
      const error = await client.send(get()).catch((e: unknown) => e);
      expect(toApiError(error).status).toBe(503);
      expect(faults.attempts).toEqual({ GetItem: 3 });
      expect(faults.injected).toMatchObject({ total: 3, byOperation: { GetItem: 3 } });
      expect(faults.injected.byKind[kind]).toBe(3);
      faults.remove();
      client.destroy();
    }
    expect(calls).toHaveLength(0);
  });

  it('retries TransactionInProgressException (a retry that found its first attempt still running)', async () => {
    const client = lean();
    answers = [dynamoError('TransactionInProgressException', 'in progress'), { status: 200, body: {} }];
    await client.send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 'ttt', Item: { pk: 'a' } } }] }),
    );
    expect(calls).toHaveLength(2);
    client.destroy();
  });

  it('sends TransactWriteItems with a ClientRequestToken, the same on every retry, like the AWS SDK', async () => {
    const client = lean();
    answers = [dynamoError('InternalServerError', 'oops', 500), { status: 200, body: {} }];
    await client.send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 'ttt', Item: { pk: 'a' } } }] }),
    );
    const tokens = calls.map((call) => JSON.parse(call.body).ClientRequestToken);
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens).toEqual([tokens[0], tokens[0]]);

    await client.send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 'ttt', Item: { pk: 'a' } } }] }),
    );
    expect(JSON.parse(calls[2]?.body ?? '').ClientRequestToken).not.toBe(tokens[0]);
    await client.send(
      new TransactWriteCommand({
        ClientRequestToken: 'mine',
        TransactItems: [{ Put: { TableName: 'ttt', Item: { pk: 'a' } } }],
      }),
    );
    expect(JSON.parse(calls[3]?.body ?? '').ClientRequestToken).toBe('mine');
    await client.send(get());
    expect(JSON.parse(calls[4]?.body ?? '')).not.toHaveProperty('ClientRequestToken');
    client.destroy();
  });
});

describe('errors of transactions', () => {
  it('maps a transaction cancelled by throttling to 503 (nothing was written), other cancellations not', () => {
    const body = '{"TransactItems":[{"Put":{"TableName":"ttt"}},{"Update":{"TableName":"ttt"}}]}';
    const throttled = faultError('cancelled-throttle', 'TransactWriteItems', body);
    expect(throttled).toMatchObject({
      name: 'TransactionCanceledException',
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: [{ Code: 'ThrottlingError' }, { Code: 'None' }],
    });
    expect(toApiError(throttled).status).toBe(503);
    const conflict = new DynamoDbError('TransactionCanceledException', 'cancelled', 400, [
      { Code: 'ConditionalCheckFailed' },
    ]);
    expect(toApiError(conflict).status).toBe(500);
    expect(toApiError(new DynamoDbError('TransactionInProgressException', 'busy', 400)).status).toBe(503);
  });
});

describe('injectFaults against DynamoDB Local', () => {
  const table = () => tableName('products');
  const put = (pk: string) => new PutCommand({ TableName: table(), Item: { pk, sk: 'A' } });
  const read = async (pk: string) =>
    (
      await getDocumentClient().send(
        new GetCommand({ TableName: table(), Key: { pk, sk: 'A' }, ConsistentRead: true }),
      )
    ).Item;

  it('is repeatable: the same seed fails the same attempts with the same kinds', async () => {
    const client = new DynamoDbClient({
      region: 'us-east-1',
      endpoint: process.env.DYNAMODB_ENDPOINT,
      credentials,
      maxAttempts: 1,
    });
    const outcomes = async (seed: number) => {
      const faults = injectFaults(client, { rate: 0.5, seed });
      const seen: string[] = [];
      for (let i = 0; i < 16; i += 1) {
        const error = await client
          .send(new GetCommand({ TableName: table(), Key: { pk: 'FAULTS-TEST#none', sk: 'A' } }))
          .then(
            () => undefined,
            (e: unknown) => e as Error & { code?: string },
          );
        seen.push(error ? (error.code ?? error.name) : 'ok');
      }
      faults.remove();
      return seen;
    };
    const first = await outcomes(7);
    expect(await outcomes(7)).toEqual(first);
    expect(await outcomes(8)).not.toEqual(first);
    expect(first).toContain('ok');
    expect(first.filter((outcome) => outcome !== 'ok').length).toBeGreaterThan(2);
    const random = seededRandom(7);
    expect(Array.from({ length: 4 }, random)).toEqual(Array.from({ length: 4 }, seededRandom(7)));
    client.destroy();
  });

  it('applies the write after-send and loses the response; before-send never reaches DynamoDB', async () => {
    const client = new DynamoDbClient({
      region: 'us-east-1',
      endpoint: process.env.DYNAMODB_ENDPOINT,
      credentials,
      maxAttempts: 1,
    });
    const after = injectFaults(client, { rate: 1, kinds: ['timeout'], when: 'after-send' });
    const lost = `FAULTS-TEST#${uuidv4()}`;
    await expect(client.send(put(lost))).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    after.remove();
    expect(await read(lost)).toEqual({ pk: lost, sk: 'A' });

    const before = injectFaults(client, { rate: 1, kinds: ['internal'] });
    const refused = `FAULTS-TEST#${uuidv4()}`;
    await expect(client.send(put(refused))).rejects.toMatchObject({
      name: 'InternalServerError',
      $metadata: { httpStatusCode: 500 },
    });
    before.remove();
    expect(await read(refused)).toBeUndefined();
    expect([after.injected.total, before.injected.total]).toEqual([1, 1]);
    client.destroy();
  });

  it('honours operations, rate 0 and limit, and keeps a request below maxConsecutive faults in a row', async () => {
    const client = new DynamoDbClient({
      region: 'us-east-1',
      endpoint: process.env.DYNAMODB_ENDPOINT,
      credentials,
      maxAttempts: 4,
      retryBaseMs: { throttling: 1, other: 1 },
    });
    const onlyGets = injectFaults(client, { rate: 1, operations: ['GetItem'] });
    const pk = `FAULTS-TEST#${uuidv4()}`;
    await client.send(put(pk));
    expect(onlyGets.attempts).toEqual({});
    onlyGets.remove();

    const never = injectFaults(client, { rate: 0 });
    await client.send(new GetCommand({ TableName: table(), Key: { pk, sk: 'A' } }));
    expect(never).toMatchObject({ attempts: { GetItem: 1 }, injected: { total: 0 } });
    never.remove();

    const once = injectFaults(client, { rate: 1, limit: 1 });
    await client.send(new GetCommand({ TableName: table(), Key: { pk, sk: 'A' } }));
    expect(once).toMatchObject({ attempts: { GetItem: 2 }, injected: { total: 1 } });
    once.remove();

    const capped = injectFaults(client, { rate: 1, maxConsecutive: 3 });
    await client.send(new GetCommand({ TableName: table(), Key: { pk, sk: 'A' } }));
    expect(capped).toMatchObject({ attempts: { GetItem: 4 }, injected: { total: 3 } });
    capped.remove();
    client.destroy();
  });
});
