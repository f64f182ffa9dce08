import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods } from 'aws-cdk-lib/aws-s3';
import {
  Choice,
  Condition,
  DefinitionBody,
  DistributedMap,
  Fail,
  type IChainable,
  JitterType,
  JsonPath,
  LogLevel,
  type RetryProps,
  S3JsonLItemReader,
  StateMachine,
  StateMachineType,
  Succeed,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { FunctionDefinition } from '../functions/routes';
import {
  AWS_DERIVE_CONCURRENCY,
  AWS_WRITE_CONCURRENCY,
  type ReleaseIds,
  WORKFLOW_STEPS,
  type WorkflowStepName,
} from '../functions/workflow';
import { CORS_MAX_AGE_SECONDS } from '../lib/http/cors';
import { DELTA_RETENTION_DAYS } from '../lib/pcm/delta-link';
import { DELTAS_ROOT } from '../lib/store/delta-objects';
import type { TableRole } from '../lib/store/schema';
import { pascal } from './monitoring';
import { ServiceFunction } from './service-function';

/** The environment variables the functions read the workflow's resources from (lib/config). */
export const PUBLISHING_ENV = {
  bucket: 'DOCUMENTS_BUCKET',
  stateMachine: 'RELEASE_STATE_MACHINE_ARN',
} as const;

export type BucketAccess = NonNullable<FunctionDefinition['bucket']>;

/**
 * The S3 actions each bucket access allows, on the objects under `prefix` (every object when absent): exactly
 * the calls lib/store/object-store.ts makes, not the wildcards of `grantRead`/`grantReadWrite`
 * (s3:GetObject*, s3:List*, s3:PutObject*, s3:DeleteObject*...). HeadObject and ranged GETs need
 * s3:GetObject; a missing key answers 404 rather than 403 only with s3:ListBucket, which listing a prefix
 * needs too; multipart uploads need s3:PutObject and, to give one up, s3:AbortMultipartUpload; a pre-signed
 * PUT URL carries its signer's s3:PutObject, a pre-signed GET URL its s3:GetObject. The functions that link
 * release delta files sign GET URLs of them and read nothing else (`link-deltas`); those that delete releases
 * delete their delta files and touch nothing else (`delete-deltas`).
 */
export const BUCKET_ACTIONS: Record<
  BucketAccess,
  { objects: readonly string[]; bucket: readonly string[]; prefix?: string }
> = {
  read: { objects: ['s3:GetObject'], bucket: ['s3:ListBucket'] },
  readwrite: {
    objects: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
    bucket: ['s3:ListBucket'],
  },
  'link-deltas': { objects: ['s3:GetObject'], bucket: [], prefix: DELTAS_ROOT },
  'delete-deltas': { objects: ['s3:DeleteObject'], bucket: [], prefix: DELTAS_ROOT },
};

/** Key prefixes of the documents bucket that expire (the release documents under `documents/` are kept). */
export const DOCUMENTS_LIFECYCLE = {
  /** Pre-signed uploads not yet taken in as a catalog's document. */
  uploadsPrefix: 'uploads/',
  uploadsDays: 1,
  /** The workflow's chunk files and manifests (lib/catalog/pipeline/steps.ts `workKeys`); Switch deletes its own. */
  workPrefix: 'work/',
  workDays: 7,
  /**
   * A release's objects (lib/catalog/pipeline/share.ts `releaseObjects`: its item manifest): a publish more
   * than 90 days after the release before it is a full publish, which needs no manifest, so none is kept
   * longer (the switch and `catalog cleanup` delete those of deleted releases sooner).
   */
  releasesPrefix: 'releases/',
  releasesDays: 90,
  /**
   * Releases' delta files: a release links its own for DELTA_RETENTION_DAYS after it was published, as the
   * platform keeps them; a day more here, so that no link is handed out to a file already expired (S3
   * expires objects at the first midnight UTC past their age, and a file is written before its release is
   * published).
   */
  deltasPrefix: DELTAS_ROOT,
  deltasDays: DELTA_RETENTION_DAYS + 1,
  /** Parts of multipart uploads never completed are billed until aborted. */
  incompleteUploadDays: 1,
} as const;

/** A whole execution; the steps' own Lambda timeouts bound each state (15 minutes at most). */
export const RELEASE_EXECUTION_TIMEOUT = Duration.hours(2);

/** Errors of the Lambda service itself (not of the handler): always worth a retry with backoff. */
export const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
] as const;

