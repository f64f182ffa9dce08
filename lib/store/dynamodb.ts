import { randomUUID } from 'node:crypto';
import type * as LibDynamoDb from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { errorOf, postAwsJson, RETRYABLE_NETWORK_CODES } from './aws-json';
import { type Http1Transport, http1Transport, preloadHttp1 } from './http1';
import type { AwsCredentials } from './sigv4';

/*
 * A lean DynamoDB client for the Lambda functions: the DynamoDB JSON protocol over keep-alive HTTP/1.1 (lib/store/http1.ts),
 * SigV4-signed, with the document-client semantics of `@aws-sdk/lib-dynamodb` (plain JavaScript values in
 * and out, marshalled by the SDK's own `@aws-sdk/util-dynamodb`). The command classes keep the SDK's names
 * and input/output types, so repositories read like SDK code. Why not the SDK client itself: a fresh
 * process importing it and making one call costs ~60-90 ms over `node -e 0` on our machines (225 KiB to
 * compile, TLS and config loading, first-call initialisation of its middleware and schema serde), which is
 * most of a Lambda cold start; this client is a few KiB. See docs/performance.md.
 */

/** A DynamoDB operation with the document-client input and output types of `@aws-sdk/lib-dynamodb`. */
export abstract class Command<Input, Output> {
  abstract readonly operation: string;
  /** Phantom field carrying the output type. */
  declare readonly __output: Output;
  constructor(readonly input: Input) {}
}

export class GetCommand extends Command<LibDynamoDb.GetCommandInput, LibDynamoDb.GetCommandOutput> {
  readonly operation = 'GetItem';
}
export class PutCommand extends Command<LibDynamoDb.PutCommandInput, LibDynamoDb.PutCommandOutput> {
  readonly operation = 'PutItem';
}
export class UpdateCommand extends Command<LibDynamoDb.UpdateCommandInput, LibDynamoDb.UpdateCommandOutput> {
  readonly operation = 'UpdateItem';
}
export class DeleteCommand extends Command<LibDynamoDb.DeleteCommandInput, LibDynamoDb.DeleteCommandOutput> {
  readonly operation = 'DeleteItem';
}
export class QueryCommand extends Command<LibDynamoDb.QueryCommandInput, LibDynamoDb.QueryCommandOutput> {
  readonly operation = 'Query';
}
export class ScanCommand extends Command<LibDynamoDb.ScanCommandInput, LibDynamoDb.ScanCommandOutput> {
  readonly operation = 'Scan';
}
export class BatchGetCommand extends Command<
  LibDynamoDb.BatchGetCommandInput,
  LibDynamoDb.BatchGetCommandOutput
> {
  readonly operation = 'BatchGetItem';
}
export class BatchWriteCommand extends Command<
  LibDynamoDb.BatchWriteCommandInput,
  LibDynamoDb.BatchWriteCommandOutput
> {
  readonly operation = 'BatchWriteItem';
}
export class TransactWriteCommand extends Command<
  LibDynamoDb.TransactWriteCommandInput,
  LibDynamoDb.TransactWriteCommandOutput
> {
  readonly operation = 'TransactWriteItems';
}

export type BatchGetCommandOutput = LibDynamoDb.BatchGetCommandOutput;

/** An error DynamoDB answered with: `name` is its type (`ConditionalCheckFailedException`, ...). */
export class DynamoDbError extends Error {
  readonly $metadata: { httpStatusCode: number };
  /** For `TransactionCanceledException`: one reason per transaction item, in order. */
  readonly CancellationReasons?: { Code?: string; Message?: string; Item?: Record<string, unknown> }[];

  constructor(name: string, message: string, status: number, reasons?: DynamoDbError['CancellationReasons']) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status };
    if (reasons) this.CancellationReasons = reasons;
  }
}

const MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
/** Request members that hold one item (or key, or value map) in document form. */
const ITEM_MEMBERS = new Set(['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey']);
/** Response members that hold one item in DynamoDB JSON. */
const RESPONSE_ITEM_MEMBERS = new Set(['Item', 'Attributes', 'LastEvaluatedKey', 'Key']);
const RETRYABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  // A retry of a transaction (same ClientRequestToken) that DynamoDB is still applying: wait and retry.
  'TransactionInProgressException',
  // A single-item write refused because a transaction holds the item: nothing was applied, so the same
  // request may be sent again once the transaction is done (the jittered backoff spreads the retries).
  'TransactionConflictException',
]);

/** One attempt of an operation: the signed-and-sent DynamoDB JSON `body`, resolving to the parsed response. */
export type AttemptFn = (operation: string, body: string) => Promise<unknown>;
/** Wraps each attempt (see `DynamoDbClient.use`). */
export type AttemptMiddleware = (next: AttemptFn) => AttemptFn;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);

