import { errorOf, postAwsJson, RETRYABLE_NETWORK_CODES } from './aws-json';
import { type Http1Transport, http1Transport } from './http1';
import type { AwsCredentials } from './sigv4';

/**
 * Starts executions of a state machine (`StartExecution`, the one Step Functions call this project makes)
 * over the AWS JSON protocol, signed like the DynamoDB client's requests. Why not `@aws-sdk/client-sfn`:
 * it made the function that starts releases 31.7 ms to import, against 15-16 ms for the others, and about
 * 200 KiB of its bundle (docs/performance.md).
 */
export interface StepFunctionsOptions {
  region: string;
  /** Another endpoint (tests); AWS's regional endpoint when absent. */
  endpoint?: string | undefined;
  credentials: () => Promise<AwsCredentials>;
  /** Attempts, the first included, for throttling, 5xx and network errors (default 3, as the SDK's). */
  maxAttempts?: number;
  /** Ceiling of the first retry delay, doubled each attempt, full jitter (default 100 ms). */
  retryBaseMs?: number;
  timeoutMs?: number;
}

/** An error Step Functions answered with: `name` is its type (`ExecutionAlreadyExists`, ...). */
export class StepFunctionsError extends Error {
  readonly $metadata: { httpStatusCode: number };
  constructor(name: string, message: string, status: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status };
  }
}

function retryable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name === 'ThrottlingException') return true;
  if (e.code !== undefined && RETRYABLE_NETWORK_CODES.has(e.code)) return true;
  return (e.$metadata?.httpStatusCode ?? 0) >= 500;
}

export class StepFunctionsClient {
  private readonly url: URL;
  private transport: Http1Transport | undefined;

  constructor(private readonly options: StepFunctionsOptions) {
    this.url = new URL(options.endpoint ?? `https://states.${options.region}.amazonaws.com`);
  }

  /**
   * Starts an execution named `name` with `input` (JSON text). An execution of that name with the same
   * input already started (a retried start) is not an error: Step Functions answers it with the first one.
   */
  async startExecution(stateMachineArn: string, name: string, input: string): Promise<void> {
    const body = JSON.stringify({ stateMachineArn, name, input });
    const attempts = this.options.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.post('StartExecution', body);
        return;
      } catch (error) {
        if (attempt >= attempts || !retryable(error)) throw error;
        const cap = (this.options.retryBaseMs ?? 100) * 2 ** (attempt - 1);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(cap, 5000)));
      }
    }
  }

  private async post(operation: string, body: string): Promise<Record<string, unknown>> {
    const credentials = await this.options.credentials();
    this.transport ??= http1Transport(this.url);
    const answer = await postAwsJson(this.transport, {
      label: 'Step Functions',
      url: this.url,
      region: this.options.region,
      service: 'states',
      target: `AWSStepFunctions.${operation}`,
      body,
      credentials,
      timeoutMs: this.options.timeoutMs ?? 10_000,
    });
    if (answer.status === 200) return answer.parsed;
    const { name, message } = errorOf(answer);
    throw new StepFunctionsError(name, message, answer.status);
  }
}
