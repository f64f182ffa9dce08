import { type Acknowledgment, Names, type Stack, Token, Validations } from 'aws-cdk-lib';
import { DELTAS_ROOT } from '../lib/store/delta-objects';

/**
 * The cdk-nag (AwsSolutions) findings this stack accepts, each with the reason it is acceptable, whatever
 * its environment (see {@link nagAcknowledgements} for those whose id names it).
 */
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
      'X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords, and for the state machine ' +
      'xray:GetSamplingRules, xray:GetSamplingTargets) and the state machine’s log delivery ' +
      '(logs:CreateLogDelivery and the rest CDK grants for it) support no resource-level permissions.',
  },
  {
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::<PublishingDocumentsBucketEC9C532E.Arn>/*]',
    reason:
      'Functions read and write documents and workflow files under keys made per store, catalog and release ' +
      '(documents/, uploads/, work/): object-level actions listed one by one (BUCKET_ACTIONS in ' +
      'infra/publishing.ts), on the one documents bucket only.',
  },
  {
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::<PublishingDocumentsBucketEC9C532E>/*]',
    reason:
      'The release state machine’s Distributed Maps read their item lists (s3:GetObject only) at keys that each ' +
      'execution’s Plan and Merge steps name; CDK’s S3JsonLItemReader grants it on the documents bucket’s objects.',
  },
  ...[
    'ReleaseExport4A79F1BD',
    'ReleaseValidateDEE03B9C',
    'ReleasePlanD46DD0D7',
    'ReleaseDeriveE64F1DA3',
    'ReleaseMerge7B85FCD0',
    'ReleaseWriteAD250D35',
    'ReleaseSwitch8DCC82B5',
    'ReleaseAbandon6223F5EE',
  ].map((fn) => ({
    id: `AwsSolutions::AwsSolutions-IAM5[Resource::<Publishing${fn}.Arn>:*]`,
    reason:
      'lambda:InvokeFunction for the release state machine on its own step function and that function’s ' +
      'versions and aliases (`:*`), as CDK’s LambdaInvoke task grants it.',
  })),
  {
    id: 'AwsSolutions::AwsSolutions-S1',
    reason:
      'The documents bucket is used only by this stack’s functions (each logs the release and step it ' +
      'works on) and by pre-signed PUTs the API issues and logs; no other principal has access. An S3-level ' +
      'audit trail, when wanted, is CloudTrail data events, without a second, retained log bucket.',
  },
  {
    id: 'AwsSolutions::AwsSolutions-L1',
    reason: 'nodejs22.x is pinned on purpose: the code is built and tested for Node 20 and 22.',
  },
] as const;

/**
 * Every finding the stack accepts. The release state machine's Distributed Map policy names execution ARNs
 * that CDK formats with the stack's region and account: literal when the stack has them
 * (`cdk deploy` sets the region, and the account with credentials), `<AWS::Region>` and `<AWS::AccountId>`
 * otherwise; so do the ids of those findings.
 */
export function nagAcknowledgements(stack: Stack): Acknowledgment[] {
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  // The parts of the API (nested stacks) name the documents bucket by the parameter CDK passes its ARN in.
  const bucket = stack.node.tryFindChild('Publishing')?.node.tryFindChild('DocumentsBucket')
    ?.node.defaultChild;
  if (!bucket) throw new Error(`${stack.stackName} has no Publishing/DocumentsBucket`);
  const bucketParameter = `referenceto${Names.nodeUniqueId(bucket.node)}Arn`;
  const executions = `arn:<AWS::Partition>:states:${region}:${account}:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"PublishingReleaseStateMachineB057AE2A"}]}]}`;
  return [
    ...NAG_ACKNOWLEDGEMENTS,
    {
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${executions}:*]`,
      reason:
        'The Distributed Map runs its child workflow executions: states:DescribeExecution and StopExecution on ' +
        'executions of the release state machine itself, whose names Step Functions chooses.',
    },
    {
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${bucketParameter}>/*]`,
      reason:
        'The API functions of the publishing part read and write documents and uploads under keys made per ' +
        'store, catalog and release: object-level actions listed one by one (BUCKET_ACTIONS in ' +
        'infra/publishing.ts), on the one documents bucket only, whose ARN their nested stack takes as a parameter.',
    },
    {
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${bucketParameter}>/${DELTAS_ROOT}*]`,
      reason:
        'The functions that show releases sign links to their delta files (s3:GetObject), and those that delete ' +
        'releases delete them (s3:DeleteObject), under keys made per store, catalog and release: one action ' +
        'each, on the delta files of the one documents bucket only.',
    },
    ...['ReleaseDerive', 'ReleaseWrite'].map((label) => ({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${executions}/${label}:*]`,
      reason:
        `The Distributed Map redrives its own Map Run (label ${label}): states:RedriveExecution on the ` +
        'release state machine’s executions only, as CDK grants it.',
    })),
  ];
}

/** Acknowledges the accepted findings for the whole stack. */
export function applyNagSuppressions(stack: Stack): void {
  for (const acknowledgement of nagAcknowledgements(stack))
    Validations.of(stack).acknowledge(acknowledgement);
}