/** Document-form request -> DynamoDB JSON request: items, keys and value maps are marshalled. */
function toWire(value: unknown, member?: string): unknown {
  if (member !== undefined && ITEM_MEMBERS.has(member) && isRecord(value))
    return marshall(value, MARSHALL_OPTIONS);
  if (member === 'Keys' && Array.isArray(value)) return value.map((key) => marshall(key, MARSHALL_OPTIONS));
  if (Array.isArray(value)) return value.map((entry) => toWire(entry));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) if (entry !== undefined) out[key] = toWire(entry, key);
    return out;
  }
  return value;
}

/** Binary attributes travel as base64: back to bytes, recursively, before unmarshalling. */
function decodeBinary(attribute: Record<string, Json>): Record<string, unknown> {
  if (typeof attribute.B === 'string') return { B: Buffer.from(attribute.B, 'base64') };
  if (Array.isArray(attribute.BS)) return { BS: attribute.BS.map((b) => Buffer.from(String(b), 'base64')) };
  if (isRecord(attribute.M)) {
    const map: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(attribute.M as Record<string, Record<string, Json>>))
      map[k] = decodeBinary(v);
    return { M: map };
  }
  if (Array.isArray(attribute.L)) return { L: (attribute.L as Record<string, Json>[]).map(decodeBinary) };
  return attribute;
}

function item(wire: unknown): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(wire as Record<string, Record<string, Json>>))
    attributes[k] = decodeBinary(v);
  return unmarshall(attributes as never, { wrapNumbers: false });
}

/** DynamoDB JSON response -> document form: items (in any member that holds them) are unmarshalled. */
function fromWire(value: unknown, member?: string): unknown {
  if (member !== undefined && RESPONSE_ITEM_MEMBERS.has(member) && isRecord(value)) return item(value);
  if ((member === 'Items' || member === 'Keys') && Array.isArray(value)) return value.map(item);
  if (member === 'Responses' && isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [table, items] of Object.entries(value)) out[table] = (items as unknown[]).map(item);
    return out;
  }
  if (Array.isArray(value)) return value.map((entry) => fromWire(entry));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) out[key] = fromWire(entry, key);
    return out;
  }
  return value;
}

/** JSON with bytes as base64, as the DynamoDB JSON protocol wants binary attributes. */
const encodeBody = (payload: unknown): string =>
  JSON.stringify(payload, (_key, value) =>
    value instanceof Uint8Array
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
      : value,
  );

export interface DynamoDbClientOptions {
  region: string;
  /** DynamoDB Local or another endpoint; AWS's regional endpoint when absent. */
  endpoint?: string | undefined;
  credentials: () => Promise<AwsCredentials>;
  /** Attempts per request, first included, for throttling, 5xx and network errors. */
  maxAttempts?: number;
  requestTimeoutMs?: number;
  /**
   * Ceiling of the first retry delay (doubled per attempt, capped at 5 s, full jitter): 500 ms after
   * throttling, 50 ms after other errors. Tests shrink it; production keeps the defaults.
   */
  retryBaseMs?: { throttling?: number; other?: number };
  /**
   * Items to write with each write (the catalog change log, lib/store/catalog-changes.ts): put in the
   * write's own transaction when there is room, else written before it (an item whose write then fails
   * only names something that did not change).
   */
  writeHook?: (
    command: Command<unknown, unknown>,
  ) => { table: string; items: Record<string, unknown>[] } | undefined;
}

/** The most items one TransactWriteItems holds. */
const TRANSACTION_MAX_ITEMS = 100;
/** The most items one BatchWriteItem holds. */
const BATCH_WRITE_MAX_ITEMS = 25;

/** Minimal DynamoDB client: `send(new GetCommand({...}))` as with the SDK's document client. */
export class DynamoDbClient {
  private readonly url: URL;
  private transport: Http1Transport | undefined;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly throttledBaseMs: number;
  private readonly otherBaseMs: number;
  /** Registered middleware, outermost first (each entry is its own object, so removal is exact). */
  private readonly middleware: { wrap: AttemptMiddleware }[] = [];
  /** The composed attempt chain; undefined while no middleware is registered (attempts call `post`). */
  private attempt: AttemptFn | undefined;

  constructor(private readonly options: DynamoDbClientOptions) {
    this.url = new URL(options.endpoint ?? `https://dynamodb.${options.region}.amazonaws.com`);
    this.maxAttempts = options.maxAttempts ?? 4;
    this.timeoutMs = options.requestTimeoutMs ?? 10000;
    this.throttledBaseMs = options.retryBaseMs?.throttling ?? 500;
    this.otherBaseMs = options.retryBaseMs?.other ?? 50;
    // Start loading node:tls (for https) now, so a cold container's first request does not wait for it.
    preloadHttp1(this.url);
  }

