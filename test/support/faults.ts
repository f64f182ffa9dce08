import { seededRandom } from '../../lib/catalog/generator';
import { requestTimeoutError } from '../../lib/store/aws-json';
import { type AttemptFn, type DynamoDbClient, DynamoDbError } from '../../lib/store/dynamodb';

/**
 * Fault injection for tests: a `DynamoDbClient` middleware that fails single attempts the way DynamoDB
 * and the network fail them, so the client's retries, the error mapping (503 + Retry-After) and the
 * all-or-nothing writes can be checked against a real DynamoDB Local.
 *
 * - `throttle`: `ProvisionedThroughputExceededException` or `ThrottlingException`, status 400 (retried).
 * - `timeout`: the client's own request timeout (`ETIMEDOUT`, retried).
 * - `internal`: `InternalServerError`, status 500 (retried).
 * - `cancelled-throttle`: a `TransactWriteItems` cancelled because an item's table was throttled
 *   (`TransactionCanceledException`, one reason `ThrottlingError`, the others `None`; not retried by the
 *   client, as with the SDK). Other operations get a `ThrottlingException` instead.
 */
export type FaultKind = 'throttle' | 'timeout' | 'internal' | 'cancelled-throttle';

/** The kinds every DynamoDB operation can fail with, each retried by the client. */
export const RETRIED_FAULT_KINDS: readonly FaultKind[] = ['throttle', 'timeout', 'internal'];

export interface FaultOptions {
  /** Probability (0 to 1) that an attempt of a selected operation fails. */
  rate: number;
  /** Kinds to pick from, uniformly (default: throttle, timeout, internal). */
  kinds?: readonly FaultKind[];
  /** Only attempts of these operations (`TransactWriteItems`, `Query`, ...) can fail; all when absent. */
  operations?: readonly string[];
  /** Requests naming one of these tables pass untouched and uncounted (e.g. the rate limiter's table). */
  exceptTables?: readonly string[];
  /** Seed of the generator that decides which attempts fail and how: same seed, same sequence. */
  seed?: number;
  /**
   * `before-send` (default): the attempt never reaches DynamoDB. `after-send`: DynamoDB handles the
   * request (a write is applied) and then the response is lost; an attempt DynamoDB itself refused keeps
   * its real error.
   */
  when?: 'before-send' | 'after-send';
  /** No more faults after this many (e.g. 1: only the first selected attempt fails). */
  limit?: number;
  /**
   * At most this many faults in a row for one request (same operation and body, i.e. one `send` and its
   * retries), so a moderate rate exercises the retries without exhausting them.
   */
  maxConsecutive?: number;
}

export interface FaultCounts {
  total: number;
  byKind: Record<FaultKind, number>;
  byOperation: Record<string, number>;
}

export interface FaultInjector {
  /** Faults thrown so far. */
  readonly injected: FaultCounts;
  /** Attempts of selected operations seen so far (failed or not), by operation. */
  readonly attempts: Record<string, number>;
  /** Removes the middleware: later attempts go through untouched. Safe to call twice. */
  remove(): void;
}

