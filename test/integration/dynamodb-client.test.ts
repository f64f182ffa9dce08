import { createServer, type Server } from 'node:http';
import { toApiError } from '../../lib/http/errors';
import { uuidv4 } from '../../lib/ids';
import { getDocumentClient } from '../../lib/store/client';
import {
  BatchGetCommand,
  DynamoDbClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../lib/store/dynamodb';
import { tableName } from '../../lib/store/schema';

const client = () => getDocumentClient();
const table = () => tableName('products');
const credentials = async () => ({ accessKeyId: 'local', secretAccessKey: 'local' });

describe('DynamoDbClient against DynamoDB Local', () => {
  it('round-trips every attribute type, binary included, with document-client semantics', async () => {
    const pk = `CLIENT-TEST#${uuidv4()}`;
    const item = {
      pk,
      sk: 'A',
      text: 'héllo',
      count: 42,
      price: 19.99,
      flag: true,
      nothing: null,
      list: ['a', 1, { nested: [true] }],
      map: { deep: { bytes: new Uint8Array([0, 1, 2, 250, 255]) } },
      bytes: new Uint8Array([104, 105]),
      skipped: undefined,
    };
    await client().send(new PutCommand({ TableName: table(), Item: item }));
    const { Item } = await client().send(
      new GetCommand({ TableName: table(), Key: { pk, sk: 'A' }, ConsistentRead: true }),
    );
    const { skipped: _skipped, ...expected } = item;
    expect(Item).toEqual({
      ...expected,
      map: { deep: { bytes: Buffer.from([0, 1, 2, 250, 255]) } },
      bytes: Buffer.from([104, 105]),
    });
    expect(Item?.bytes).toBeInstanceOf(Uint8Array);
  });

  it('pages a query with LastEvaluatedKey and batch-gets items by key', async () => {
    const pk = `CLIENT-TEST#${uuidv4()}`;
    for (const sk of ['1', '2', '3'])
      await client().send(new PutCommand({ TableName: table(), Item: { pk, sk, n: Number(sk) } }));
    const first = await client().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        Limit: 2,
      }),
    );
    expect(first.Items?.map((i) => i.sk)).toEqual(['1', '2']);
    expect(first.LastEvaluatedKey).toEqual({ pk, sk: '2' });
    const rest = await client().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ExclusiveStartKey: first.LastEvaluatedKey,
      }),
    );
    expect(rest.Items).toEqual([{ pk, sk: '3', n: 3 }]);
    const batch = await client().send(
      new BatchGetCommand({
        RequestItems: {
          [table()]: {
            Keys: [
              { pk, sk: '1' },
              { pk, sk: '3' },
              { pk, sk: 'missing' },
            ],
          },
        },
      }),
    );
    expect(batch.Responses?.[table()]?.map((i) => i.n).sort()).toEqual([1, 3]);
  });

  it('reports a failed condition by name and a cancelled transaction with its per-item reasons', async () => {
    const pk = `CLIENT-TEST#${uuidv4()}`;
    await client().send(new PutCommand({ TableName: table(), Item: { pk, sk: 'A', v: 1 } }));
    await expect(
      client().send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk, sk: 'A' },
          UpdateExpression: 'SET v = :two',
          ConditionExpression: 'v = :zero',
          ExpressionAttributeValues: { ':two': 2, ':zero': 0 },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } });
    await expect(
      client().send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: { pk, sk: 'B' } } },
            {
              ConditionCheck: {
                TableName: table(),
                Key: { pk, sk: 'A' },
                ConditionExpression: 'v = :zero',
                ExpressionAttributeValues: { ':zero': 0 },
              },
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'TransactionCanceledException',
      // The third: the catalog change log's item the client adds to every write of the products table.
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    const { Item } = await client().send(
      new GetCommand({ TableName: table(), Key: { pk, sk: 'B' }, ConsistentRead: true }),
    );
    expect(Item).toBeUndefined();
  });
});

describe('DynamoDbClient retries (real HTTP, a stand-in server)', () => {
  let server: Server;
  let port = 0;
  let answers: { status: number; body: unknown }[] = [];
  let calls: { target: string | undefined; authorization: string | undefined }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls.push({
          target: req.headers['x-amz-target'] as string,
          authorization: req.headers.authorization,
        });
        const answer = answers.shift() ?? { status: 200, body: {} };
        res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => {
    answers = [];
    calls = [];
  });

  const throttled = {
    status: 400,
    body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow down' },
  };

  it('retries throttling until it succeeds, signing every attempt', async () => {
    answers = [throttled, throttled, { status: 200, body: { Item: { pk: { S: 'x' } } } }];
    const lean = new DynamoDbClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials,
      maxAttempts: 4,
    });
    const result = await lean.send(new GetCommand({ TableName: 't', Key: { pk: 'x' } }));
    expect(result.Item).toEqual({ pk: 'x' });
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call.target).toBe('DynamoDB_20120810.GetItem');
      expect(call.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request, /,
      );
    }
    lean.destroy();
  });

  it('gives up after maxAttempts, and the error maps to a 503', async () => {
    answers = [throttled, throttled, throttled];
    const lean = new DynamoDbClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials,
      maxAttempts: 3,
    });
    const error = await lean
      .send(new GetCommand({ TableName: 't', Key: { pk: 'x' } }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ThrottlingException', message: 'slow down' });
    expect(calls).toHaveLength(3);
    expect(toApiError(error).status).toBe(503);
    lean.destroy();
  });

  it('does not retry a client error', async () => {
    answers = [
      { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message: 'bad key' } },
    ];
    const lean = new DynamoDbClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials,
    });
    await expect(lean.send(new GetCommand({ TableName: 't', Key: { pk: 'x' } }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(calls).toHaveLength(1);
    lean.destroy();
  });

  it('maps an unreachable endpoint to a 503 after its retries', async () => {
    const lean = new DynamoDbClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials,
      maxAttempts: 2,
    });
    const error = await lean
      .send(new GetCommand({ TableName: 't', Key: { pk: 'x' } }))
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(toApiError(error).status).toBe(503);
    lean.destroy();
  });
});
