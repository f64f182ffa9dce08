import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queuedMessage, SqsError, sendToSqs, sqsAction } from '../../lib/jobs/queue';

/**
 * SendMessage (and ChangeMessageVisibility, which webhook deliveries use) as lib/jobs/queue.ts sends it to SQS (its JSON protocol, SigV4 for the `sqs` service), against
 * a stand-in endpoint that records each request and answers what the test says.
 */

interface Seen {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

let server: Server;
let seen: Seen[] = [];
let answers: number[] = [];
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const status = answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(
        status === 200
          ? '{"MessageId":"m-1"}'
          : '{"__type":"com.amazonaws.sqs#InvalidParameterValue","message":"no"}',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  seen = [];
  answers = [];
});

const credentials = async () => ({
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'secret',
  sessionToken: 'token',
});
const message = queuedMessage({ store_id: 'store-1', job_id: 'job-1' });

describe('sendToSqs', () => {
  it('sends SendMessage with the group (store), the deduplication id (job) and a SigV4 signature for sqs', async () => {
    const queueUrl = `${base}/123456789012/commerce-jobs.fifo`;
    await sendToSqs(queueUrl, message, credentials, 'eu-west-1');
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(request?.headers['x-amz-security-token']).toBe('token');
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/sqs\/aws4_request, SignedHeaders=.*x-amz-target.*, Signature=[0-9a-f]{64}$/,
    );
    expect(request?.body).toEqual({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify({ store_id: 'store-1', job_id: 'job-1' }),
      MessageGroupId: 'store-1',
      MessageDeduplicationId: 'job-1',
    });
  });

  it('tries a 5xx again, up to 3 times, and gives up on a 4xx at once', async () => {
    answers = [500, 503];
    await sendToSqs(`${base}/1/q.fifo`, message, credentials, 'eu-west-1');
    expect(seen).toHaveLength(3);
    seen = [];
    answers = [500, 500, 500];
    await expect(sendToSqs(`${base}/1/q.fifo`, message, credentials, 'eu-west-1')).rejects.toBeInstanceOf(
      SqsError,
    );
    expect(seen).toHaveLength(3);
    seen = [];
    answers = [400];
    await expect(sendToSqs(`${base}/1/q.fifo`, message, credentials, 'eu-west-1')).rejects.toMatchObject({
      status: 400,
    });
    expect(seen).toHaveLength(1);
  });
});

describe('sqsAction', () => {
  it("sends ChangeMessageVisibility (a webhook retry's delay) under its own target, signed alike", async () => {
    const queueUrl = `${base}/123456789012/commerce-deliveries`;
    await sqsAction(
      queueUrl,
      'ChangeMessageVisibility',
      { ReceiptHandle: 'receipt-1', VisibilityTimeout: 60 },
      credentials,
      'eu-west-1',
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers['x-amz-target']).toBe('AmazonSQS.ChangeMessageVisibility');
    expect(seen[0]?.headers.authorization).toMatch(/\/eu-west-1\/sqs\/aws4_request/);
    expect(seen[0]?.body).toEqual({ QueueUrl: queueUrl, ReceiptHandle: 'receipt-1', VisibilityTimeout: 60 });
  });
});
