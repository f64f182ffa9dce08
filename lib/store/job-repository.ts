import { transactAsCaller, type WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { UpdateCommand } from './dynamodb';
import { batchWriteItems, countItems, getRecord, queryAll, queryPage, withoutKeys } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';

/**
 * Jobs (docs/jobs.md): asynchronous work a request asks for (a product import, a build of child products),
 * run later by the job worker, a store's jobs one at a time in creation order. In the products table:
 *
 * - `STORE#<store>` / `JOB#<id>`: a job: its `type`, `status`, times, the request that created it, its
 *   public `meta`, the `input` its runner reads (never rendered), `attempts` (runs started) and
 *   `error_count`. Ids are UUIDv7, so the sort key orders a store's jobs by creation.
 * - `JOB#<store>#<id>` / `ERROR#<10-digit position>`: one error of the job, its `message` (and the line
 *   and column it names, when it names one), in its own partition so a job's errors never weigh on the
 *   store's.
 *
 * No other item of the store's partition has a sort key starting `JOB#` (see lib/store/product-repository.ts,
 * lib/store/file-repository.ts), so the list's `sk` under the prefix `JOB#` (key-prefix.ts) reads jobs only.
 */

export type JobStatus = 'pending' | 'started' | 'success' | 'failed' | 'cancelled';
/** The platform's job types (`attributes.type`). */
export type JobType =
  | 'child-products'
  | 'product-import'
  | 'product-export'
  | 'hierarchy-duplicate'
  | 'price-import';

export interface JobRecord {
  id: string;
  type: JobType;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** The request id of the request that created it (`meta.x_request_id`). */
  request_id: string;
  /** More public `meta` (e.g. `file_locations`). */
  meta: Record<string, unknown>;
  /** What its runner reads (an uploaded file's key...): never rendered. */
  input: Record<string, unknown>;
  /** Runs started: 1 after the first, more when a run that crashed was retried. */
  attempts: number;
  /** How many errors the job recorded (its errors list may hold fewer: MAX_RECORDED_ERRORS). */
  error_count: number;
}

/** One error of a job, as stored. */
export interface JobErrorRecord {
  id: string;
  message: string;
  line?: number;
  column?: string;
}

const JOB_PREFIX = 'JOB#';
const ERROR_PREFIX = 'ERROR#';

export const jobKeys = {
  job: (storeId: string, jobId: string) => ({ pk: `STORE#${storeId}`, sk: `${JOB_PREFIX}${jobId}` }),
  error: (storeId: string, jobId: string, position: number) => ({
    pk: `${JOB_PREFIX}${storeId}#${jobId}`,
    sk: `${ERROR_PREFIX}${String(position).padStart(10, '0')}`,
  }),
};

const jobsQuery = (storeId: string) => ({
  TableName: tableName('products'),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ...skPrefix(JOB_PREFIX) },
  ConsistentRead: true,
});

const errorsQuery = (storeId: string, jobId: string) => ({
  TableName: tableName('products'),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ExpressionAttributeValues: { ':pk': `${JOB_PREFIX}${storeId}#${jobId}`, ...skPrefix(ERROR_PREFIX) },
  ConsistentRead: true,
});

const toJob = (item: Record<string, unknown>) => withoutKeys(item) as unknown as JobRecord;

