import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DELIVERY_WORKER } from '../../functions/integrations';
import { JOB_WORKER } from '../../functions/jobs';
import { apiCorsConfiguration, FUNCTIONS, ROUTES } from '../../functions/routes';
import { WORKFLOW_STEPS } from '../../functions/workflow';
import { CommerceStack, routesByPart } from '../../infra/commerce-stack';
import { CONTEXT_KEYS, stackPropsFromContext } from '../../infra/context';
import { applyNagSuppressions, nagAcknowledgements } from '../../infra/nag-suppressions';
import { ROOT_CERTIFICATES_ENV } from '../../infra/root-certificates';
import { TABLE_ROLES } from '../../lib/store/schema';
import { flatTemplate, logicalIdOf } from '../support/stack-template';

/** Bundling is skipped in tests: the assertions are about resources and grants, not bundles. */
function synthStack(): { stack: CommerceStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new CommerceStack(app, 'Test');
  return { stack, template: flatTemplate(stack) };
}

const { stack, template } = synthStack();

function logicalId(construct: { node: { defaultChild?: unknown } }): string {
  return logicalIdOf(construct.node.defaultChild as never);
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

  it('enables TTL on the keys (tokens), products (webhook logs) and limits (rate-limit windows) tables only', () => {
    const withTtl = Object.entries(template.findResources('AWS::DynamoDB::Table')).filter(
      ([, table]) => table.Properties.TimeToLiveSpecification,
    );
    expect(withTtl.map(([id]) => id).sort()).toEqual(
      [
        logicalId(stack.tables.keys as never),
        logicalId(stack.tables.products as never),
        logicalId(stack.tables.limits as never),
      ].sort(),
    );
    for (const [, table] of withTtl) {
      expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    }
  });
});

