import aslValidator from 'asl-validator';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { FUNCTIONS } from '../../functions/routes';
import {
  AWS_DERIVE_CONCURRENCY,
  AWS_WRITE_CONCURRENCY,
  WORKFLOW_STEPS,
  type WorkflowStepName,
} from '../../functions/workflow';
import { CommerceStack } from '../../infra/commerce-stack';
import {
  BUCKET_ACTIONS,
  LAMBDA_SERVICE_ERRORS,
  Publishing,
  type PublishingProps,
} from '../../infra/publishing';
import { ROOT_CERTIFICATES_ENV } from '../../infra/root-certificates';
import { WRITE_ATTEMPTS } from '../../lib/catalog/pipeline/run-local';
import { TABLE_ROLES, type TableRole } from '../../lib/store/schema';
import { flatTemplate, logicalIdOf } from '../support/stack-template';

type Json = Record<string, any>;

/** Bundling is skipped, as in stack.test.ts: the assertions are about resources and grants, not bundles. */
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new CommerceStack(app, 'Test');
const template = flatTemplate(stack);
const resources: Record<string, Json> = template.toJSON().Resources;
const publishing = stack.publishing;

const idOf = (construct: { node: { defaultChild?: unknown } }): string =>
  logicalIdOf(construct.node.defaultChild as never);
const bucketId = idOf(publishing.bucket);
const stateMachineId = idOf(publishing.stateMachine);
const stepId = (name: WorkflowStepName) => idOf(publishing.functions[name]);

/** A placeholder for each token in the definition, shaped like what CloudFormation would put there. */
function placeholder(token: Json): string {
  if (token.Ref === 'AWS::Partition') return 'aws';
  if (token.Ref === 'AWS::Region') return 'eu-west-1';
  if (token.Ref === 'AWS::AccountId') return '123456789012';
  if (typeof token.Ref === 'string') return token.Ref.toLowerCase();
  const [id, attribute] = token['Fn::GetAtt'] ?? [];
  if (attribute === 'Arn') return `arn:aws:lambda:eu-west-1:123456789012:function:${id}`;
  throw new Error(`no placeholder for ${JSON.stringify(token)}`);
}

/** The state machine's DefinitionString (an Fn::Join of text and tokens) as the JSON Step Functions gets. */
function definitionOf(stateMachine: Json): Json {
  const [separator, parts] = stateMachine.Properties.DefinitionString['Fn::Join'] as [string, unknown[]];
  return JSON.parse(
    parts.map((part) => (typeof part === 'string' ? part : placeholder(part as Json))).join(separator),
  );
}

const definition = definitionOf(resources[stateMachineId] as Json);
const states: Record<string, Json> = definition.States;
const write = states.Write as Json;
const writeChunk = write.ItemProcessor.States.WriteChunk as Json;
const derive = states.Derive as Json;
const deriveRange = derive.ItemProcessor.States.DeriveRange as Json;
const functionArn = (name: WorkflowStepName) => placeholder({ 'Fn::GetAtt': [stepId(name), 'Arn'] });

/** A stack of its own holding only the four tables and a Publishing construct. */
function standalone(
  id: string,
  props: Partial<PublishingProps> = {},
): { stack: Stack; publishing: Publishing } {
  const own = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), id);
  const tables = Object.fromEntries(
    TABLE_ROLES.map((role) => [
      role,
      new Table(own, role, { partitionKey: { name: 'pk', type: AttributeType.STRING } }),
    ]),
  ) as Record<TableRole, Table>;
  return {
    stack: own,
    publishing: new Publishing(own, 'Publishing', { tables, corsOrigins: ['*'], ...props }),
  };
}

/** asl-validator adds QueryLanguage to the states it checks: give it a copy. */
const validate = (asl: Json) => aslValidator(structuredClone(asl));

