import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { DELIVERY_WORKER, MAX_ATTEMPTS } from '../../functions/integrations';
import { FUNCTIONS } from '../../functions/routes';
import { WORKFLOW_STEPS } from '../../functions/workflow';
import { CommerceStack } from '../../infra/commerce-stack';
import {
  DELIVERIES_VISIBILITY_TIMEOUT,
  INTEGRATIONS_QUEUE_ENV,
  Integrations,
} from '../../infra/integrations';
import { readTemplateQueues } from '../../local/template/jobs';
import type { TemplateApi, TemplateFunction } from '../../local/template/template';
import {
  actionsOf,
  expectTlsOnly,
  queueRoomStack,
  statementsOf as roleStatements,
  SQS_CONSUMER_ACTIONS,
} from '../support/queue-room';
import { flatTemplate, logicalIdOf } from '../support/stack-template';

type Json = Record<string, any>;

/** The webhook deliveries room alone (infra/integrations.ts), bundling skipped: queue, dead letters, function, grants. */
const { stack, tables, sender } = queueRoomStack('IntegrationsTest');
const integrations = new Integrations(stack, 'Integrations', {
  tables,
  alarmTopic: new Topic(stack, 'Alarms'),
});
integrations.grantEmit(sender);
const dashboard = new Dashboard(stack, 'Dashboard');
integrations.addDashboardRow(dashboard);
const template = Template.fromStack(stack);
const resources: Record<string, Json> = template.toJSON().Resources;
const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);
const queueId = idOf(integrations.queue);
const deadLetterId = idOf(integrations.deadLetterQueue);
const workerId = idOf(integrations.worker);

const statementsOf = (functionId: string) => roleStatements(resources, functionId);

describe('the deliveries queue', () => {
  it('is a standard, encrypted queue whose messages go to the dead letters after MAX_ATTEMPTS receives', () => {
    expect(resources[queueId]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: DELIVERIES_VISIBILITY_TIMEOUT.toSeconds(),
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] },
        maxReceiveCount: MAX_ATTEMPTS,
      },
    });
    expect(resources[queueId]?.Properties.FifoQueue).toBeUndefined();
    expect(resources[deadLetterId]?.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 86_400 });
    expect(DELIVERIES_VISIBILITY_TIMEOUT.toSeconds()).toBeGreaterThan(DELIVERY_WORKER.timeoutSeconds);
  });

  it('refuses anything but TLS', () => {
    expectTlsOnly(template, queueId);
  });
});

describe('the delivery function', () => {
  it('reads the queue in batches, reporting the records to retry (partial batch responses)', () => {
    const mappings = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toMatchObject({
      BatchSize: DELIVERY_WORKER.batchSize,
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: workerId },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resources[workerId]?.Properties.Timeout).toBe(DELIVERY_WORKER.timeoutSeconds);
  });

  it('may consume the queue (visibility included), write the products table, and nothing else', () => {
    const sqs = statementsOf(workerId).filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [queueId, 'Arn'] }]);
    expect(actionsOf(sqs[0] ?? {}).sort()).toEqual(SQS_CONSUMER_ACTIONS);
    const dynamo = statementsOf(workerId).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const touched = JSON.stringify(dynamo.map((s) => s.Resource));
    expect(touched).toContain(idOf(tables.products));
    for (const role of ['keys', 'mappings', 'limits'] as const)
      expect(touched).not.toContain(idOf(tables[role]));
    expect(resources[workerId]?.Properties.Environment.Variables[INTEGRATIONS_QUEUE_ENV]).toEqual({
      Ref: queueId,
    });
  });
});

describe('grantEmit', () => {
  it('gives a sender sqs:SendMessage on the deliveries queue only, and its URL', () => {
    const senderId = idOf(sender);
    expect(statementsOf(senderId)).toEqual([
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    ]);
    expect(resources[senderId]?.Properties.Environment.Variables[INTEGRATIONS_QUEUE_ENV]).toEqual({
      Ref: queueId,
    });
  });
});

