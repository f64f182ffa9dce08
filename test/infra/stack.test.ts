import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { apiCorsConfiguration, FUNCTIONS, ROUTES } from '../../functions/routes';
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
  it('creates exactly three on-demand, encrypted, PITR, retained tables keyed by pk/sk', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 3);
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

  it('enables TTL on the keys table only (tokens expire)', () => {
    const withTtl = Object.entries(template.findResources('AWS::DynamoDB::Table')).filter(
      ([, table]) => table.Properties.TimeToLiveSpecification,
    );
    expect(withTtl.map(([id]) => id)).toEqual([logicalId(stack.tables.keys as never)]);
    expect(withTtl[0]?.[1].Properties.TimeToLiveSpecification).toEqual({
      AttributeName: 'ttl',
      Enabled: true,
    });
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
      const actions = new Set(dynamoStatements.flatMap((s) => [s.Action].flat() as string[]));
      const writes = [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
      ];
      const readOnly = Object.values(definition.tables).every((access) => access === 'read');
      for (const write of writes) expect(actions.has(write)).toBe(!readOnly);
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

describe('CORS (corsPreflight)', () => {
  const corsOf = (t: Template) =>
    Object.values(t.findResources('AWS::ApiGatewayV2::Api'))[0]?.Properties.CorsConfiguration;

  it('lets browsers on any origin call it, with the headers listed explicitly and none of credentials', () => {
    expect(corsOf(template)).toEqual({
      AllowOrigins: ['*'],
      AllowMethods: ['POST', 'GET', 'PUT', 'DELETE'],
      AllowHeaders: [
        'Authorization',
        'Content-Type',
        'Accept-Language',
        'X-Moltin-SDK-Language',
        'X-Moltin-SDK-Version',
        'X-Moltin-Application',
        'X-Moltin-Currency',
        'X-Moltin-Language',
        'X-Moltin-Auth-Store',
        'X-Moltin-Customer-Token',
        'SVC-Channel',
        'SVC-Context-Tag',
        'EP-Channel',
        'EP-Context-Tag',
        'EP-Currency',
      ],
      ExposeHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
      MaxAge: 3600,
    });
  });

  it('is exactly the configuration the local server uses (one source)', () => {
    const cors = apiCorsConfiguration(['*']);
    expect(corsOf(template)).toEqual({
      AllowOrigins: cors.allowOrigins,
      AllowMethods: cors.allowMethods,
      AllowHeaders: cors.allowHeaders,
      ExposeHeaders: cors.exposeHeaders,
      MaxAge: cors.maxAgeSeconds,
    });
  });

  it('takes the origins from the corsOrigins context value or the stack property', () => {
    const fromContext = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        corsOrigins: 'https://shop.example.com, http://localhost:5173',
      },
    });
    const contextTemplate = Template.fromStack(new CommerceStack(fromContext, 'Ctx'));
    expect(corsOf(contextTemplate).AllowOrigins).toEqual([
      'https://shop.example.com',
      'http://localhost:5173',
    ]);
    const fromProps = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const propsTemplate = Template.fromStack(
      new CommerceStack(fromProps, 'Props', { corsOrigins: ['https://*'] }),
    );
    expect(corsOf(propsTemplate).AllowOrigins).toEqual(['https://*']);
  });

  it('refuses a corsOrigins entry that is not an origin', () => {
    const app = new App({
      context: { 'aws:cdk:bundling-stacks': [], corsOrigins: 'https://shop.example.com/path' },
    });
    expect(() => new CommerceStack(app, 'Bad')).toThrow(
      /corsOrigins: "https:\/\/shop.example.com\/path" is not an origin/,
    );
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