describe('parts of the API (nested stacks)', () => {
  const templates = [stack, ...Object.values(stack.parts)].map((of) => ({
    path: of.node.path,
    count: Object.keys(Template.fromStack(of).toJSON().Resources).length,
  }));

  it('keeps every template well under CloudFormation’s 500 resources a stack', () => {
    for (const { path, count } of templates) expect([path, count < 400]).toEqual([path, true]);
    expect(templates.reduce((sum, { count }) => sum + count, 0)).toBeGreaterThan(500);
  });

  it('has one nested stack per OpenAPI tag, holding exactly the functions and routes of that tag', () => {
    expect(Object.keys(stack.parts).sort()).toEqual([...routesByPart(ROUTES).keys()].sort());
    for (const [part, routes] of routesByPart(ROUTES)) {
      const nested = stack.parts[part];
      if (!nested) throw new Error(`no part ${part}`);
      expect(Object.keys(nested.functions).sort()).toEqual(
        [...new Set(routes.map((r) => r.function))].sort(),
      );
      const keys = Object.values(Template.fromStack(nested).findResources('AWS::ApiGatewayV2::Route')).map(
        (route) => route.Properties.RouteKey,
      );
      expect(keys.sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
    }
  });
});

describe('functions', () => {
  it('creates one arm64 nodejs22.x function per operation in the route table, with tracing and JSON logs', () => {
    const all = template.findResources('AWS::Lambda::Function');
    // and one per publishing workflow step (test/infra/publishing.test.ts)
    // and the jobs queue's worker (test/infra/jobs.test.ts) and the webhook deliveries' (integrations.test.ts)
    expect(Object.keys(all)).toHaveLength(
      Object.keys(FUNCTIONS).length +
        Object.keys(WORKFLOW_STEPS).length +
        [JOB_WORKER, DELIVERY_WORKER].length,
    );
    expect(Object.keys(stack.functions).sort()).toEqual(Object.keys(FUNCTIONS).sort());
    for (const apiFunction of Object.values(stack.functions)) {
      const fn = all[logicalId(apiFunction as never)] as { Properties: Record<string, unknown> };
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON' });
      expect(fn.Properties.MemorySize).toBe(256);
    }
  });

  it('gives every function the layer of root certificates and the environment that reads it lazily', () => {
    const layers = template.findResources('AWS::Lambda::LayerVersion');
    const ours = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties?.Environment?.Variables?.LOG_LEVEL !== undefined,
    );
    expect(ours).toHaveLength(
      Object.keys(FUNCTIONS).length +
        Object.keys(WORKFLOW_STEPS).length +
        [JOB_WORKER, DELIVERY_WORKER].length,
    );
    for (const fn of ours) {
      expect(fn.Properties.Environment.Variables).toMatchObject(ROOT_CERTIFICATES_ENV);
      expect(fn.Properties.Layers).toHaveLength(1);
      const [layer] = fn.Properties.Layers as { Ref: string }[];
      expect(Object.keys(layers)).toContain(layer?.Ref);
    }
    // One layer, in the top stack, for arm64 nodejs22.x.
    expect(Object.keys(layers)).toHaveLength(1);
    expect(Object.keys(Template.fromStack(stack).findResources('AWS::Lambda::LayerVersion'))).toHaveLength(1);
    for (const layer of Object.values(layers)) {
      expect(layer.Properties.CompatibleRuntimes).toEqual(['nodejs22.x']);
      expect(layer.Properties.CompatibleArchitectures).toEqual(['arm64']);
    }
  });

  it('gives every function an explicit log group with retention', () => {
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    // one per function (operations and workflow steps), the API access log group and the state machine's
    expect(groups).toHaveLength(
      Object.keys(FUNCTIONS).length +
        Object.keys(WORKFLOW_STEPS).length +
        [JOB_WORKER, DELIVERY_WORKER].length +
        2,
    );
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it.each(Object.entries(FUNCTIONS))(
    'grants %s only the tables it uses, with the access it needs',
    (name, definition) => {
      const fn = stack.functions[name];
      if (!fn) throw new Error(`no function ${name}`);
      const roleId = logicalIdOf(fn.role?.node.defaultChild as never);
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
      const properties = template.toJSON().Resources[logicalIdOf(env)].Properties;
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
    for (const name of ['get-catalog', 'get-catalog-product', 'list-catalog-products'] as const) {
      expect(FUNCTIONS[name]).toMatchObject({
        auth: 'any',
        tables: { keys: 'read', products: 'read', limits: 'readwrite' },
      });
    }
  });
});

describe('HTTP API', () => {
  it('has the storefront product reads, each its own function', () => {
    for (const key of ['GET /catalog', 'GET /catalog/products', 'GET /catalog/products/{product_id}']) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: key });
    }
    expect(
      ROUTES.filter((route) => route.path.startsWith('/catalog')).map((route) => route.function),
    ).toEqual(expect.arrayContaining(['get-catalog', 'get-catalog-product', 'list-catalog-products']));
  });

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
    const contextTemplate = flatTemplate(new CommerceStack(fromContext, 'Ctx'));
    expect(corsOf(contextTemplate).AllowOrigins).toEqual([
      'https://shop.example.com',
      'http://localhost:5173',
    ]);
    const fromProps = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const propsTemplate = flatTemplate(new CommerceStack(fromProps, 'Props', { corsOrigins: ['https://*'] }));
    expect(corsOf(propsTemplate).AllowOrigins).toEqual(['https://*']);
  });

  it('has every function answer Vary: Origin when the origins are listed, and none with *', () => {
    // The API's functions: the workflow's steps answer Step Functions, not browsers.
    const varyOf = (template: Template) =>
      Object.entries(template.findResources('AWS::Lambda::Function'))
        .filter(
          ([id, fn]) =>
            fn.Properties?.Environment?.Variables?.LOG_LEVEL !== undefined &&
            !id.startsWith('Publishing') &&
            !id.startsWith('Jobs') &&
            !id.startsWith('Integrations'),
        )
        .map(([, fn]) => fn.Properties.Environment.Variables.CORS_VARY ?? null);
    const listed = new App({
      context: { 'aws:cdk:bundling-stacks': [], corsOrigins: 'https://shop.example.com' },
    });
    const listedVary = varyOf(flatTemplate(new CommerceStack(listed, 'Listed')));
    expect(listedVary.length).toBe(Object.keys(FUNCTIONS).length);
    expect(new Set(listedVary)).toEqual(new Set(['Origin']));
    const open = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(new Set(varyOf(flatTemplate(new CommerceStack(open, 'Open'))))).toEqual(new Set([null]));
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
  const deployed = { account: '123456789012', region: 'eu-west-1' };

  /** Synthesizes with cdk-nag, acknowledging all but the `skip`th finding (ids name the stack: skip by index). */
  function synthWithNag(skip?: number, env?: typeof deployed): void {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const nagged = new CommerceStack(app, 'Nagged', env ? { env } : {});
    for (const [index, ack] of nagAcknowledgements(nagged).entries())
      if (index !== skip) Validations.of(nagged).acknowledge(ack);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    app.synth();
  }

  it('passes with the justified acknowledgements', () => {
    expect(() => synthWithNag()).not.toThrow();
    expect(typeof applyNagSuppressions).toBe('function');
  });

  it('passes for a stack with an account and a region, whose findings name them', () => {
    expect(() => synthWithNag(undefined, deployed)).not.toThrow();
    const ids = nagAcknowledgements(
      new CommerceStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Deployed', {
        env: deployed,
      }),
    ).map((a) => a.id);
    // The child executions, and the two Distributed Maps’ redrives (ReleaseDerive, ReleaseWrite).
    expect(ids.filter((id) => id.includes(':states:eu-west-1:123456789012:execution:'))).toHaveLength(3);
  });

  it.each(nagAcknowledgements(stack).map((ack, index) => [ack.id, index] as const))(
    'needs the acknowledgement %s (none is dead)',
    (_id, index) => {
      const id = nagAcknowledgements(
        new CommerceStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Nagged'),
      )[index]?.id;
      expect(() => synthWithNag(index)).toThrow(`Acknowledge with '${id}'`);
    },
  );
});

