import { type Stack, Validations } from 'aws-cdk-lib';

/** Every cdk-nag (AwsSolutions) finding this stack accepts, each with the reason it is acceptable. */
export const NAG_ACKNOWLEDGEMENTS = [
  {
    id: 'AwsSolutions::AwsSolutions-APIG4',
    reason:
      'Authorization is done by the functions: bearer tokens issued by POST /oauth/access_token (itself public by ' +
      'design, it is where tokens come from) are validated by the shared auth middleware (lib/auth).',
  },
  {
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: 'AWSLambdaBasicExecutionRole only allows writing the function’s own CloudWatch logs.',
  },
  {
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
    reason:
      'X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) supports no resource-level permissions.',
  },
  {
    id: 'AwsSolutions::AwsSolutions-L1',
    reason: 'nodejs22.x is pinned on purpose: the code is built and tested for Node 20 and 22.',
  },
] as const;

/** Acknowledges the accepted findings for the whole stack. */
export function applyNagSuppressions(stack: Stack): void {
  for (const acknowledgement of NAG_ACKNOWLEDGEMENTS) Validations.of(stack).acknowledge(acknowledgement);
}
