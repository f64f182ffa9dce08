import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FunctionError, FunctionRuntime } from '../../local/template/runtime';
import { handlerEntry, readTemplateApi, TemplateError } from '../../local/template/template';

/** The function the fake assembly deploys: echoes its environment, fails or hangs on request. */
const BUNDLE = `
let invocations = 0;
const startedAt = Date.now();
export const handler = async (event, context) => {
  invocations += 1;
  if (event.rawPath === '/throw') throw new Error('boom');
  if (event.rawPath === '/hang') await new Promise(() => {});
  if (event.rawPath === '/logged') console.log(JSON.stringify({ message: 'handled', path: event.rawPath }));
  const deliveries = globalThis[Symbol.for('commerce-api.local-delivery-queue')];
  if (event.rawPath === '/emit' && deliveries) {
    deliveries.send('{"event":"one"}');
    deliveries.delay('message-1#1', 42);
  }
  return {
    statusCode: 200,
    body: JSON.stringify({ env: process.env, invocations, startedAt, requestId: context.awsRequestId,
      remaining: context.getRemainingTimeInMillis(), deliveries: deliveries !== undefined }),
  };
};
`;

type Json = Record<string, unknown>;

function assembly(overrides: { env?: Json; payload?: string; timeout?: number } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'assembly-'));
  mkdirSync(join(dir, 'asset.abc'));
  writeFileSync(join(dir, 'asset.abc', 'index.mjs'), BUNDLE);
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      artifacts: {
        Shop: { type: 'aws:cloudformation:stack', properties: { templateFile: 'Shop.template.json' } },
      },
    }),
  );
  const resources: Record<string, Json> = {
    KeysTable1A2B: { Type: 'AWS::DynamoDB::Table', Metadata: { 'aws:cdk:path': 'Shop/KeysTable/Resource' } },
    ListThings9F: {
      Type: 'AWS::Lambda::Function',
      Metadata: { 'aws:cdk:path': 'Shop/ListThings/Resource', 'aws:asset:path': 'asset.abc' },
      Properties: {
        Handler: 'index.handler',
        Timeout: overrides.timeout ?? 10,
        MemorySize: 256,
        Environment: {
          Variables: overrides.env ?? { LOG_LEVEL: 'info', KEYS_TABLE: { Ref: 'KeysTable1A2B' } },
        },
      },
    },
    ListThingsIntegration: {
      Type: 'AWS::ApiGatewayV2::Integration',
      Properties: {
        IntegrationType: 'AWS_PROXY',
        IntegrationUri: { 'Fn::GetAtt': ['ListThings9F', 'Arn'] },
        PayloadFormatVersion: overrides.payload ?? '2.0',
      },
    },
    ListThingsRoute: {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: {
        RouteKey: 'GET /things/{id}',
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'ListThingsIntegration' }]] },
      },
    },
  };
  writeFileSync(join(dir, 'Shop.template.json'), JSON.stringify({ Resources: resources }));
  return dir;
}

const event = (rawPath: string) => ({ rawPath }) as APIGatewayProxyEventV2;
const dirs: string[] = [];
const runtimes: FunctionRuntime[] = [];
afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function read(overrides: Parameters<typeof assembly>[0] = {}) {
  const dir = assembly(overrides);
  dirs.push(dir);
  return { dir, api: readTemplateApi(dir, { KeysTable: 'local-keys' }) };
}
function runtimeOf(
  api: ReturnType<typeof read>['api'],
  options: ConstructorParameters<typeof FunctionRuntime>[3] = {},
): FunctionRuntime {
  const fn = api.functions.get('list-things');
  if (!fn) throw new Error('no function');
  const runtime = new FunctionRuntime(fn, { AWS_REGION: 'eu-west-1' }, 'stdout', options);
  runtimes.push(runtime);
  return runtime;
}