describe('alarms and dashboard', () => {
  type Resource = { Properties: Record<string, any> };
  const alarms = (t: Template = template) =>
    Object.values(t.findResources('AWS::CloudWatch::Alarm')) as Resource[];
  const alarmFor = (description: string, t: Template = template): Record<string, any> => {
    const found = alarms(t).filter((a) => a.Properties.AlarmDescription === description);
    if (found.length !== 1) throw new Error(`${found.length} alarms described "${description}"`);
    return (found[0] as Resource).Properties;
  };
  const topicId = () => Object.keys(template.findResources('AWS::SNS::Topic'))[0];

  it('has one KMS-encrypted SNS topic that every alarm notifies on alarm and on recovery, without a subscriber by default', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const functions = Object.keys(FUNCTIONS).length;
    // per function 3, the API 2, per table 2, rate limiting 1, the publishing workflow 3
    // ... the jobs queue 3 (dead letters, worker errors, jobs not queued) and the webhook deliveries 3
    // (dead letters, delivery function errors, events not queued)
    expect(alarms()).toHaveLength(functions * 3 + 2 + TABLE_ROLES.length * 2 + 1 + 3 + 3 + 3);
    for (const alarm of alarms()) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.Properties.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  it.each(Object.keys(FUNCTIONS))(
    'alarms on %s: errors >= 1, throttles >= 1, p99 duration >= 3000 ms per 5 minutes',
    (name) => {
      const fnId = logicalId(stack.functions[name] as never);
      const errors = alarmFor(`${name}: failed invocations`);
      expect(errors).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
      });
      expect(alarmFor(`${name}: throttled invocations`)).toMatchObject({
        MetricName: 'Throttles',
        Threshold: 1,
      });
      expect(alarmFor(`${name}: p99 duration (ms)`)).toMatchObject({
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Threshold: 3000,
      });
    },
  );

  it('alarms on the API: 5xx rate >= 1 % of requests and p99 latency >= 2000 ms on the $default stage', () => {
    const rate = alarmFor('API: 5xx responses as a percentage of requests');
    expect(rate.Threshold).toBe(1);
    const byId = Object.fromEntries(rate.Metrics.map((m: any) => [m.Id, m]));
    expect(byId.expr_1?.Expression ?? rate.Metrics.find((m: any) => m.Expression)?.Expression).toBe(
      '100 * errors / MAX([requests, 1])',
    );
    expect(byId.errors.MetricStat).toMatchObject({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5xx' },
      Stat: 'Sum',
      Period: 300,
    });
    expect(byId.requests.MetricStat.Metric.MetricName).toBe('Count');
    expect(byId.errors.MetricStat.Metric.Dimensions).toEqual([
      { Name: 'ApiId', Value: { Ref: Object.keys(template.findResources('AWS::ApiGatewayV2::Api'))[0] } },
      { Name: 'Stage', Value: '$default' },
    ]);
    expect(alarmFor('API: p99 latency (ms)')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: 2000,
    });
  });

  it.each(['keys', 'mappings', 'products'])(
    'alarms on the %s table: throttled requests >= 1 and system errors >= 1',
    (role) => {
      const tableId = logicalId(stack.tables[role as keyof typeof stack.tables] as never);
      for (const [description, metricName] of [
        [`${role} table: throttled requests`, 'ThrottledRequests'],
        [`${role} table: DynamoDB system errors`, 'SystemErrors'],
      ] as const) {
        const alarm = alarmFor(description);
        expect(alarm.Threshold).toBe(1);
        const stats = alarm.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
        expect(stats.length).toBeGreaterThanOrEqual(5);
        for (const metric of stats) {
          expect(metric).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metricName });
          expect(metric.Dimensions).toContainEqual({ Name: 'TableName', Value: { Ref: tableId } });
        }
      }
    },
  );

  it('alarms on 429s from our own RateLimitedRequests metric (namespace CommerceApi, service dimension) at 100 per 5 minutes', () => {
    expect(alarmFor('Requests refused with 429 by the stores’ rate limits')).toMatchObject({
      Namespace: 'CommerceApi',
      MetricName: 'RateLimitedRequests',
      Dimensions: [{ Name: 'service', Value: 'commerce-api' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 100,
    });
  });

  it('takes thresholds and the alarm e-mail from the stack props', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const custom = flatTemplate(
      new CommerceStack(app, 'Custom', {
        alarmEmail: 'ops@example.com',
        alarmThresholds: { apiP99LatencyMs: 800, functionP99DurationMs: 1500, rateLimitedRequests: 5 },
      }),
    );
    custom.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    expect(alarmFor('API: p99 latency (ms)', custom).Threshold).toBe(800);
    expect(alarmFor('list-child-products: p99 duration (ms)', custom).Threshold).toBe(1500);
    expect(alarmFor('Requests refused with 429 by the stores’ rate limits', custom).Threshold).toBe(5);
    expect(alarmFor('API: 5xx responses as a percentage of requests', custom).Threshold).toBe(1);
  });

  it('has one dashboard with requests, latency p50/p99 and 4xx/5xx for every route, from route-level metrics', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: Match.objectLike({ DetailedMetricsEnabled: true }),
    });
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as Resource;
    const body = (dashboard.Properties.DashboardBody['Fn::Join'][1] as unknown[])
      .map((part) => (typeof part === 'string' ? part : '<ref>'))
      .join('');
    const widgets = JSON.parse(body).widgets as { properties: { title?: string; metrics?: unknown[][] } }[];
    for (const route of ROUTES) {
      const title = `${route.method} ${route.path}`;
      const metricsOf = (suffix: string) =>
        widgets.find((w) => w.properties.title === `${title}: ${suffix}`)?.properties.metrics ?? [];
      const requests = metricsOf('requests');
      expect(requests).toHaveLength(1);
      expect(requests[0]).toEqual(
        expect.arrayContaining(['AWS/ApiGateway', 'Count', 'Method', route.method, 'Resource', route.path]),
      );
      const latency = metricsOf('latency (ms)');
      expect(latency.map((m) => (m.at(-1) as { stat: string }).stat)).toEqual(['p50', 'p99']);
      const errors = metricsOf('errors');
      expect(errors.map((m) => m[1])).toEqual(['4xx', '5xx']);
    }
    template.hasOutput('DashboardName', Match.anyValue());
    template.hasOutput('AlarmTopicArn', Match.anyValue());
    // CloudWatch takes at most 500 widgets a dashboard: three a route, so about 160 routes in all.
    expect(widgets.length).toBeLessThanOrEqual(500);
  });
});

