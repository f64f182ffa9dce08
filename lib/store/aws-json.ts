import type { Http1Transport } from './http1';
import { type AwsCredentials, payloadHash, signRequest } from './sigv4';

/**
 * One request of the AWS JSON 1.0 protocol (DynamoDB, Step Functions, SQS): `POST /` of a JSON body naming the
 * operation in `x-amz-target`, SigV4-signed, over a keep-alive socket of the endpoint's pool (lib/store/http1.ts).
 * The clients of lib/store send through it and keep their own retries.
 */
export interface AwsJsonRequest {
  /** The service as messages name it: `DynamoDB`, `Step Functions`. */
  label: string;
  url: URL;
  region: string;
  /** The signing name: `dynamodb`, `states`. */
  service: string;
  /** `DynamoDB_20120810.GetItem`, `AWSStepFunctions.StartExecution`. */
  target: string;
  body: string;
  credentials: AwsCredentials;
  timeoutMs: number;
}

/** The answer: its status and its JSON body (`{}` when empty; an error's `{message}` when not JSON). */
export interface AwsJsonAnswer {
  status: number;
  parsed: Record<string, unknown>;
}

/** Network errors after which an attempt may be sent again (the connection broke or never answered). */
export const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/** The error an attempt fails with when the service does not answer within `timeoutMs`. */
export function requestTimeoutError(label = 'DynamoDB'): Error {
  return Object.assign(new Error(`${label} request timed out`), { code: 'ETIMEDOUT' });
}

export async function postAwsJson(
  transport: Http1Transport,
  request: AwsJsonRequest,
): Promise<AwsJsonAnswer> {
  const { url, body } = request;
  const headers = signRequest(
    {
      method: 'POST',
      host: url.host,
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': request.target,
        'x-amz-content-sha256': payloadHash(body),
      },
      body,
    },
    request.credentials,
    request.region,
    request.service,
  );
  const answer = await transport.send({
    method: 'POST',
    path: '/',
    headers,
    body,
    timeoutMs: request.timeoutMs,
    timeoutError: () => requestTimeoutError(request.label),
  });
  return { status: answer.status, parsed: parseBody(answer.status, answer.body.toString('utf8')) };
}

/**
 * The answer's JSON. An error's body that is not JSON (a proxy's error page) becomes its message; a success
 * must be JSON (anything else throws: it is never read as an empty answer).
 */
function parseBody(status: number, text: string): Record<string, unknown> {
  if (text === '') return {};
  if (status === 200) return JSON.parse(text) as Record<string, unknown>;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // not JSON: below
  }
  return { message: text.slice(0, 500) };
}

/** An error answer's name (`__type` after its namespace: `ConditionalCheckFailedException`) and message. */
export function errorOf(answer: AwsJsonAnswer): { name: string; message: string } {
  const type = String(answer.parsed.__type ?? `HTTP${answer.status}`);
  const name = type.slice(type.lastIndexOf('#') + 1);
  return { name, message: String(answer.parsed.message ?? answer.parsed.Message ?? name) };
}