describe('the release state machine: its definition', () => {
  it('is valid Amazon States Language (asl-validator, paths and ARNs checked)', () => {
    const result = validate(definition);
    expect(result.errorsText()).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('is refused by the validator when a Next names no state, or the Map is missing its execution type', () => {
    const brokenNext = structuredClone(definition);
    brokenNext.States.Derive.Next = 'Writ';
    const refused = validate(brokenNext);
    expect(refused.isValid).toBe(false);
    expect(refused.errorsText()).toContain(
      "MISSING_TRANSITION_TARGET: Missing 'StartAt'|'Next'|'Default' target: Writ",
    );

    const brokenMap = structuredClone(definition);
    delete brokenMap.States.Write.ItemProcessor.ProcessorConfig.ExecutionType;
    expect(validate(brokenMap).isValid).toBe(false);
  });

  it('has exactly these states, starting at Authored, with the happy path (Export →) Validate → Plan → Derive → Merge → Write → Switch', () => {
    expect(definition.StartAt).toBe('Authored');
    expect(states.Authored).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.export', BooleanEquals: true, Next: 'Export' }],
      Default: 'Validate',
    });
    expect(states.Export?.Next).toBe('Exported');
    expect(states.Exported).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.valid', BooleanEquals: false, Next: 'ReleaseInvalid' }],
      Default: 'Validate',
    });
    expect(Object.keys(states).sort()).toEqual(
      [
        'Abandon',
        'AbandonOutcome',
        'Authored',
        'Derive',
        'DocumentValid',
        'Export',
        'Exported',
        'Merge',
        'Plan',
        'ReleaseFailed',
        'ReleaseInvalid',
        'ReleasePublished',
        'Switch',
        'Validate',
        'Write',
      ].sort(),
    );
    expect(states.Validate?.Next).toBe('DocumentValid');
    expect(states.DocumentValid).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.valid', BooleanEquals: false, Next: 'ReleaseInvalid' }],
      Default: 'Plan',
    });
    expect(states.Plan?.Next).toBe('Derive');
    expect(states.Derive?.Next).toBe('Merge');
    expect(states.Merge?.Next).toBe('Write');
    expect(write.Next).toBe('Switch');
    expect(states.Switch?.Next).toBe('ReleasePublished');
    expect(states.ReleasePublished).toEqual({ Type: 'Succeed' });
    expect(states.ReleaseInvalid).toMatchObject({ Type: 'Fail', Error: 'ReleaseInvalid' });
    expect(states.ReleaseFailed).toMatchObject({ Type: 'Fail', Error: 'ReleaseFailed' });
  });

  it('runs each step as its own Lambda, the handler’s answer being the state’s output (no Payload envelope)', () => {
    const tasks: [string, Json, WorkflowStepName][] = [
      ['Export', states.Export as Json, 'release-export'],
      ['Validate', states.Validate as Json, 'release-validate'],
      ['Plan', states.Plan as Json, 'release-plan'],
      ['DeriveRange', deriveRange, 'release-derive'],
      ['Merge', states.Merge as Json, 'release-merge'],
      ['WriteChunk', writeChunk, 'release-write'],
      ['Switch', states.Switch as Json, 'release-switch'],
      ['Abandon', states.Abandon as Json, 'release-abandon'],
    ];
    for (const [stateName, state, step] of tasks) {
      expect([stateName, state.Type, state.Resource]).toEqual([stateName, 'Task', functionArn(step)]);
      expect(state.Parameters).toBeUndefined();
      expect(state.OutputPath).toBeUndefined();
    }
    expect(states.Abandon?.ResultPath).toBe('$.abandon');
  });

  it('sends an error of Export, Validate, Plan, Derive, Merge, Write or Switch to Abandon with the error at $.error, then fails', () => {
    for (const name of ['Export', 'Validate', 'Plan', 'Derive', 'Merge', 'Write', 'Switch']) {
      expect([name, states[name]?.Catch]).toEqual([
        name,
        [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Abandon' }],
      ]);
    }
    expect(states.Abandon?.Catch).toBeUndefined();
    expect(states.Abandon?.Next).toBe('AbandonOutcome');
    expect(states.AbandonOutcome).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.abandon.state', StringEquals: 'PUBLISHED', Next: 'ReleasePublished' }],
      Default: 'ReleaseFailed',
    });
  });

  it('retries every task on Lambda service errors and throttling; a range, a writer and Abandon on their own errors too', () => {
    const serviceRetry = {
      ErrorEquals: [...LAMBDA_SERVICE_ERRORS],
      IntervalSeconds: 2,
      MaxAttempts: 6,
      BackoffRate: 2,
      MaxDelaySeconds: 60,
      JitterStrategy: 'FULL',
    };
    expect(LAMBDA_SERVICE_ERRORS).toEqual(
      expect.arrayContaining(['Lambda.ServiceException', 'Lambda.TooManyRequestsException']),
    );
    for (const name of ['Export', 'Validate', 'Plan', 'Merge', 'Switch']) {
      expect([name, states[name]?.Retry]).toEqual([name, [serviceRetry]]);
    }
    // 3 attempts in all, as the local harness makes them.
    expect(deriveRange.Retry).toEqual(writeChunk.Retry);
    expect(writeChunk.Retry).toEqual([
      serviceRetry,
      {
        ErrorEquals: ['States.TaskFailed'],
        IntervalSeconds: 5,
        MaxAttempts: WRITE_ATTEMPTS - 1,
        BackoffRate: 3,
        JitterStrategy: 'FULL',
      },
    ]);
    expect(states.Abandon?.Retry).toEqual([
      serviceRetry,
      {
        ErrorEquals: ['States.TaskFailed'],
        IntervalSeconds: 10,
        MaxAttempts: 3,
        BackoffRate: 3,
        JitterStrategy: 'FULL',
      },
    ]);
    // The Maps themselves are not retried: that would derive every range, write every chunk again.
    expect(write.Retry).toBeUndefined();
    expect(derive.Retry).toBeUndefined();
  });

  // Derive: over the ranges Plan lists; Write: over the chunk manifest Merge names.
  it.each([
    ['Derive', 'DeriveRange', '$.ranges_key', 'range', AWS_DERIVE_CONCURRENCY, 'ReleaseDerive'],
    ['Write', 'WriteChunk', '$.manifest_key', 'chunk', AWS_WRITE_CONCURRENCY, 'ReleaseWrite'],
  ] as const)(
    '%s is a Distributed Map of Standard child executions of %s over a JSON Lines list in S3 (%s), each given the execution’s ids and one line, keeping the state’s output, tolerating no failure',
    (name, task, listKey, field, concurrency, label) => {
      const map = states[name] as Json;
      expect(map.Type).toBe('Map');
      expect(map.ItemProcessor.ProcessorConfig).toEqual({ Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' });
      expect(map.ItemProcessor.StartAt).toBe(task);
      expect(map.ItemProcessor.States[task].End).toBe(true);
      expect(map.ItemReader).toEqual({
        Resource: 'arn:aws:states:::s3:getObject',
        ReaderConfig: { InputType: 'JSONL' },
        Parameters: { Bucket: bucketId.toLowerCase(), 'Key.$': listKey },
      });
      expect(map.MaxConcurrency).toBe(concurrency);
      expect(map.Label).toBe(label);
      expect(map.ItemSelector).toEqual({
        'store_id.$': '$.store_id',
        'catalog_id.$': '$.catalog_id',
        'release_id.$': '$.release_id',
        'document_key.$': '$.document_key',
        [`${field}.$`]: '$$.Map.Item.Value',
      });
      expect(map.ResultPath).toBeNull();
      expect(map.ResultWriter).toBeUndefined();
      // No failed item is tolerated: the AWS default when neither field is present.
      expect(map.ToleratedFailurePercentage).toBeUndefined();
      expect(map.ToleratedFailureCount).toBeUndefined();
    },
  );

  it('takes another MaxConcurrency from writeConcurrency', () => {
    const { stack: other } = standalone('Other', { writeConcurrency: 3 });
    const machine = Object.values(flatTemplate(other).findResources('AWS::StepFunctions::StateMachine'))[0];
    expect(definitionOf(machine as Json).States.Write.MaxConcurrency).toBe(3);
  });
});

