import { getConfig } from '../config/index';
import { type AwsJsonAnswer, postAwsJson } from '../store/aws-json';
import { credentialsFor } from '../store/client';
import { type Http1Transport, poolOf } from '../store/http1';
import type { AwsCredentials } from '../store/sigv4';

/** What a job's queue message carries: which job to run. */
export interface JobMessage {
  store_id: string;
  job_id: string;
}

/** A message as a FIFO queue takes it: its group (the store: its jobs run one at a time, in order). */
export interface QueuedMessage {
  groupId: string;
  deduplicationId: string;
  body: string;
}

type LocalJobQueue = (message: QueuedMessage) => void;
const LOCAL_JOB_QUEUE = Symbol.for('commerce-api.local-job-queue');

/**
 * The local harness's queue (local/job-queue.ts), registered by the local servers and the tests: it runs the
 * job worker's handler with an SQS-shaped event, each store's messages one at a time in the order sent. The
 * template-driven server registers one under the same name in a function's worker thread, which hands the
 * message to the server (local/template/lambda-worker.mjs).
 */
export function registerLocalJobQueue(queue: LocalJobQueue | undefined): void {
  (globalThis as Record<symbol, LocalJobQueue | undefined>)[LOCAL_JOB_QUEUE] = queue;
}

/** Unregisters `queue` if it is still the registered one (another server's may have replaced it). */
export function unregisterLocalJobQueue(queue: LocalJobQueue): void {
  const registry = globalThis as Record<symbol, LocalJobQueue | undefined>;
  if (registry[LOCAL_JOB_QUEUE] === queue) registry[LOCAL_JOB_QUEUE] = undefined;
}

/** The queue message of a job: grouped by store, deduplicated by job id. */
export function queuedMessage(message: JobMessage): QueuedMessage {
  return { groupId: message.store_id, deduplicationId: message.job_id, body: JSON.stringify(message) };
}

/** SQS took longer than this: the send is given up (and the job marked failed by its caller). */
const SEND_TIMEOUT_MS = 5000;
const SEND_ATTEMPTS = 3;

/**
 * Sends a job's message: in AWS to the FIFO queue JOBS_QUEUE_URL (SendMessage over SQS's JSON protocol,
 * signed like the DynamoDB client's requests: the SQS client is not a dependency), 3 attempts for 5xx and
 * network errors; locally (no JOBS_QUEUE_URL) to the harness's queue. Throws when the message was not
 * sent.
 */
export async function sendJobMessage(message: JobMessage): Promise<void> {
  const queued = queuedMessage(message);
  const config = getConfig();
  if (config.jobsQueueUrl === undefined) {
    const local = (globalThis as Record<symbol, LocalJobQueue | undefined>)[LOCAL_JOB_QUEUE];
    if (local === undefined) {
      throw new Error('no job queue: set JOBS_QUEUE_URL, or run the local harness (npm start)');
    }
    local(queued);
    return;
  }
  await sendToSqs(config.jobsQueueUrl, queued, credentialsFor(config), config.region);
}

/**
 * SendMessage of `message` to the FIFO queue at `queueUrl` (its host is the endpoint), SEND_ATTEMPTS attempts
 * for 5xx and network errors; an SqsError with the status when SQS refuses it.
 */
export function sendToSqs(
  queueUrl: string,
  message: QueuedMessage,
  credentials: () => Promise<AwsCredentials>,
  region: string,
): Promise<void> {
  return sqsAction(
    queueUrl,
    'SendMessage',
    {
      MessageBody: message.body,
      MessageGroupId: message.groupId,
      MessageDeduplicationId: message.deduplicationId,
    },
    credentials,
    region,
  );
}

/**
 * One action of SQS's JSON protocol (`SendMessage`, `ChangeMessageVisibility`) on the queue at `queueUrl`,
 * SEND_ATTEMPTS attempts for 5xx and network errors; an SqsError with the status when SQS refuses it.
 */
export async function sqsAction(
  queueUrl: string,
  action: 'SendMessage' | 'ChangeMessageVisibility',
  fields: Record<string, unknown>,
  credentials: () => Promise<AwsCredentials>,
  region: string,
): Promise<void> {
  const url = new URL(queueUrl);
  const body = JSON.stringify({ QueueUrl: queueUrl, ...fields });
  for (let attempt = 1; ; attempt += 1) {
    try {
      await post(url, action, body, await credentials(), region);
      return;
    } catch (error) {
      const status = (error as { status?: number }).status ?? 500;
      if (attempt >= SEND_ATTEMPTS || status < 500) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 100 * 2 ** attempt));
    }
  }
}

export class SqsError extends Error {
  override name = 'SqsError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Keep-alive socket pools by queue endpoint, made on the first message (a container sends many). */
const transports = new Map<string, Http1Transport>();

async function post(
  url: URL,
  action: string,
  body: string,
  credentials: AwsCredentials,
  region: string,
): Promise<void> {
  let answer: AwsJsonAnswer;
  try {
    answer = await postAwsJson(poolOf(transports, url), {
      label: 'SQS',
      url,
      region,
      service: 'sqs',
      target: `AmazonSQS.${action}`,
      body,
      credentials,
      timeoutMs: SEND_TIMEOUT_MS,
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'ETIMEDOUT') throw new SqsError(`${action} timed out`, 504);
    throw error;
  }
  if (answer.status !== 200) {
    const text = JSON.stringify(answer.parsed).slice(0, 500);
    throw new SqsError(`${action} answered ${answer.status}: ${text}`, answer.status);
  }
}
