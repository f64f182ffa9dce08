import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { JOB_WORKER, MAX_RECEIVES } from '../../functions/jobs';
import { JOBS_QUEUE_ENV, JOBS_VISIBILITY_TIMEOUT, Jobs } from '../../infra/jobs';
import { readTemplateQueues } from '../../local/template/jobs';
import type { TemplateApi, TemplateFunction } from '../../local/template/template';
import {
  actionsOf,
  expectTlsOnly,
  queueRoomStack,
  statementsOf as roleStatements,
  SQS_CONSUMER_ACTIONS,
} from '../support/queue-room';

type Json = Record<string, any>;

/** The jobs room alone (infra/jobs.ts), with bundling skipped: its queue, dead letters, worker and grants. */
const { stack, tables, sender } = queueRoomStack('JobsTest');
const documentGrants: [unknown, string][] = [];
const jobs = new Jobs(stack, 'Jobs', {
  tables,
  alarmTopic: new Topic(stack, 'Alarms'),
  documents: { grantDocuments: (fn, access) => void documentGrants.push([fn, access]) },
});
jobs.grantEnqueue(sender);
const template = Template.fromStack(stack);
const resources: Record<string, Json> = template.toJSON().Resources;
const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);
const queueId = idOf(jobs.queue);
const deadLetterId = idOf(jobs.deadLetterQueue);
const workerId = idOf(jobs.worker);

const statementsOf = (functionId: string) => roleStatements(resources, functionId);

describe('the jobs queue', () => {
  it('is FIFO, content-based deduplication off, encrypted, with its dead-letter queue after MAX_RECEIVES', () => {
    expect(resources[queueId]?.Properties).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: JOBS_VISIBILITY_TIMEOUT.toSeconds(),
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] },
        maxReceiveCount: MAX_RECEIVES,
      },
    });
    expect(resources[deadLetterId]?.Properties).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
    });
  });

  it('outlasts the worker: a run still going is never handed to a second worker', () => {
    expect(JOBS_VISIBILITY_TIMEOUT.toSeconds()).toBeGreaterThan(JOB_WORKER.timeoutSeconds);
    expect(resources[workerId]?.Properties.Timeout).toBe(JOB_WORKER.timeoutSeconds);
  });

  it('refuses anything but TLS', () => {
    expectTlsOnly(template, queueId);
  });
});

describe('the worker', () => {
  it('reads the queue one message at a time', () => {
    const mappings = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toMatchObject({
      BatchSize: 1,
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: workerId },
    });
  });

  it('may receive and delete the queue’s messages, write the products table, read keys, and nothing of SQS else', () => {
    const sqs = statementsOf(workerId).filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [queueId, 'Arn'] }]);
    expect(actionsOf(sqs[0] ?? {}).sort()).toEqual(SQS_CONSUMER_ACTIONS);
    const tableResources = statementsOf(workerId)
      .filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))
      .map((s) => ({
        writes: actionsOf(s).includes('dynamodb:PutItem'),
        resource: JSON.stringify(s.Resource),
      }));
    const products = idOf(tables.products);
    const keys = idOf(tables.keys);
    expect(tableResources.filter((t) => t.resource.includes(products)).some((t) => t.writes)).toBe(true);
    expect(tableResources.filter((t) => t.resource.includes(keys)).some((t) => t.writes)).toBe(false);
    expect(tableResources.some((t) => t.resource.includes(idOf(tables.limits)))).toBe(false);
    expect(documentGrants).toEqual([[jobs.worker, 'read']]);
  });
});

describe('grantEnqueue', () => {
  it('gives a sender sqs:SendMessage on the jobs queue only, and its URL', () => {
    const senderId = idOf(sender);
    const statements = statementsOf(senderId);
    expect(statements).toEqual([
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    ]);
    expect(resources[senderId]?.Properties.Environment.Variables[JOBS_QUEUE_ENV]).toEqual({ Ref: queueId });
  });
});

describe('alarms', () => {
  it('watch the dead letters, the worker’s errors and jobs not queued', () => {
    const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    const metrics = alarms.map((alarm) => alarm.Properties.MetricName).sort();
    expect(metrics).toEqual(['ApproximateNumberOfMessagesVisible', 'Errors', 'JobsNotQueued']);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });
});

describe('the template-driven local API (local/template/jobs.ts)', () => {
  it('finds the queue a function sends to, its consumer and its maxReceiveCount in the template', () => {
    const fn = (name: string, logicalId: string) => [name, { name, logicalId } as TemplateFunction] as const;
    const api = {
      resources: template.toJSON().Resources,
      functions: new Map([fn('sender', idOf(sender)), fn(JOB_WORKER.name, workerId)]),
    } as unknown as TemplateApi;
    expect([...readTemplateQueues(api).values()]).toEqual([
      {
        logicalId: queueId,
        fifo: true,
        consumer: JOB_WORKER.name,
        maxReceives: MAX_RECEIVES,
        visibilityMs: JOBS_VISIBILITY_TIMEOUT.toMilliseconds(),
        reportsBatchItemFailures: false,
        senders: ['sender'],
      },
    ]);
  });
});