  /** Sends one operation, retrying throttling, 5xx and network errors with jittered exponential backoff. */
  async send<Input, Output>(command: Command<Input, Output>): Promise<Output> {
    let input = command.operation === 'TransactWriteItems' ? withRequestToken(command.input) : command.input;
    const extra = this.options.writeHook?.(command as Command<unknown, unknown>);
    if (extra !== undefined && extra.items.length > 0) {
      const transaction = (input as { TransactItems?: unknown[] }).TransactItems;
      if (transaction !== undefined && transaction.length + extra.items.length <= TRANSACTION_MAX_ITEMS) {
        const puts = extra.items.map((Item) => ({ Put: { TableName: extra.table, Item } }));
        input = { ...input, TransactItems: [...transaction, ...puts] };
      } else {
        await this.writeBefore(extra.table, extra.items);
      }
    }
    // Encoded once: every retry sends the same body (and so the same ClientRequestToken).
    const body = encodeBody(toWire(input));
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await (this.attempt
          ? this.attempt(command.operation, body)
          : this.post(command.operation, body));
        return fromWire(result) as Output;
      } catch (error) {
        if (attempt >= this.maxAttempts || !retryable(error)) throw error;
        const throttled =
          (error as Error).name.includes('Throughput') || (error as Error).name.includes('Throttl');
        const cap = (throttled ? this.throttledBaseMs : this.otherBaseMs) * 2 ** (attempt - 1);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(cap, 5000)));
      }
    }
  }

  /**
   * Wraps every single attempt of every operation from now on: the middleware gets the next step (in the
   * end the HTTP round trip) and returns the step to run instead. It sits below the retry loop, so an
   * attempt it fails with a retryable error is retried like a real one. Middleware registered first runs
   * outermost. Returns a function that removes this registration. For tests (fault injection); a client
   * without middleware pays one property check per attempt.
   */
  use(middleware: AttemptMiddleware): () => void {
    const entry = { wrap: middleware };
    this.middleware.push(entry);
    this.composeAttempt();
    return () => {
      const index = this.middleware.indexOf(entry);
      if (index === -1) return;
      this.middleware.splice(index, 1);
      this.composeAttempt();
    };
  }

  /** Writes `items` to `table` in batches, unprocessed ones again, before the write they go with. */
  private async writeBefore(table: string, items: Record<string, unknown>[]): Promise<void> {
    for (let start = 0; start < items.length; start += BATCH_WRITE_MAX_ITEMS) {
      let requests = items
        .slice(start, start + BATCH_WRITE_MAX_ITEMS)
        .map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt += 1) {
        if (attempt >= this.maxAttempts)
          throw new DynamoDbError('ThrottlingException', 'the change log kept refusing writes', 400);
        const answer = await this.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
        requests = (answer.UnprocessedItems?.[table] ?? []) as typeof requests;
        if (requests.length > 0)
          await new Promise((resolve) =>
            setTimeout(resolve, Math.random() * this.otherBaseMs * 2 ** attempt),
          );
      }
    }
  }

  /** Closes the keep-alive sockets. */
  destroy(): void {
    this.transport?.destroy();
    this.transport = undefined;
  }

  private composeAttempt(): void {
    let chain: AttemptFn | undefined;
    if (this.middleware.length > 0) {
      chain = (operation, body) => this.post(operation, body);
      for (let i = this.middleware.length - 1; i >= 0; i -= 1)
        chain = this.middleware[i]?.wrap(chain) ?? chain;
    }
    this.attempt = chain;
  }

  private async post(operation: string, body: string): Promise<unknown> {
    const credentials = await this.options.credentials();
    this.transport ??= http1Transport(this.url);
    const answer = await postAwsJson(this.transport, {
      label: 'DynamoDB',
      url: this.url,
      region: this.options.region,
      service: 'dynamodb',
      target: `DynamoDB_20120810.${operation}`,
      body,
      credentials,
      timeoutMs: this.timeoutMs,
    });
    if (answer.status === 200) return answer.parsed;
    const { name, message } = errorOf(answer);
    const reasons = Array.isArray(answer.parsed.CancellationReasons)
      ? (fromWire(answer.parsed.CancellationReasons) as DynamoDbError['CancellationReasons'])
      : undefined;
    throw new DynamoDbError(name, message, answer.status, reasons);
  }
}

/**
 * A TransactWriteItems input with an idempotency token, as the AWS SDK fills one in: when a response is
 * lost (timeout, reset, 5xx after the commit) the retry carries the same token, and DynamoDB answers it
 * with the first attempt's success instead of applying it again or cancelling it against its own changes.
 */
function withRequestToken<Input>(input: Input): Input {
  const tokened = input as Input & { ClientRequestToken?: string };
  return tokened.ClientRequestToken === undefined ? { ...tokened, ClientRequestToken: randomUUID() } : input;
}

function retryable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name !== undefined && RETRYABLE_NAMES.has(e.name)) return true;
  if (e.code !== undefined && RETRYABLE_NETWORK_CODES.has(e.code)) return true;
  return (e.$metadata?.httpStatusCode ?? 0) >= 500;
}