describe('the products table’s warm throughput', () => {
  const tablesOf = (props: ConstructorParameters<typeof CommerceStack>[2]) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const own = new CommerceStack(app, 'Warm', props);
    const resources = flatTemplate(own).findResources('AWS::DynamoDB::Table');
    const products = logicalIdOf(own.tables.products.node.defaultChild as never);
    return { resources, products };
  };

  it('is none by default (billed: an operator’s choice)', () => {
    for (const table of Object.values(template.findResources('AWS::DynamoDB::Table'))) {
      expect(table.Properties.WarmThroughput).toBeUndefined();
    }
  });

  it('warms the products table alone to productsWarmWrites write units a second', () => {
    const { resources, products } = tablesOf({ productsWarmWrites: 40_000 });
    for (const [id, table] of Object.entries(resources)) {
      expect([id, table.Properties.WarmThroughput]).toEqual([
        id,
        id === products ? { WriteUnitsPerSecond: 40_000 } : undefined,
      ]);
    }
  });

  it('refuses less than an on-demand table serves new, or a fraction', () => {
    expect(() => tablesOf({ productsWarmWrites: 3999 })).toThrow(
      'productsWarmWrites must be a whole number of write units a second, at least 4000, got 3999',
    );
    expect(() => tablesOf({ productsWarmWrites: 4000.5 })).toThrow('at least 4000');
  });
});