/** Table names a request body names (real throttling messages carry the table, so ours do too). */
function tablesOf(body: string): string[] {
  const names = new Set<string>();
  for (const match of body.matchAll(/"TableName":"([^"]+)"/g)) if (match[1]) names.add(match[1]);
  for (const match of body.matchAll(/"RequestItems":\{"([^"]+)"/g)) if (match[1]) names.add(match[1]);
  return [...names];
}

/** The `TransactionCanceledException` DynamoDB answers with these per-item reasons. */
function cancelledTransaction(reasons: { Code: string; Message?: string }[]): DynamoDbError {
  return new DynamoDbError(
    'TransactionCanceledException',
    `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons
      .map((r) => r.Code)
      .join(', ')}]`,
    400,
    reasons,
  );
}

/** The error DynamoDB (or the network) would fail this attempt with. */
export function faultError(kind: FaultKind, operation: string, body: string, random = Math.random): Error {
  const table = tablesOf(body)[0] ?? 'unknown';
  const arn = `arn:aws:dynamodb:us-east-1:123456789012:table/${table}`;
  if (kind === 'timeout') return requestTimeoutError();
  if (kind === 'internal') return new DynamoDbError('InternalServerError', 'Internal server error', 500);
  if (kind === 'cancelled-throttle' && operation === 'TransactWriteItems') {
    // One throttled item cancels the whole transaction; the other items report `None`.
    const items = Math.max(1, body.split('"TableName"').length - 1);
    const reasons = Array.from({ length: items }, (_, index) =>
      index === 0
        ? { Code: 'ThrottlingError', Message: `Throughput exceeds the current capacity for table ${arn}.` }
        : { Code: 'None' },
    );
    return cancelledTransaction(reasons);
  }
  if (kind === 'throttle' && random() < 0.5) {
    return new DynamoDbError(
      'ProvisionedThroughputExceededException',
      `The level of configured provisioned throughput for the table ${arn} was exceeded. Consider increasing your provisioning level with the UpdateTable API.`,
      400,
    );
  }
  return new DynamoDbError(
    'ThrottlingException',
    `Throughput exceeds the current capacity of your table or index (${arn}). DynamoDB is automatically scaling your table or index so please try again shortly.`,
    400,
  );
}

/** Installs a fault-injecting middleware on `client`; see FaultOptions. */
export function injectFaults(client: DynamoDbClient, options: FaultOptions): FaultInjector {
  if (!(options.rate >= 0 && options.rate <= 1))
    throw new Error(`rate must be within 0..1, got ${options.rate}`);
  const kinds = options.kinds ?? RETRIED_FAULT_KINDS;
  if (kinds.length === 0) throw new Error('kinds must not be empty');
  const operations = options.operations ? new Set(options.operations) : undefined;
  const random = seededRandom(options.seed ?? 1);
  const afterSend = options.when === 'after-send';
  const injected: FaultCounts = {
    total: 0,
    byKind: { throttle: 0, timeout: 0, internal: 0, 'cancelled-throttle': 0 },
    byOperation: {},
  };
  const attempts: Record<string, number> = {};
  /** Faults in a row per request, keyed by operation and body (a `send` retries with the same body). */
  const streaks = new Map<string, number>();

  /** The fault for this attempt, or undefined to let it through. */
  const decide = (operation: string, body: string): Error | undefined => {
    if (options.limit !== undefined && injected.total >= options.limit) return undefined;
    const request = `${operation}\n${body}`;
    const streak = streaks.get(request) ?? 0;
    // Draw every time, so one request's outcome does not shift the sequence for the others.
    const fails = random() < options.rate;
    const kind = kinds[Math.floor(random() * kinds.length)] as FaultKind;
    if (!fails || (options.maxConsecutive !== undefined && streak >= options.maxConsecutive)) {
      streaks.delete(request);
      return undefined;
    }
    streaks.set(request, streak + 1);
    injected.total += 1;
    injected.byKind[kind] += 1;
    injected.byOperation[operation] = (injected.byOperation[operation] ?? 0) + 1;
    return faultError(kind, operation, body, random);
  };

  const remove = client.use(
    (next: AttemptFn): AttemptFn =>
      async (operation, body) => {
        if (operations && !operations.has(operation)) return next(operation, body);
        if (options.exceptTables?.some((table) => body.includes(`"${table}"`))) return next(operation, body);
        attempts[operation] = (attempts[operation] ?? 0) + 1;
        if (!afterSend) {
          const fault = decide(operation, body);
          if (fault) throw fault;
          return next(operation, body);
        }
        const result = await next(operation, body);
        const fault = decide(operation, body);
        if (fault) throw fault;
        return result;
      },
  );
  return { injected, attempts, remove };
}

/**
 * DynamoDB's documented transaction conflicts, which DynamoDB Local does not show (it runs one request
 * at a time): while a `TransactWriteItems` is in flight it holds its items, and
 * - another `TransactWriteItems` touching one of them is cancelled (`TransactionCanceledException`,
 *   reason `TransactionConflict` on each held item, `None` on the others), nothing applied;
 * - a `PutItem`, `UpdateItem` or `DeleteItem` of one of them fails with `TransactionConflictException`
 *   (status 400), nothing applied.
 * Both are decided before the request reaches DynamoDB Local, so a refused request changes nothing, as
 * on AWS. A retry of a transaction (the same ClientRequestToken) is never refused: its first attempt may
 * have been applied with its answer lost, and DynamoDB answers such a retry with that success. A transaction holds its items for `holdMs` before it is sent on (a real transaction's
 * two-phase commit spans several milliseconds), which makes races of concurrent requests in one process
 * reproducible, and keeps the conflict window the same whatever the machine's load.
 */
export interface ConflictOptions {
  /** How long (ms) each transaction holds its items before it is applied; default 5. */
  holdMs?: number;
}

export interface ConflictCounts {
  /** Transactions cancelled with `TransactionConflict`. */
  transactions: number;
  /** Single-item writes refused with `TransactionConflictException`. */
  singleWrites: number;
}

export interface ConflictEmulator {
  readonly conflicts: ConflictCounts;
  /** Removes the middleware. Safe to call twice. */
  remove(): void;
}

type WireKey = Record<string, Record<string, unknown>>;

/** `table|pk|sk` of an item in DynamoDB JSON (only the key attributes count). */
function itemId(table: unknown, item: WireKey | undefined): string {
  return `${String(table)}|${JSON.stringify(item?.pk ?? null)}|${JSON.stringify(item?.sk ?? null)}`;
}

/** The item each action of a TransactWriteItems body touches, in order. */
export function transactionItems(body: string): string[] {
  const parsed = JSON.parse(body) as { TransactItems?: Record<string, Record<string, unknown>>[] };
  return (parsed.TransactItems ?? []).map((action) => {
    const [, spec] = Object.entries(action)[0] ?? [];
    return itemId(spec?.TableName, (spec?.Key ?? spec?.Item) as WireKey | undefined);
  });
}

const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const ONGOING = 'Transaction is ongoing for the item';

/** Installs the conflict emulation on `client`; see ConflictOptions. */
export function emulateConflicts(client: DynamoDbClient, options: ConflictOptions = {}): ConflictEmulator {
  const holdMs = options.holdMs ?? 5;
  /** Items held by transactions in flight, with how many hold each (a retry may overlap its original). */
  const held = new Map<string, number>();
  const conflicts: ConflictCounts = { transactions: 0, singleWrites: 0 };
  /** The ClientRequestTokens of the transactions seen: a later attempt with one is a retry. */
  const tokens = new Set<string>();

  const remove = client.use(
    (next: AttemptFn): AttemptFn =>
      async (operation, body) => {
        if (SINGLE_WRITES.has(operation)) {
          const parsed = JSON.parse(body) as { TableName?: string; Key?: WireKey; Item?: WireKey };
          if (held.has(itemId(parsed.TableName, parsed.Key ?? parsed.Item))) {
            conflicts.singleWrites += 1;
            throw new DynamoDbError('TransactionConflictException', ONGOING, 400);
          }
          return next(operation, body);
        }
        if (operation !== 'TransactWriteItems') return next(operation, body);
        // A retry carries its first attempt's token. If that attempt was applied (its answer lost),
        // DynamoDB answers the retry with the first attempt's success whatever holds the items now: the
        // retry is sent on untouched, and DynamoDB Local (which honours the token) answers it alike.
        const token = (JSON.parse(body) as { ClientRequestToken?: string }).ClientRequestToken;
        if (token !== undefined) {
          if (tokens.has(token)) return next(operation, body);
          tokens.add(token);
        }
        const items = transactionItems(body);
        if (items.some((id) => held.has(id))) {
          conflicts.transactions += 1;
          throw cancelledTransaction(
            items.map((id) =>
              held.has(id) ? { Code: 'TransactionConflict', Message: ONGOING } : { Code: 'None' },
            ),
          );
        }
        // Held for `holdMs` of wall time, as a real transaction's commit holds them, not for as long as
        // DynamoDB Local takes: on a loaded machine that would stretch every conflict window with it.
        for (const id of items) held.set(id, (held.get(id) ?? 0) + 1);
        try {
          await new Promise((resolve) => setTimeout(resolve, holdMs));
        } finally {
          for (const id of items) {
            const count = (held.get(id) ?? 1) - 1;
            if (count <= 0) held.delete(id);
            else held.set(id, count);
          }
        }
        return next(operation, body);
      },
  );
  return { conflicts, remove };
}
