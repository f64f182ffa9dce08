import { Duration } from 'aws-cdk-lib';
import { type Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { JOB_WORKER, MAX_RECEIVES } from '../functions/jobs';
import { METRIC, METRIC_DIMENSIONS, METRICS_NAMESPACE } from '../lib/metrics/names';
import type { TableRole } from '../lib/store/schema';
import type { Publishing } from './publishing';
import { alarmsOnTopic, deadLetteredQueue } from './queues';
import { ServiceFunction } from './service-function';

/** The environment variable the functions that enqueue jobs read the queue's URL from (lib/config). */
export const JOBS_QUEUE_ENV = 'JOBS_QUEUE_URL';

/**
 * How long a message the worker took stays invisible: longer than the worker's timeout (SQS requires at
 * least that of a Lambda consumer), so a run that is still going is never handed to a second worker; a
 * run that crashed is retried this long after it was taken.
 */
export const JOBS_VISIBILITY_TIMEOUT = Duration.seconds(JOB_WORKER.timeoutSeconds + 300);

export interface JobsProps {
  tables: Record<TableRole, ITable>;
  /** The alarm topic (infra/monitoring.ts) the jobs' alarms notify. */
  alarmTopic: ITopic;
  /** The documents bucket's grants (infra/publishing.ts): the worker reads uploaded import files. */
  documents: Pick<Publishing, 'grantDocuments'>;
}

/**
 * The jobs room in AWS (docs/jobs.md): an SQS FIFO queue (a store's messages share one group, so its jobs
 * run one at a time in creation order; the job id is the deduplication id, content-based deduplication
 * off), its dead-letter queue (after MAX_RECEIVES deliveries), the worker (functions/job-run) reading it one
 * message at a time, and alarms on the dead letters, the worker's errors and jobs that could not be queued.
 * `grantEnqueue` lets an API function send to the queue and tells it the queue's URL.
 */
export class Jobs extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = deadLetteredQueue(this, 'Jobs', {
      fifo: true,
      visibilityTimeout: JOBS_VISIBILITY_TIMEOUT,
      maxReceiveCount: MAX_RECEIVES,
    }));
    this.worker = new ServiceFunction(this, 'JobRun', {
      name: JOB_WORKER.name,
      description: JOB_WORKER.description,
      memoryMb: JOB_WORKER.memoryMb,
      timeoutSeconds: JOB_WORKER.timeoutSeconds,
      tableAccess: JOB_WORKER.tables,
      tables: props.tables,
    });
    props.documents.grantDocuments(this.worker, JOB_WORKER.bucket);
    // One message a call: a FIFO group hands its next message only once this one is deleted.
    this.worker.addEventSource(new SqsEventSource(this.queue, { batchSize: 1 }));

    const alarm = alarmsOnTopic(this, props.alarmTopic, this.alarms);
    const period = Duration.minutes(5);
    alarm(
      'JobsDeadLetters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      `jobs: a message failed ${MAX_RECEIVES} times and waits in the dead-letter queue`,
    );
    alarm(
      'JobRunErrors',
      this.worker.metricErrors({ period, statistic: 'Sum' }),
      'jobs: the worker failed (the message is retried; its store’s later jobs wait)',
    );
    alarm(
      'JobsNotQueued',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: METRIC.jobsNotQueued,
        dimensionsMap: { ...METRIC_DIMENSIONS },
        period,
        statistic: 'Sum',
      }),
      'jobs: a job was written but its message could not be sent (the request answered 503)',
    );
  }

  /** Lets `fn` send messages to the jobs queue (sqs:SendMessage only) and tells it the queue's URL. */
  grantEnqueue(fn: LambdaFunction): void {
    Grant.addToPrincipal({ grantee: fn, actions: ['sqs:SendMessage'], resourceArns: [this.queue.queueArn] });
    fn.addEnvironment(JOBS_QUEUE_ENV, this.queue.queueUrl);
  }
}