export const jobRepository = {
  /** Writes a new job as the caller (its id is new: a second write of the same id is refused). */
  async create(storeId: string, job: JobRecord, caller?: WriteCaller): Promise<void> {
    const codes = await transactAsCaller(
      [
        {
          Put: {
            TableName: tableName('products'),
            Item: { ...jobKeys.job(storeId, job.id), ...job },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      caller,
    );
    if (codes) throw new Error(`job ${job.id} could not be written (${codes.join(', ')})`);
  },

  /**
   * Cancels a pending job as the caller: true when it did, false when the job is not pending (or gone).
   * CallerRevokedError when the caller's token or key is gone.
   */
  async cancel(storeId: string, jobId: string, at: string, caller?: WriteCaller): Promise<boolean> {
    const codes = await transactAsCaller(
      [
        {
          Update: {
            TableName: tableName('products'),
            Key: jobKeys.job(storeId, jobId),
            UpdateExpression: 'SET #status = :cancelled, completed_at = :at, updated_at = :at',
            ConditionExpression: 'attribute_exists(pk) AND #status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':cancelled': 'cancelled', ':pending': 'pending', ':at': at },
          },
        },
      ],
      caller,
    );
    if (codes === undefined) return true;
    if (codes[0] === 'ConditionalCheckFailed') return false;
    throw new Error(`job ${jobId} could not be cancelled (${codes.join(', ')})`);
  },

  async get(storeId: string, jobId: string): Promise<JobRecord | undefined> {
    return getRecord<JobRecord>('products', jobKeys.job(storeId, jobId), true);
  },

  /** One page of the store's jobs, newest first, and how many the store has. */
  async page(
    storeId: string,
    page: { limit: number; offset: number },
  ): Promise<{ jobs: JobRecord[]; total: number }> {
    const query = { ...jobsQuery(storeId), ScanIndexForward: false };
    const [total, items] = await Promise.all([countItems(query), queryPage(query, page)]);
    return { jobs: items.map(toJob), total };
  },

  /**
   * Moves the job from one of `from` to `changes.status` (with the other changes), on condition that its
   * status is still one of `from`: the job as written, or undefined when its status was another (or it is
   * gone). `attempts` is added to, not set.
   */
  async transition(
    storeId: string,
    jobId: string,
    from: readonly JobStatus[],
    changes: Partial<Pick<JobRecord, 'status' | 'started_at' | 'completed_at' | 'error_count'>> & {
      addAttempt?: boolean;
    },
  ): Promise<JobRecord | undefined> {
    const { addAttempt, ...set } = changes;
    const values: Record<string, unknown> = { ':updated': new Date().toISOString() };
    const names: Record<string, string> = { '#status': 'status' };
    const assignments = ['updated_at = :updated'];
    for (const [key, value] of Object.entries({ ...set })) {
      names[`#${key}`] = key;
      values[`:${key}`] = value;
      assignments.push(`#${key} = :${key}`);
    }
    if (addAttempt) {
      values[':one'] = 1;
      assignments.push('attempts = attempts + :one');
    }
    from.forEach((status, index) => {
      values[`:from${index}`] = status;
    });
    try {
      const result = await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('products'),
          Key: jobKeys.job(storeId, jobId),
          UpdateExpression: `SET ${assignments.join(', ')}`,
          ConditionExpression: `attribute_exists(pk) AND #status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return result.Attributes ? toJob(result.Attributes) : undefined;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
      throw error;
    }
  },

  /** Writes errors at positions `from`, `from + 1`... (a position written again is replaced). */
  async putErrors(storeId: string, jobId: string, errors: JobErrorRecord[], from = 0): Promise<void> {
    await batchWriteItems(
      'products',
      errors.map((error, index) => ({
        PutRequest: { Item: { ...jobKeys.error(storeId, jobId, from + index), ...error } },
      })),
    );
  },

  /** Deletes every error of the job (a retried run records its own). */
  async clearErrors(storeId: string, jobId: string): Promise<void> {
    const items = await queryAll({ ...errorsQuery(storeId, jobId), ProjectionExpression: 'pk, sk' });
    await batchWriteItems(
      'products',
      items.map((item) => ({ DeleteRequest: { Key: { pk: item.pk as string, sk: item.sk as string } } })),
    );
  },

  /** One page of the job's errors in the order recorded, and how many are recorded. */
  async errorsPage(
    storeId: string,
    jobId: string,
    page: { limit: number; offset: number },
  ): Promise<{ errors: JobErrorRecord[]; total: number }> {
    const query = errorsQuery(storeId, jobId);
    const [total, items] = await Promise.all([countItems(query), queryPage(query, page)]);
    return { errors: items.map((item) => withoutKeys(item) as unknown as JobErrorRecord), total };
  },
};
