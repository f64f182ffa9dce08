import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { Alarm, IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { notifyingAlarm } from './monitoring';

/** Dead letters are kept the longest SQS keeps messages, to be looked at and sent again. */
const DEAD_LETTER_RETENTION = Duration.days(14);

/**
 * A queue of the stack's asynchronous work (jobs, webhook deliveries) and its dead-letter queue: both
 * encrypted, TLS only, removed with the stack; a message received `maxReceiveCount` times moves to the
 * dead letters. `<name>Queue` and `<name>DeadLetterQueue` are their ids in `scope`.
 */
export function deadLetteredQueue(
  scope: Construct,
  name: string,
  props: { fifo: boolean; visibilityTimeout: Duration; maxReceiveCount: number },
): { queue: Queue; deadLetterQueue: Queue } {
  const fifo = props.fifo ? { fifo: true, contentBasedDeduplication: false } : {};
  const deadLetterQueue = new Queue(scope, `${name}DeadLetterQueue`, {
    ...fifo,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DEAD_LETTER_RETENTION,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const queue = new Queue(scope, `${name}Queue`, {
    ...fifo,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: props.visibilityTimeout,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  return { queue, deadLetterQueue };
}

/** Adds to `alarms` an alarm of `scope` at 1 or more of `metric`, notifying `topic`. */
export function alarmsOnTopic(scope: Construct, topic: ITopic, alarms: Alarm[]) {
  const action = new SnsAction(topic);
  return (alarmId: string, metric: IMetric, description: string) => {
    alarms.push(notifyingAlarm(scope, alarmId, { metric, threshold: 1, description, action }));
  };
}