describe('stack settings from cdk context', () => {
  const from = (context: Record<string, unknown>) => stackPropsFromContext((key) => context[key]);

  it('reads the alarm e-mail, the throttles and any alarm threshold', () => {
    expect(
      from({ alarmEmail: 'ops@example.com', throttleRateLimit: '50', alarmApiP99LatencyMs: '900' }),
    ).toEqual({
      alarmEmail: 'ops@example.com',
      throttle: { rateLimit: 50, burstLimit: 1000 },
      alarmThresholds: { apiP99LatencyMs: 900 },
    });
    expect(from({})).toEqual({});
    expect(from({ productsWarmWrites: '40000' })).toEqual({ productsWarmWrites: 40_000 });
  });

  it('refuses a malformed value instead of deploying a default', () => {
    expect(() => from({ alarmEmail: 'not-an-address' })).toThrow(
      'context alarmEmail must be an e-mail address',
    );
    expect(() => from({ throttleBurstLimit: 'lots' })).toThrow(
      'context throttleBurstLimit must be a number >= 0',
    );
  });

  it('refuses a key of ours it does not know, naming the nearest, and leaves CDK keys alone', () => {
    const withKeys = (context: Record<string, unknown>) =>
      stackPropsFromContext((key) => context[key], Object.keys(context));
    expect(() => withKeys({ alarmApiP99Latency: '1500' })).toThrow(
      'unknown context key alarmApiP99Latency: did you mean alarmApiP99LatencyMs?',
    );
    expect(() => withKeys({ throtleRateLimit: '5' })).toThrow(
      'unknown context key throtleRateLimit: did you mean throttleRateLimit?',
    );
    expect(() => withKeys({ productWarmWrites: '40000' })).toThrow(
      'unknown context key productWarmWrites: did you mean productsWarmWrites?',
    );
    expect(() => withKeys({ corsOrigin: 'https://a.example' })).toThrow(
      'unknown context key corsOrigin: did you mean corsOrigins?',
    );
    expect(
      withKeys({
        alarmApiP99LatencyMs: '1500',
        corsOrigins: 'https://a.example',
        '@aws-cdk/core:checkSecretUsage': true,
        'aws:cdk:enable-path-metadata': true,
        'availability-zones:account=1:region=eu-west-1': ['a'],
        'acknowledged-issue-numbers': [1],
      }),
    ).toEqual({ alarmThresholds: { apiP99LatencyMs: 1500 } });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'an unknown key',
      { alarmApiP99Latency: '1500' },
      `unknown context key alarmApiP99Latency: did you mean alarmApiP99LatencyMs?\n(known keys: ${CONTEXT_KEYS.join(', ')})`,
    ],
    [
      'a number that is not one',
      { throttleRateLimit: 'fast' },
      'context throttleRateLimit must be a number >= 0, got "fast"',
    ],
    [
      'an e-mail address that is not one',
      { alarmEmail: 'ops' },
      'context alarmEmail must be an e-mail address, got "ops"',
    ],
    [
      'an origin with a path',
      { corsOrigins: 'https://shop.example/x' },
      'corsOrigins: "https://shop.example/x" is not an origin; use *, https://*, http://* or scheme://host[:port] (no path), comma-separated',
    ],
    [
      'a fraction of a write unit',
      { productsWarmWrites: '12000.5' },
      'productsWarmWrites must be a whole number of write units a second, at least 4000, got 12000.5',
    ],
  ])(
    'the real app refuses %s given with -c: the message alone, no stack trace, exit 1',
    (_case, context, message) => {
      // As cdk.json runs it.
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
        cwd: join(__dirname, '../..'),
        env: {
          ...process.env,
          CDK_CONTEXT_JSON: JSON.stringify(context),
          CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'cdk-context-')),
        },
        encoding: 'utf8',
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 1, stderr: `${message}\n` });
    },
    120_000,
  );
});