describe('alarms and dashboard', () => {
  it('alarm on the dead letters, the function’s errors and events not queued, notifying the topic', () => {
    const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms.map((alarm) => alarm.Properties.MetricName).sort()).toEqual([
      'ApproximateNumberOfMessagesVisible',
      'Errors',
      'IntegrationEventsNotQueued',
    ]);
    const deadLetters = alarms.find(
      (alarm) => alarm.Properties.MetricName === 'ApproximateNumberOfMessagesVisible',
    );
    expect(deadLetters?.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterId, 'QueueName'] } }],
    });
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });

  it('add a dashboard row of deliveries, failed attempts and dead letters', () => {
    const body = JSON.stringify(
      Object.values(resources).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')?.Properties.DashboardBody,
    );
    for (const title of ['Webhook deliveries', 'Webhook failed attempts', 'Webhook dead letters'])
      expect(body).toContain(title);
    for (const metric of [
      'IntegrationDeliveries',
      'IntegrationDeliveryFailures',
      'ApproximateNumberOfMessagesVisible',
    ])
      expect(body).toContain(metric);
  });
});

describe('in the whole stack', () => {
  const whole = new CommerceStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Whole');
  const flat = flatTemplate(whole).toJSON().Resources as Record<string, Json>;
  const queue = logicalIdOf(whole.integrations.queue.node.defaultChild as never);
  const environmentOf = (fn: { node: { defaultChild?: unknown } }) =>
    flat[logicalIdOf(fn.node.defaultChild as never)]?.Properties.Environment?.Variables ?? {};

  it('never lets a function reach loopback targets (INTEGRATIONS_ALLOW_LOOPBACK is the local harness’s alone)', () => {
    const functions = Object.values(flat).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(Object.keys(FUNCTIONS).length);
    for (const fn of functions)
      expect(fn.Properties.Environment?.Variables ?? {}).not.toHaveProperty('INTEGRATIONS_ALLOW_LOOPBACK');
  });

  it('gives the queue to the functions and workflow steps that emit events, and to no other', () => {
    for (const [name, definition] of Object.entries(FUNCTIONS)) {
      const fn = whole.functions[name];
      if (!fn) throw new Error(`no function ${name}`);
      const emits = (definition as { integrations?: string }).integrations === 'emit';
      expect([name, INTEGRATIONS_QUEUE_ENV in environmentOf(fn)]).toEqual([name, emits]);
    }
    for (const [name, step] of Object.entries(WORKFLOW_STEPS)) {
      const emits = (step as { integrations?: string }).integrations === 'emit';
      const fn = whole.publishing.functions[name as keyof typeof WORKFLOW_STEPS];
      expect([name, INTEGRATIONS_QUEUE_ENV in environmentOf(fn)]).toEqual([name, emits]);
    }
    expect(queue).toBeDefined();
  });
});

describe('the template-driven local API (local/template/jobs.ts)', () => {
  it('finds the standard deliveries queue, its senders (the consumer sets delays on it), consumer, receives and visibility', () => {
    const fn = (name: string, logicalId: string) => [name, { name, logicalId } as TemplateFunction] as const;
    const api = {
      resources: template.toJSON().Resources,
      functions: new Map([fn('sender', idOf(sender)), fn(DELIVERY_WORKER.name, workerId)]),
    } as unknown as TemplateApi;
    expect([...readTemplateQueues(api).values()]).toEqual([
      {
        logicalId: queueId,
        fifo: false,
        consumer: DELIVERY_WORKER.name,
        maxReceives: MAX_ATTEMPTS,
        visibilityMs: DELIVERIES_VISIBILITY_TIMEOUT.toMilliseconds(),
        reportsBatchItemFailures: true,
        senders: ['sender', DELIVERY_WORKER.name],
      },
    ]);
  });
});