describe('readTemplateApi', () => {
  it('takes routes from the route resources and each function from its integration, with its bundle, handler and environment', () => {
    const { dir, api } = read();
    expect(api.stackName).toBe('Shop');
    expect(api.routes).toEqual([{ method: 'GET', path: '/things/{id}', function: 'list-things' }]);
    const fn = api.functions.get('list-things');
    expect(fn).toEqual({
      name: 'list-things',
      logicalId: 'ListThings9F',
      codeDir: join(dir, 'asset.abc'),
      handler: 'index.handler',
      environment: { LOG_LEVEL: 'info', KEYS_TABLE: 'local-keys' },
      timeoutSeconds: 10,
      memoryMb: 256,
    });
    expect(handlerEntry(fn as never)).toEqual({
      file: join(dir, 'asset.abc', 'index.mjs'),
      exportName: 'handler',
    });
  });

  it('refuses an environment value it cannot resolve locally, naming the function and variable', () => {
    expect(() => read({ env: { OTHER: { 'Fn::GetAtt': ['X', 'Arn'] } } })).toThrow(
      'list-things: environment variable OTHER has a value the local API cannot resolve',
    );
    expect(() => read({ env: { KEYS_TABLE: { Ref: 'Nowhere' } } })).toThrow(TemplateError);
  });

  it('refuses an integration that is not a payload 2.0 Lambda proxy', () => {
    expect(() => read({ payload: '1.0' })).toThrow('is not a Lambda proxy integration with payload 2.0');
  });

  it('says when there is no assembly', () => {
    expect(() => readTemplateApi(join(tmpdir(), 'no-such-assembly'), {})).toThrow('manifest.json not found');
  });
});

describe('FunctionRuntime', () => {
  it('imports the bundle once (one cold start) and keeps it warm, with only the template and runtime variables', async () => {
    const runtime = runtimeOf(read().api);
    const first = JSON.parse(String((await runtime.invoke(event('/a'), 'req-1')).body));
    const second = JSON.parse(String((await runtime.invoke(event('/b'), 'req-2')).body));
    expect(runtime.coldStarts).toBe(1);
    expect(second.invocations).toBe(2);
    expect(second.startedAt).toBe(first.startedAt);
    expect(first.requestId).toBe('req-1');
    expect(first.remaining).toBeGreaterThan(9000);
    expect(first.env).toEqual({
      LOG_LEVEL: 'info',
      KEYS_TABLE: 'local-keys',
      AWS_LAMBDA_FUNCTION_NAME: 'list-things',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_REGION: 'eu-west-1',
    });
  });

  it("starts a function whose template sets per-process node options (the layer's --use-openssl-ca), without them", async () => {
    const runtime = runtimeOf(
      read({
        env: {
          LOG_LEVEL: 'info',
          KEYS_TABLE: { Ref: 'KeysTable1A2B' },
          NODE_OPTIONS: '--use-openssl-ca',
          SSL_CERT_DIR: '/opt/root-certificates',
        },
      }).api,
    );
    const answer = JSON.parse(String((await runtime.invoke(event('/a'), 'req-1')).body));
    expect(answer.env.NODE_OPTIONS).toBeUndefined();
    expect(answer.env.SSL_CERT_DIR).toBe('/opt/root-certificates');
  });

  it('writes the function’s log lines before the invocation resolves', async () => {
    const runtime = runtimeOf(read().api);
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof write;
    try {
      await runtime.invoke(event('/logged'), 'req-3');
    } finally {
      process.stdout.write = write;
    }
    expect(written.join('')).toContain('{"message":"handled","path":"/logged"}');
  });

  it('rejects with a FunctionError when the handler throws, and stays warm', async () => {
    const runtime = runtimeOf(read().api);
    await expect(runtime.invoke(event('/throw'), 'req-4')).rejects.toThrow('list-things: Error: boom');
    await expect(runtime.invoke(event('/ok'), 'req-5')).resolves.toMatchObject({ statusCode: 200 });
    expect(runtime.coldStarts).toBe(1);
  });

  it('times out after the template’s Timeout and starts a fresh environment for the next invocation', async () => {
    const runtime = runtimeOf(read({ timeout: 1 }).api);
    await expect(runtime.invoke(event('/hang'), 'req-6')).rejects.toThrow(
      new FunctionError('list-things: Task timed out after 1.00 seconds'),
    );
    const body = JSON.parse(String((await runtime.invoke(event('/ok'), 'req-7')).body));
    expect(body.invocations).toBe(1);
    expect(runtime.coldStarts).toBe(2);
  });

  it('hands the deliveries queue what the function sends and delays, before the invocation resolves', async () => {
    const calls: unknown[][] = [];
    const runtime = runtimeOf(read().api, {
      deliveries: {
        send: (body) => void calls.push(['send', body]),
        delay: (receiptHandle, ms) => void calls.push(['delay', receiptHandle, ms]),
      },
    });
    const result = await runtime.invoke(event('/emit'), 'req-8');
    expect(JSON.parse(String(result.body)).deliveries).toBe(true);
    expect(calls).toEqual([
      ['send', '{"event":"one"}'],
      ['delay', 'message-1#1', 42],
    ]);
  });

  it('registers no deliveries queue for a function given none (it then finds none, as with no queue URL)', async () => {
    const result = await runtimeOf(read().api).invoke(event('/emit'), 'req-9');
    expect(JSON.parse(String(result.body)).deliveries).toBe(false);
  });
});