describe('the release state machine: the resource', () => {
  it('is a Standard state machine with tracing, a 2-hour timeout, and every event logged without execution data', () => {
    const properties = (resources[stateMachineId] as Json).Properties;
    expect(properties.StateMachineType).toBe('STANDARD');
    expect(properties.TracingConfiguration).toEqual({ Enabled: true });
    expect(definition.TimeoutSeconds).toBe(7200);
    expect(properties.LoggingConfiguration).toEqual({
      Destinations: [
        { CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [idOf(publishing.logGroup), 'Arn'] } } },
      ],
      IncludeExecutionData: false,
      Level: 'ALL',
    });
    expect((resources[idOf(publishing.logGroup)] as Json).Properties.RetentionInDays).toBe(30);
  });

  it('may invoke the seven step functions, read the manifest, and run its own child executions: nothing else', () => {
    const roleId = logicalIdOf(publishing.stateMachine.role.node.defaultChild as never);
    const statements = statementsOf(roleId);
    const invoked = statements
      .filter((s) => s.Action === 'lambda:InvokeFunction')
      .map((s) => s.Resource[0]['Fn::GetAtt'][0])
      .sort();
    expect(invoked).toEqual((Object.keys(WORKFLOW_STEPS) as WorkflowStepName[]).map(stepId).sort());
    const s3 = statements.filter((s) => [s.Action].flat().some((a: string) => a.startsWith('s3:')));
    expect(s3.map((s) => s.Action)).toEqual(['s3:GetObject']);
    expect(JSON.stringify(s3[0]?.Resource)).toContain(`{"Ref":"${bucketId}"},"/*"`);
    const states_ = statements
      .flatMap((s) => [s.Action].flat())
      .filter((a: string) => a.startsWith('states:'));
    expect(states_.sort()).toEqual(
      [
        'states:DescribeExecution',
        'states:RedriveExecution',
        'states:StartExecution',
        'states:StopExecution',
      ].sort(),
    );
    for (const statement of statements) expect(statement.Effect).toBe('Allow');
  });
});