const SERVICE_RETRY: RetryProps = {
  errors: [...LAMBDA_SERVICE_ERRORS],
  interval: Duration.seconds(2),
  maxAttempts: 6,
  backoffRate: 2,
  maxDelay: Duration.seconds(60),
  jitterStrategy: JitterType.FULL,
};

/**
 * A chunk write that failed (DynamoDB throttling beyond the SDK's own retries, a timeout) is tried twice more:
 * its writes are idempotent puts; so is a range's derivation (its chunk files and partial are written again
 * whole under the same keys). 3 attempts in all, as the local harness (`WRITE_ATTEMPTS` in
 * lib/catalog/pipeline/run-local.ts). Other steps are not retried on their own errors: Validate, Plan and
 * Merge fail the same way twice (an invalid document), and a failed Switch is settled by Abandon, which
 * tells a switch that happened from one that did not.
 */
export const WRITE_RETRY: RetryProps = {
  errors: ['States.TaskFailed'],
  interval: Duration.seconds(5),
  maxAttempts: 2,
  backoffRate: 3,
  jitterStrategy: JitterType.FULL,
};

/**
 * Abandon deletes what a release wrote, which on a large release meets the same throttling as the writes: it
 * is idempotent (it fences the release first), so it is tried again rather than leaving the release stuck.
 */
export const ABANDON_RETRY: RetryProps = {
  errors: ['States.TaskFailed'],
  interval: Duration.seconds(10),
  maxAttempts: 3,
  backoffRate: 3,
  jitterStrategy: JitterType.FULL,
};

export interface PublishingProps {
  tables: Record<TableRole, ITable>;
  /** The API's allowed origins (`*`, `https://*` or listed origins): browsers PUT documents to pre-signed URLs. */
  corsOrigins: readonly string[];
  /** Writer invocations at once (default AWS_WRITE_CONCURRENCY). */
  writeConcurrency?: number;
}

/**
 * The publishing workflow (functions/workflow.ts, docs/publishing.md): the documents bucket, one Lambda per
 * step with the step's memory, timeout and least-privilege grants, and the Standard state machine
 *
 *   Validate -> DocumentValid? -(no)-> ReleaseInvalid (Fail)
 *            -> Derive -> Write (Distributed Map over the manifest's chunks: WriteChunk) -> Switch -> ReleasePublished
 *   an error in any of them -> Abandon -> AbandonOutcome -> ReleaseFailed (Fail), or ReleasePublished when
 *   the switch had happened
 *
 * `grantStart` and `grantDocuments` give an API function what it needs to start executions or use the bucket.
 */
