import { App, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { TABLE_ROLES, type TableRole } from '../../lib/store/schema';

type Json = Record<string, any>;

/**
 * A stack for one queue room of the stack alone (infra/jobs.ts, infra/integrations.ts), bundling skipped:
 * its tables, and a plain function to grant sending to.
 */
export function queueRoomStack(name: string): {
  stack: Stack;
  tables: Record<TableRole, Table>;
  sender: LambdaFunction;
} {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, name);
  const tables = Object.fromEntries(
    TABLE_ROLES.map((role) => [
      role,
      new Table(stack, `${role}Table`, { partitionKey: { name: 'pk', type: AttributeType.STRING } }),
    ]),
  ) as Record<TableRole, Table>;
  const sender = new LambdaFunction(stack, 'Sender', {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('export const handler = async () => undefined;'),
  });
  return { stack, tables, sender };
}

/** Every statement of the policies attached to a function's role, in a template's `resources`. */
export function statementsOf(resources: Record<string, Json>, functionId: string): Json[] {
  const role = resources[functionId]?.Properties.Role['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: Json) => ref.Ref === role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
}

export const actionsOf = (statement: Json) => [statement.Action].flat() as string[];

/** What an SQS event source mapping grants its function on the queue. */
export const SQS_CONSUMER_ACTIONS = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
].sort();

/** Asserts the queue's policy denies every request not made over TLS. */
export function expectTlsOnly(template: Template, queueId: string): void {
  template.hasResourceProperties('AWS::SQS::QueuePolicy', {
    Queues: [{ Ref: queueId }],
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    },
  });
}
