import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { FUNCTIONS, ROUTES } from '../../functions/routes';
import { CommerceStack } from '../../infra/commerce-stack';
import { applyNagSuppressions, NAG_ACKNOWLEDGEMENTS } from '../../infra/nag-suppressions';

/** Bundling is skipped in tests: the assertions are about resources and grants, not bundles. */
function synthStack(): { stack: CommerceStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new CommerceStack(app, 'Test');
  return { stack, template: Template.fromStack(stack) };
}

const { stack, template } = synthStack();

function logicalId(construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as never);
}

describe('tables', () => {
  it('creates exactly four on-demand, encrypted, PITR, retained tables keyed by pk/sk', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 4);
    const tables = template.findResources('AWS::DynamoDB::Table');
    for (const table of Object.values(tables)) {
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true });
      expect(table.Properties.KeySchema).toEqual([
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ]);
    }
  });

  it('enables TTL on the keys table (tokens) and the limits table (rate-limit windows) only', () => {
    const withTtl = Object.entries(template.findResources('AWS::DynamoDB::Table')).filter(
      ([, table]) => table.Properties.TimeToLiveSpecification,
    );
    expect(withTtl.map(([id]) => id).sort()).toEqual(
      [logicalId(stack.tables.keys as never), logicalId(stack.tables.limits as never)].sort(),
    );
    for (const [, table] of withTtl) {
      expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    }
  });
});

describe('functions', () => {
  it('creates one arm64 nodejs22.x function per operation in the route table, with tracing and JSON logs', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(Object.keys(FUNCTIONS).length);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON' });
      expect(fn.Properties.MemorySize).toBe(256);
    }
  });

  it('gives every function an explicit log group with retention', () => {
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    // one per function plus the API access log group
    expect(groups).toHaveLength(Object.keys(FUNCTIONS).length + 1);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it.each(Object.entries(FUNCTIONS))(
    'grants %s only the tables it uses, with the access it needs',
    (name, definition) => {
      const fn = stack.functions[name];
      if (!fn) throw new Error(`no function ${name}`);
      const roleId = stack.getLogicalId(fn.role?.node.defaultChild as never);
      const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
        (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
      );
      const statements = policies.flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as Record<string, any>[],
      );
      const dynamoStatements = statements.filter((s) =>
        [s.Action].flat().some((a: string) => a.startsWith('dynamodb:')),
      );
      const tableIds = new Set(
        dynamoStatements.flatMap((s) =>
          [s.Resource]
            .flat()
            .map((r: any) => (r['Fn::GetAtt'] ?? r['Fn::Join']?.[1]?.[0]?.['Fn::GetAtt'])?.[0]),
        ),
      );
      const expected = Object.keys(definition.tables).map((role) =>
        logicalId(stack.tables[role as keyof typeof stack.tables] as never),
      );
      expect([...tableIds].sort()).toEqual(expected.sort());
      const writes = [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
      ];
      // Per table: write actions exactly where the route table says readwrite.
      for (const [role, access] of Object.entries(definition.tables)) {
        const tableId = logicalId(stack.tables[role as keyof typeof stack.tables] as never);
        const actions = new Set(
          dynamoStatements
            .filter((s) =>
              [s.Resource]
                .flat()
                .some(
                  (r: any) => (r['Fn::GetAtt'] ?? r['Fn::Join']?.[1]?.[0]?.['Fn::GetAtt'])?.[0] === tableId,
                ),
            )
            .flatMap((s) => [s.Action].flat() as string[]),
        );
        expect(actions.has('dynamodb:GetItem')).toBe(true);
        for (const write of writes) expect(actions.has(write)).toBe(access === 'readwrite');
      }
      const env = fn.node.defaultChild as never;
      const properties = template.toJSON().Resources[stack.getLogicalId(env)].Properties;
      const envNames = Object.keys(properties.Environment.Variables).filter((v) => v.endsWith('_TABLE'));
      expect(envNames.sort()).toEqual(
        Object.keys(definition.tables)
          .map((role) => `${role.toUpperCase()}_TABLE`)
          .sort(),
      );
    },
  );
});

describe('rate limits', () => {
  it('lets every function write the limits table (its shared windows) and gives it the table name', () => {
    for (const [name, definition] of Object.entries(FUNCTIONS)) {
      expect([name, (definition.tables as Record<string, string>).limits]).toEqual([name, 'readwrite']);
      const fn = stack.functions[name];
      const properties = template.toJSON().Resources[logicalId(fn as never)].Properties;
      expect(properties.Environment.Variables.LIMITS_TABLE).toEqual({
        Ref: logicalId(stack.tables.limits as never),
      });
    }
  });

  it('keeps read-only functions read-only on the data tables', () => {
    expect(FUNCTIONS['list-child-products'].tables).toEqual({
      keys: 'read',
      products: 'read',
      limits: 'readwrite',
    });
    expect(FUNCTIONS['list-application-keys'].tables).toEqual({ keys: 'read', limits: 'readwrite' });
  });
});

describe('HTTP API', () => {
  it('routes every entry of the route table to its function', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', ROUTES.length);
    for (const route of ROUTES) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${route.method} ${route.path}`,
      });
    }
  });

  it('has a throttled, access-logged, auto-deployed $default stage and outputs the URL', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 1000, ThrottlingRateLimit: 500 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    template.hasOutput('ApiUrl', Match.anyValue());
  });
});

describe('cdk-nag AwsSolutions', () => {
  function synthWithNag(skip?: string): void {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const nagged = new CommerceStack(app, 'Nagged');
    for (const ack of NAG_ACKNOWLEDGEMENTS) if (ack.id !== skip) Validations.of(nagged).acknowledge(ack);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    app.synth();
  }

  it('passes with the justified acknowledgements', () => {
    expect(() => synthWithNag()).not.toThrow();
    expect(typeof applyNagSuppressions).toBe('function');
  });

  it.each(NAG_ACKNOWLEDGEMENTS.map((ack) => ack.id))('needs the acknowledgement %s (none is dead)', (id) => {
    expect(() => synthWithNag(id)).toThrow(`Acknowledge with '${id}'`);
  });
});