/** Every statement of every inline policy attached to a role. */
function statementsOf(roleId: string): Json[] {
  return Object.values(resources)
    .filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        (r.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
}

const tableIdOf = (resource: Json): string | undefined =>
  (resource['Fn::GetAtt'] ?? resource['Fn::Join']?.[1]?.[0]?.['Fn::GetAtt'])?.[0];

describe('the step functions', () => {
  const steps = Object.entries(WORKFLOW_STEPS) as [
    WorkflowStepName,
    (typeof WORKFLOW_STEPS)[WorkflowStepName],
  ][];

  it.each(steps)(
    '%s: arm64 nodejs22.x, its memory and timeout, tracing, JSON logs kept 30 days',
    (name, step) => {
      const properties = (resources[stepId(name)] as Json).Properties;
      expect(properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: step.memoryMb,
        Timeout: step.timeoutSeconds,
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON' },
        Description: step.description,
      });
      const logGroupId = properties.LoggingConfig.LogGroup.Ref;
      expect((resources[logGroupId] as Json).Properties.RetentionInDays).toBe(30);
    },
  );

  it.each(steps)(
    '%s: knows its tables, the bucket, (when it emits events) the deliveries queue and where its root certificates are, and nothing else',
    (name, step) => {
      const variables = (resources[stepId(name)] as Json).Properties.Environment.Variables;
      const expected: Json = {
        ...ROOT_CERTIFICATES_ENV,
        LOG_LEVEL: 'info',
        DOCUMENTS_BUCKET: { Ref: bucketId },
      };
      for (const role of Object.keys(step.tables)) {
        expected[`${role.toUpperCase()}_TABLE`] = { Ref: idOf(stack.tables[role as TableRole] as never) };
      }
      if ((step as { integrations?: string }).integrations === 'emit') {
        expected.INTEGRATIONS_QUEUE_URL = { Ref: idOf(stack.integrations.queue as never) };
      }
      expect(variables).toEqual(expected);
    },
  );

  it.each(steps)('%s: may do only what WORKFLOW_STEPS allows', (name, step) => {
    const fn = publishing.functions[name];
    const statements = statementsOf(logicalIdOf(fn.role?.node.defaultChild as never));
    for (const statement of statements) expect(statement.Effect).toBe('Allow');
    const actions = (s: Json) => [s.Action].flat() as string[];
    // X-Ray is the only thing on Resource *.
    for (const s of statements.filter((s) => s.Resource === '*')) {
      expect(actions(s)).toEqual(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']);
    }
    // Nothing beyond X-Ray, its tables, the bucket and, when it emits events, sending to the deliveries queue;
    // no wildcard action.
    for (const action of statements.flatMap(actions)) {
      expect(action).toMatch(/^(xray|dynamodb|s3):[A-Za-z]+$|^sqs:SendMessage$/);
    }
    const sends = statements.filter((s) => actions(s).includes('sqs:SendMessage'));
    expect(sends.map((s) => s.Resource)).toEqual(
      (step as { integrations?: string }).integrations === 'emit'
        ? [{ 'Fn::GetAtt': [idOf(stack.integrations.queue as never), 'Arn'] }]
        : [],
    );
    const dynamo = statements.filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
    const tables = new Set(dynamo.flatMap((s) => [s.Resource].flat().map(tableIdOf)));
    expect([...tables].sort()).toEqual(
      Object.keys(step.tables)
        .map((role) => idOf(stack.tables[role as TableRole] as never))
        .sort(),
    );
    // Per table: writes only on a table the step may write.
    for (const [role, access] of Object.entries(step.tables)) {
      const table = idOf(stack.tables[role as TableRole] as never);
      const onTable = dynamo.filter((s) =>
        [s.Resource].flat().some((resource) => tableIdOf(resource) === table),
      );
      const writes = onTable.flatMap(actions).includes('dynamodb:BatchWriteItem');
      expect([role, writes]).toEqual([role, access === 'readwrite']);
    }
    // S3: exactly the bucket access's actions, on the documents bucket and its objects only.
    const s3 = statements.filter((s) => actions(s).some((a) => a.startsWith('s3:')));
    const objectArn = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] };
    expect(s3).toEqual([
      { Action: unwrap(BUCKET_ACTIONS[step.bucket].objects), Effect: 'Allow', Resource: objectArn },
      {
        Action: unwrap(BUCKET_ACTIONS[step.bucket].bucket),
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [bucketId, 'Arn'] },
      },
    ]);
  });

  it('lets the writer only read the bucket, and the others also write and delete in it (the validator copies an upload in)', () => {
    expect(BUCKET_ACTIONS.read).toEqual({ objects: ['s3:GetObject'], bucket: ['s3:ListBucket'] });
    expect(BUCKET_ACTIONS.readwrite.objects).toEqual(
      expect.arrayContaining(['s3:GetObject', 's3:PutObject', 's3:DeleteObject']),
    );
    expect(WORKFLOW_STEPS['release-write'].bucket).toBe('read');
    expect(WORKFLOW_STEPS['release-validate'].bucket).toBe('readwrite');
    const writerActions = statementsOf(
      logicalIdOf(publishing.functions['release-write'].role?.node.defaultChild as never),
    ).flatMap((s) => [s.Action].flat());
    expect(writerActions).not.toContain('s3:PutObject');
    expect(writerActions).not.toContain('s3:DeleteObject');
  });
});