describe('docs/deploy.md matches the stack', () => {
  const runbook = readFileSync(join(__dirname, '../../docs/deploy.md'), 'utf8');
  const outputs = Object.keys(template.findOutputs('*'));
  const tables = Object.keys(template.findResources('AWS::DynamoDB::Table'));

  it('lists every output, and its eval snippet exports every table name output', () => {
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) expect(runbook).toContain(`\`${output}\``);
    const snippet = runbook.slice(
      runbook.indexOf('eval "$(node -e'),
      runbook.indexOf('\')"', runbook.indexOf('eval "$(node -e')),
    );
    for (const output of outputs.filter((name) => name.endsWith('TableName'))) {
      const variable = `${output.replace(/TableName$/, '').toUpperCase()}_TABLE`;
      expect(snippet).toContain(`${variable}=\${o.${output}}`);
    }
  });

  it('says how many tables are kept, lists the AWS CLI it uses, and never hard-codes the stack name', () => {
    const count = ['zero', 'one', 'two', 'three', 'four', 'five'][tables.length];
    expect(runbook).toContain(`**The ${count} tables are kept**`);
    expect(runbook).toMatch(/^- The AWS CLI v2 /m);
    expect(runbook).not.toMatch(/--stack-name [A-Za-z]/);
    expect(runbook).toContain('--stack-name "$STACK_NAME"');
  });
});
