import { queuedMessage, SqsError, sendToSqs, sqsAction } from '../../lib/jobs/queue';
import {
  STAND_IN_CREDENTIALS as credentials,
  expectSignedJson,
  type StandIn,
  startStandIn,
} from '../support/aws-json-stand-in';

/**
 * SendMessage (and ChangeMessageVisibility, which webhook deliveries use) as lib/jobs/queue.ts sends it to SQS (its JSON protocol, SigV4 for the `sqs` service), against
 * a stand-in endpoint that records each request and answers what the test says.
 */

let standIn: StandIn;
let base = '';
beforeAll(async () => {
  standIn = await startStandIn('{"MessageId":"m-1"}');
  base = standIn.base;
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.seen.length = 0;
  standIn.answers.length = 0;
});
const refusal = (status: number) => ({
  status,
  body: '{"__type":"com.amazonaws.sqs#InvalidParameterValue","message":"no"}',
});
const message = queuedMessage({ store_id: 'store-1', job_id: 'job-1' });

describe('sendToSqs', () => {
  it('sends SendMessage with the group (store), the deduplication id (job) and a SigV4 signature for sqs', async () => {
    const queueUrl = `${base}/123456789012/commerce-jobs.fifo`;
    await sendToSqs(queueUrl, message, credentials, 'eu-west-1');
    const { seen } = standIn;
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expectSignedJson(request, 'AmazonSQS.SendMessage', 'sqs', 'eu-west-1');
    expect(request?.body).toEqual({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify({ store_id: 'store-1', job_id: 'job-1' }),
      MessageGroupId: 'store-1',
      MessageDeduplicationId: 'job-1',
    });
  });

  it('tries a 5xx again, up to 3 times, and gives up on a 4xx at once', async () => {
    const { seen, answers } = standIn;
    answers.push(refusal(500), refusal(503));
    await sendToSqs(`${base}/1/q.fifo`, message, credentials, 'eu-west-1');
    expect(seen).toHaveLength(3);
    seen.length = 0;
    answers.push(refusal(500), refusal(500), refusal(500));
    await expect(sendToSqs(`${base}/1/q.fifo`, message, credentials, 'eu-west-1')).rejects.toBeInstanceOf(
      SqsError,
    );
    expect(seen).toHaveLength(3);
    seen.length = 0;
    answers.push(refusal(400));
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
    const { seen } = standIn;
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers['x-amz-target']).toBe('AmazonSQS.ChangeMessageVisibility');
    expect(seen[0]?.headers.authorization).toMatch(/\/eu-west-1\/sqs\/aws4_request/);
    expect(seen[0]?.body).toEqual({ QueueUrl: queueUrl, ReceiptHandle: 'receipt-1', VisibilityTimeout: 60 });
  });
});