/** One action renders as a string, several as an array. */
function unwrap(actions: readonly string[]): string | string[] {
  return actions.length === 1 ? (actions[0] as string) : [...actions];
}

describe('the documents bucket', () => {
  const bucket = resources[bucketId] as Json;

  it('is encrypted, private, unversioned and kept when the stack is destroyed', () => {
    expect(bucket.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
    expect([bucket.DeletionPolicy, bucket.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    // No auto-delete custom resource: destroying the stack leaves the documents alone.
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
  });

  it('refuses every request that is not over TLS', () => {
    const policies = Object.values(template.findResources('AWS::S3::BucketPolicy')).filter(
      (p) => p.Properties.Bucket.Ref === bucketId,
    );
    expect(policies).toHaveLength(1);
    expect(policies[0]?.Properties.PolicyDocument.Statement).toEqual([
      {
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Resource: [
          { 'Fn::GetAtt': [bucketId, 'Arn'] },
          { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
        ],
      },
    ]);
  });

  it('expires uploads after a day, workflow files after 7, release objects after 90, delta files after 31, and aborts unfinished multipart uploads after a day', () => {
    expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual([
      { Id: 'expire-uploads', Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' },
      { Id: 'expire-workflow-files', Prefix: 'work/', ExpirationInDays: 7, Status: 'Enabled' },
      { Id: 'expire-release-objects', Prefix: 'releases/', ExpirationInDays: 90, Status: 'Enabled' },
      { Id: 'expire-delta-files', Prefix: 'deltas/', ExpirationInDays: 31, Status: 'Enabled' },
      {
        Id: 'abort-incomplete-multipart-uploads',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        Status: 'Enabled',
      },
    ]);
  });

  it('lets browsers PUT to pre-signed URLs from the API’s allowed origins', () => {
    expect(bucket.Properties.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedMethods: ['PUT'],
          AllowedOrigins: ['*'],
          AllowedHeaders: ['*'],
          ExposedHeaders: ['ETag'],
          MaxAge: 3600,
        },
      ],
    });
    const listed = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        corsOrigins: 'https://shop.example.com, http://localhost:5173',
      },
    });
    const listedStack = new CommerceStack(listed, 'Listed');
    const listedBucket =
      flatTemplate(listedStack).toJSON().Resources[
        logicalIdOf(listedStack.publishing.bucket.node.defaultChild as never)
      ];
    expect(listedBucket.Properties.CorsConfiguration.CorsRules[0].AllowedOrigins).toEqual([
      'https://shop.example.com',
      'http://localhost:5173',
    ]);
  });
});