export class Publishing extends Construct {
  readonly bucket: Bucket;
  readonly functions: Record<WorkflowStepName, ServiceFunction>;
  readonly stateMachine: StateMachine;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: PublishingProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'DocumentsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      autoDeleteObjects: false,
      // Merchants' release documents: a mistaken destroy must not take them.
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'expire-uploads',
          prefix: DOCUMENTS_LIFECYCLE.uploadsPrefix,
          expiration: Duration.days(DOCUMENTS_LIFECYCLE.uploadsDays),
        },
        {
          id: 'expire-workflow-files',
          prefix: DOCUMENTS_LIFECYCLE.workPrefix,
          expiration: Duration.days(DOCUMENTS_LIFECYCLE.workDays),
        },
        {
          id: 'expire-release-objects',
          prefix: DOCUMENTS_LIFECYCLE.releasesPrefix,
          expiration: Duration.days(DOCUMENTS_LIFECYCLE.releasesDays),
        },
        {
          id: 'expire-delta-files',
          prefix: DOCUMENTS_LIFECYCLE.deltasPrefix,
          expiration: Duration.days(DOCUMENTS_LIFECYCLE.deltasDays),
        },
        {
          id: 'abort-incomplete-multipart-uploads',
          abortIncompleteMultipartUploadAfter: Duration.days(DOCUMENTS_LIFECYCLE.incompleteUploadDays),
        },
      ],
      // Browsers PUT documents straight to S3 with the pre-signed URL the API answers; the signature, not
      // the origin, is what authorizes the upload.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT],
          allowedOrigins: [...props.corsOrigins],
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: CORS_MAX_AGE_SECONDS,
        },
      ],
    });

    const functions = {} as Record<WorkflowStepName, ServiceFunction>;
    for (const [name, step] of Object.entries(WORKFLOW_STEPS) as [
      WorkflowStepName,
      (typeof WORKFLOW_STEPS)[WorkflowStepName],
    ][]) {
      const fn = new ServiceFunction(this, pascal(name), {
        name,
        description: step.description,
        memoryMb: step.memoryMb,
        timeoutSeconds: step.timeoutSeconds,
        tableAccess: step.tables,
        tables: props.tables,
      });
      this.grantDocuments(fn, step.bucket);
      functions[name] = fn;
    }
    this.functions = functions;

    this.logGroup = new LogGroup(this, 'ReleaseStateMachineLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new StateMachine(this, 'ReleaseStateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(
        this.definition(props.writeConcurrency ?? AWS_WRITE_CONCURRENCY, AWS_DERIVE_CONCURRENCY),
      ),
      timeout: RELEASE_EXECUTION_TIMEOUT,
      tracingEnabled: true,
      // Every state transition, without the states' input and output: they carry ids and object keys only
      // (no secrets, no document content), but errors' causes and inputs belong in the steps' own logs.
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: false },
      comment:
        'Publishes a catalog release: validate, plan, derive the ranges, merge, write the chunks, switch (docs/publishing.md)',
    });
  }

  /** Lets `fn` start the workflow, and tells it the state machine (RELEASE_STATE_MACHINE_ARN). */
  grantStart(fn: LambdaFunction): void {
    this.stateMachine.grantStartExecution(fn);
    fn.addEnvironment(PUBLISHING_ENV.stateMachine, this.stateMachine.stateMachineArn);
  }

  /** Lets `fn` use the documents bucket with BUCKET_ACTIONS[access], and tells it the bucket (DOCUMENTS_BUCKET). */
  grantDocuments(fn: LambdaFunction, access: BucketAccess): void {
    this.grantBucket(fn, access);
    fn.addEnvironment(PUBLISHING_ENV.bucket, this.bucket.bucketName);
  }

  private grantBucket(grantee: IGrantable, access: BucketAccess): void {
    const actions = BUCKET_ACTIONS[access];
    Grant.addToPrincipal({
      grantee,
      actions: [...actions.objects],
      resourceArns: [this.bucket.arnForObjects(`${actions.prefix ?? ''}*`)],
    });
    if (actions.bucket.length > 0) {
      Grant.addToPrincipal({ grantee, actions: [...actions.bucket], resourceArns: [this.bucket.bucketArn] });
    }
  }

  private definition(writeConcurrency: number, deriveConcurrency: number) {
    const step = (name: WorkflowStepName, stateName: string, resultPath?: string) => {
      const task = new LambdaInvoke(this, stateName, {
        stateName,
        lambdaFunction: this.functions[name],
        // The handler's answer is the state's output: plain JSON, no Lambda response envelope.
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
        ...(resultPath === undefined ? {} : { resultPath }),
      });
      task.addRetry(SERVICE_RETRY);
      return task;
    };

    const failed = new Fail(this, 'ReleaseFailed', {
      error: 'ReleaseFailed',
      cause: 'A step failed: the release was abandoned and recorded FAILED (the steps log why)',
    });
    const published = new Succeed(this, 'ReleasePublished');
    const abandon = step('release-abandon', 'Abandon', '$.abandon').addRetry(ABANDON_RETRY);
    abandon.next(
      new Choice(this, 'AbandonOutcome')
        // The switch had happened before its step failed: the release is the catalog's current one.
        .when(Condition.stringEquals('$.abandon.state', 'PUBLISHED'), published)
        .otherwise(failed),
    );
    const onError = { resultPath: '$.error' };

    const validate = step('release-validate', 'Validate').addCatch(abandon, onError);
    const plan = step('release-plan', 'Plan').addCatch(abandon, onError);
    /**
     * A Distributed Map of Standard child executions over a JSON Lines list in the bucket (at `$.<listKey>`,
     * read by Step Functions itself), giving each item's task the execution's ids and the line as `field`.
     * No ToleratedFailure*: the Map Run fails at its first item that fails after its retries, the AWS
     * default: a release is all its items or none (CDK would not even render a tolerance of 0). Its own
     * output is discarded: the state's output stays the step's before it.
     */
    const releaseMap = (
      stateName: string,
      options: { listKey: string; field: 'range' | 'chunk'; label: string; concurrency: number },
      task: IChainable,
    ) =>
      new DistributedMap(this, stateName, {
        stateName,
        itemReader: new S3JsonLItemReader({ bucket: this.bucket, key: JsonPath.stringAt(options.listKey) }),
        itemSelector: {
          store_id: JsonPath.stringAt('$.store_id'),
          catalog_id: JsonPath.stringAt('$.catalog_id'),
          release_id: JsonPath.stringAt('$.release_id'),
          document_key: JsonPath.stringAt('$.document_key'),
          [options.field]: JsonPath.objectAt('$$.Map.Item.Value'),
        } satisfies Record<keyof ReleaseIds, unknown>,
        maxConcurrency: options.concurrency,
        mapExecutionType: StateMachineType.STANDARD,
        label: options.label,
        resultPath: JsonPath.DISCARD,
      })
        .itemProcessor(task)
        .addCatch(abandon, onError);

    // One item per line of the plan's ranges list ({n, base?}: a range of products): DeriveInput.
    const derive = releaseMap(
      'Derive',
      { listKey: '$.ranges_key', field: 'range', label: 'ReleaseDerive', concurrency: deriveConcurrency },
      step('release-derive', 'DeriveRange').addRetry(WRITE_RETRY),
    );
    const merge = step('release-merge', 'Merge').addCatch(abandon, onError);
    // One item per manifest line ({key, items}: a chunk file): WriteInput.
    const write = releaseMap(
      'Write',
      { listKey: '$.manifest_key', field: 'chunk', label: 'ReleaseWrite', concurrency: writeConcurrency },
      step('release-write', 'WriteChunk').addRetry(WRITE_RETRY),
    );
    const switchRelease = step('release-switch', 'Switch').addCatch(abandon, onError);

    const exportAuthored = step('release-export', 'Export').addCatch(abandon, onError);
    const invalid = new Fail(this, 'ReleaseInvalid', {
      error: 'ReleaseInvalid',
      cause:
        'The release document is not valid: Validate (or Export) recorded the release FAILED with its issues',
    });
    exportAuthored.next(
      new Choice(this, 'Exported')
        .when(Condition.booleanEquals('$.valid', false), invalid)
        .otherwise(validate),
    );
    const validated = validate.next(
      new Choice(this, 'DocumentValid')
        .when(Condition.booleanEquals('$.valid', false), invalid)
        .otherwise(plan.next(derive).next(merge).next(write).next(switchRelease).next(published)),
    );
    // An authored catalog's release is written out as a document first; a document's is validated at once.
    return new Choice(this, 'Authored')
      .when(Condition.booleanEquals('$.export', true), exportAuthored)
      .otherwise(validated);
  }
}
