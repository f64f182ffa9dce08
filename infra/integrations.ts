import { Duration } from 'aws-cdk-lib';
import { type Alarm, type Dashboard, GraphWidget, Metric, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DELIVERY_WORKER, MAX_ATTEMPTS } from '../functions/integrations';
import { METRIC, METRIC_DIMENSIONS, METRICS_NAMESPACE } from '../lib/metrics/names';
import type { TableRole } from '../lib/store/schema';
import { alarmsOnTopic, deadLetteredQueue } from './queues';
import { ServiceFunction } from './service-function';

/** The environment variable the functions that emit events read the deliveries queue's URL from (lib/config). */
export const INTEGRATIONS_QUEUE_ENV = 'INTEGRATIONS_QUEUE_URL';

/**
 * How long a message the delivery function took stays invisible when the function itself fails (a crash, a
 * timeout): longer than its timeout, as SQS requires of a Lambda consumer. A failed attempt sets its own
 * visibility to the retry's delay instead (lib/integrations/worker.ts).
 */
export const DELIVERIES_VISIBILITY_TIMEOUT = Duration.seconds(DELIVERY_WORKER.timeoutSeconds + 30);

export interface IntegrationsProps {
  tables: Record<TableRole, ITable>;
  /** The alarm topic (infra/monitoring.ts) the deliveries' alarms notify. */
  alarmTopic: ITopic;
}

/**
 * Webhook deliveries in AWS (docs/webhooks.md#delivery): a standard SQS queue of delivery messages, its
 * dead-letter queue (after MAX_ATTEMPTS receives), the delivery function (functions/integration-deliver)
 * reading it in batches with partial batch responses, and alarms on the dead letters, the function's errors
 * and events that could not be queued. `grantEmit` lets a function send to the queue and tells it the URL.
 * No function of the stack is told INTEGRATIONS_ALLOW_LOOPBACK: deployed webhooks reach public addresses only.
 */
export class Integrations extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: IntegrationsProps) {
    super(scope, id);
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = deadLetteredQueue(this, 'Deliveries', {
      fifo: false,
      visibilityTimeout: DELIVERIES_VISIBILITY_TIMEOUT,
      maxReceiveCount: MAX_ATTEMPTS,
    }));
    this.worker = new ServiceFunction(this, 'IntegrationDeliver', {
      name: DELIVERY_WORKER.name,
      description: DELIVERY_WORKER.description,
      memoryMb: DELIVERY_WORKER.memoryMb,
      timeoutSeconds: DELIVERY_WORKER.timeoutSeconds,
      tableAccess: DELIVERY_WORKER.tables,
      tables: props.tables,
    });
    // Consuming grants ChangeMessageVisibility too: a failed attempt sets its message's delay with it.
    this.worker.addEventSource(
      new SqsEventSource(this.queue, { batchSize: DELIVERY_WORKER.batchSize, reportBatchItemFailures: true }),
    );
    this.worker.addEnvironment(INTEGRATIONS_QUEUE_ENV, this.queue.queueUrl);

    const alarm = alarmsOnTopic(this, props.alarmTopic, this.alarms);
    const period = Duration.minutes(5);
    alarm(
      'DeliveriesDeadLetters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      `webhooks: a delivery failed ${MAX_ATTEMPTS} times and waits in the dead-letter queue`,
    );
    alarm(
      'IntegrationDeliverErrors',
      this.worker.metricErrors({ period, statistic: 'Sum' }),
      'webhooks: the delivery function failed (its batch is handed again)',
    );
    alarm(
      'IntegrationEventsNotQueued',
      this.metric(METRIC.integrationEventsNotQueued, period),
      'webhooks: an event could not be queued for delivery (the release or rule was written)',
    );
  }

  private metric(metricName: string, period: Duration, label?: string): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { ...METRIC_DIMENSIONS },
      period,
      statistic: 'Sum',
      ...(label ? { label } : {}),
    });
  }

  /** Lets `fn` send messages to the deliveries queue (sqs:SendMessage only) and tells it the queue's URL. */
  grantEmit(fn: LambdaFunction): void {
    Grant.addToPrincipal({ grantee: fn, actions: ['sqs:SendMessage'], resourceArns: [this.queue.queueArn] });
    fn.addEnvironment(INTEGRATIONS_QUEUE_ENV, this.queue.queueUrl);
  }

  /** The dashboard's webhooks row: attempts delivered and failed, and the dead letters waiting. */
  addDashboardRow(dashboard: Dashboard): void {
    const minute = Duration.minutes(1);
    dashboard.addWidgets(
      new TextWidget({
        markdown:
          '# Webhooks\nDelivery attempts of integrations (each retried with backoff), and the dead letters.',
        width: 24,
        height: 2,
      }),
      new GraphWidget({
        title: 'Webhook deliveries',
        left: [this.metric(METRIC.integrationDeliveries, minute, 'delivered')],
        width: 8,
      }),
      new GraphWidget({
        title: 'Webhook failed attempts',
        left: [
          this.metric(METRIC.integrationDeliveryFailures, minute, 'failed attempts'),
          this.metric(METRIC.integrationEventsNotQueued, minute, 'events not queued'),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Webhook dead letters',
        left: [
          this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: minute,
            statistic: 'Maximum',
            label: 'dead letters',
          }),
        ],
        width: 8,
      }),
    );
  }
}