describe('API functions that start releases or use the bucket', () => {
  it('get RELEASE_STATE_MACHINE_ARN and states:StartExecution exactly when their definition says workflow: start', () => {
    for (const [name, definition] of Object.entries(FUNCTIONS) as [string, Json][]) {
      const fn = stack.functions[name];
      if (!fn) throw new Error(`no function ${name}`);
      const variables = (resources[idOf(fn)] as Json).Properties.Environment.Variables;
      const starts = statementsOf(logicalIdOf(fn.role?.node.defaultChild as never)).filter(
        (s) => s.Action === 'states:StartExecution',
      );
      if (definition.workflow === 'start') {
        expect([name, variables.RELEASE_STATE_MACHINE_ARN]).toEqual([name, { Ref: stateMachineId }]);
        expect(starts.map((s) => s.Resource)).toEqual([{ Ref: stateMachineId }]);
      } else {
        expect([name, variables.RELEASE_STATE_MACHINE_ARN, starts]).toEqual([name, undefined, []]);
      }
    }
  });

  it('get DOCUMENTS_BUCKET and the access their definition names, and nothing of the bucket otherwise', () => {
    for (const [name, definition] of Object.entries(FUNCTIONS) as [string, Json][]) {
      const fn = stack.functions[name];
      if (!fn) throw new Error(`no function ${name}`);
      const variables = (resources[idOf(fn)] as Json).Properties.Environment.Variables;
      const s3Actions = statementsOf(logicalIdOf(fn.role?.node.defaultChild as never))
        .flatMap((s) => [s.Action].flat() as string[])
        .filter((a) => a.startsWith('s3:'));
      const access = definition.bucket as 'read' | 'readwrite' | undefined;
      expect([name, variables.DOCUMENTS_BUCKET]).toEqual([name, access ? { Ref: bucketId } : undefined]);
      expect([name, s3Actions.sort()]).toEqual([
        name,
        access ? [...BUCKET_ACTIONS[access].objects, ...BUCKET_ACTIONS[access].bucket].sort() : [],
      ]);
    }
  });

  it('let the functions that show releases only sign delta file links, and those that delete releases only delete delta files', () => {
    const deltas = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/deltas/*']] };
    const expected = {
      'get-catalog': 's3:GetObject',
      'pcm-get-release': 's3:GetObject',
      'pcm-list-releases': 's3:GetObject',
      'pcm-delete-release': 's3:DeleteObject',
      'pcm-delete-releases': 's3:DeleteObject',
    };
    for (const [name, action] of Object.entries(expected)) {
      const fn = stack.functions[name];
      if (!fn) throw new Error(`no function ${name}`);
      const s3 = statementsOf(logicalIdOf(fn.role?.node.defaultChild as never)).filter((statement) =>
        ([statement.Action].flat() as string[]).some((a) => a.startsWith('s3:')),
      );
      expect([name, s3]).toEqual([name, [{ Action: action, Effect: 'Allow', Resource: deltas }]]);
    }
  });

  it('grantStart and grantDocuments give any function the start, the bucket access and the two names', () => {
    const { stack: other, publishing: workflow } = standalone('Grants');
    const fn = new LambdaFunction(other, 'Starter', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({})'),
    });
    workflow.grantStart(fn);
    workflow.grantDocuments(fn, 'read');
    const granted = flatTemplate(other);
    const ids = {
      fn: logicalIdOf(fn.node.defaultChild as never),
      role: logicalIdOf(fn.role?.node.defaultChild as never),
      machine: logicalIdOf(workflow.stateMachine.node.defaultChild as never),
      bucket: logicalIdOf(workflow.bucket.node.defaultChild as never),
    };
    const json = granted.toJSON().Resources;
    expect(json[ids.fn].Properties.Environment.Variables).toEqual({
      RELEASE_STATE_MACHINE_ARN: { Ref: ids.machine },
      DOCUMENTS_BUCKET: { Ref: ids.bucket },
    });
    const statements = Object.values(json as Record<string, Json>)
      .filter(
        (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: Json) => x.Ref === ids.role),
      )
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(statements).toEqual([
      { Action: 'states:StartExecution', Effect: 'Allow', Resource: { Ref: ids.machine } },
      {
        Action: 's3:GetObject',
        Effect: 'Allow',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.bucket, 'Arn'] }, '/*']] },
      },
      { Action: 's3:ListBucket', Effect: 'Allow', Resource: { 'Fn::GetAtt': [ids.bucket, 'Arn'] } },
    ]);
  });
});

describe('monitoring and outputs', () => {
  const alarm = (description: string): Json => {
    const found = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter(
      (a) => a.Properties.AlarmDescription === description,
    );
    if (found.length !== 1) throw new Error(`${found.length} alarms described "${description}"`);
    return (found[0] as Json).Properties;
  };
  const topic = { Ref: Object.keys(template.findResources('AWS::SNS::Topic'))[0] };

  it('alarms on the topic at the first failed or timed-out execution and the first writer error in 5 minutes', () => {
    const common = {
      Threshold: 1,
      Period: 300,
      Statistic: 'Sum',
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic],
      OKActions: [topic],
    };
    const byStateMachine = [{ Name: 'StateMachineArn', Value: { Ref: stateMachineId } }];
    expect(alarm('Publishing workflow: failed executions')).toMatchObject({
      ...common,
      Namespace: 'AWS/States',
      MetricName: 'ExecutionsFailed',
      Dimensions: byStateMachine,
    });
    expect(alarm('Publishing workflow: timed-out executions')).toMatchObject({
      ...common,
      Namespace: 'AWS/States',
      MetricName: 'ExecutionsTimedOut',
      Dimensions: byStateMachine,
    });
    expect(alarm('Publishing workflow: failed invocations of the writer')).toMatchObject({
      ...common,
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: stepId('release-write') } }],
    });
  });

  it('has a dashboard row: executions started/succeeded/failed/timed out, the writer’s errors and duration', () => {
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as Json;
    const body = (dashboard.Properties.DashboardBody['Fn::Join'][1] as unknown[])
      .map((part) => (typeof part === 'string' ? part : '<ref>'))
      .join('');
    const widgets = JSON.parse(body).widgets as { properties: { title?: string; metrics?: unknown[][] } }[];
    const metricsOf = (title: string) =>
      widgets.find((w) => w.properties.title === title)?.properties.metrics ?? [];
    expect(metricsOf('Release executions').map((m) => m[1])).toEqual([
      'ExecutionsStarted',
      'ExecutionsSucceeded',
      'ExecutionsFailed',
      'ExecutionsTimedOut',
    ]);
    expect(metricsOf('Writer: invocations and errors').map((m) => m[1])).toEqual([
      'Invocations',
      'Errors',
      'Throttles',
    ]);
    expect(metricsOf('Writer: duration (ms)').map((m) => (m.at(-1) as { stat: string }).stat)).toEqual([
      'p50',
      'p99',
    ]);
  });

  it('outputs the bucket name and the state machine ARN', () => {
    expect(template.findOutputs('DocumentsBucketName').DocumentsBucketName?.Value).toEqual({ Ref: bucketId });
    expect(template.findOutputs('ReleaseStateMachineArn').ReleaseStateMachineArn?.Value).toEqual({
      Ref: stateMachineId,
    });
  });
});
