import type { Context } from 'aws-lambda';
import type * as MiddlewareModule from '../../functions/create-handler';
import type * as LogModule from '../../lib/http/log';
import { errorFields, redact, requestSecrets } from '../../lib/http/log';
import { ok } from '../../lib/http/response';
import { createHttpEvent, createLambdaContext, type HttpEventInput } from '../../local/http-event';
import { captureOutput } from '../support/log-scan';

type Env = Record<string, string | undefined>;

/** A fresh copy of the logger and middleware, built with `env` (the logger reads its level at init). */
function load(env: Env): { log: typeof LogModule; middleware: typeof MiddlewareModule } {
  const saved: Env = {};
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  try {
    let modules: { log: typeof LogModule; middleware: typeof MiddlewareModule } | undefined;
    jest.isolateModules(() => {
      modules = { log: require('../../lib/http/log'), middleware: require('../../functions/create-handler') };
    });
    if (!modules) throw new Error('modules not loaded');
    return modules;
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Runs `action` and returns the JSON lines it wrote (nothing reaches the terminal). */
async function linesOf(action: () => unknown): Promise<Record<string, any>[]> {
  const capture = captureOutput(() => false);
  try {
    await action();
  } finally {
    capture.stop();
  }
  return capture
    .text()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

const DEBUG: Env = { LOG_LEVEL: 'debug', POWERTOOLS_LOG_LEVEL: undefined, AWS_LAMBDA_LOG_LEVEL: undefined };
const TOKEN = 'store.key.c2VjcmV0LXRva2VuLXZhbHVlLWZvci10aGUtdGVzdA';
const CLIENT_SECRET = 'client-secret-value-for-the-test-0123456789';

/** An event as API Gateway sends it (the middleware stack adds `parsedBody` and `auth`). */
function request(overrides: Partial<HttpEventInput> = {}): any {
  return createHttpEvent({ method: 'GET', path: '/echo', routeKey: 'GET /echo', ...overrides });
}

describe('the logger', () => {
  it('writes one JSON object per line with level, message, timestamp and service', async () => {
    const { log } = load(DEBUG);
    const lines = await linesOf(() => log.log('info', 'hello', { answer: 42 }));
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: 'hello',
        service: 'commerce-api',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        answer: 42,
      }),
    ]);
  });

  it.each([
    ['LOG_LEVEL', { LOG_LEVEL: 'warn', POWERTOOLS_LOG_LEVEL: undefined }, ['warn', 'error']],
    ['LOG_LEVEL in capitals', { LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: undefined }, ['error']],
    [
      'POWERTOOLS_LOG_LEVEL over LOG_LEVEL',
      { LOG_LEVEL: 'error', POWERTOOLS_LOG_LEVEL: 'debug' },
      ['debug', 'info', 'warn', 'error'],
    ],
    ['info by default', { LOG_LEVEL: undefined, POWERTOOLS_LOG_LEVEL: undefined }, ['info', 'warn', 'error']],
    ['silent', { LOG_LEVEL: 'silent', POWERTOOLS_LOG_LEVEL: undefined }, []],
  ])('takes its level from %s', async (_case, env, expected) => {
    const { log } = load({ AWS_LAMBDA_LOG_LEVEL: undefined, ...env });
    const lines = await linesOf(() => {
      for (const level of ['debug', 'info', 'warn', 'error'] as const) log.log(level, level);
    });
    expect(lines.map((line) => line.message)).toEqual(expected);
  });
});

describe('the logger, as Lambda runs it', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    delete process.env._X_AMZN_TRACE_ID;
  });

  it("never goes below the function's Lambda log level (Advanced Logging Controls)", async () => {
    const { log } = load({ ...DEBUG, AWS_LAMBDA_LOG_LEVEL: 'WARN' });
    const lines = await linesOf(() => {
      for (const level of ['debug', 'info', 'warn', 'error'] as const) log.log(level, level);
    });
    expect(lines.map((line) => line.message)).toEqual(['warn', 'error']);
  });

  it('writes warn and error on stderr, debug and info on stdout', () => {
    const { log } = load(DEBUG);
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    for (const level of ['debug', 'info', 'warn', 'error'] as const) log.log(level, level);
    const messages = (spy: typeof out) => spy.mock.calls.map(([line]) => JSON.parse(String(line)).message);
    expect(messages(out)).toEqual(['debug', 'info']);
    expect(messages(err)).toEqual(['warn', 'error']);
  });

  it("adds the request's X-Ray trace id, and writes any value without throwing", async () => {
    const { log } = load(DEBUG);
    process.env._X_AMZN_TRACE_ID =
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1';
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    const [line] = await linesOf(() =>
      log.log('info', 'odd values', { circular, big: 12n, error: new RangeError('out of range') }),
    );
    expect(line).toMatchObject({
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      circular: { name: 'loop', self: '[Circular]' },
      big: '12',
      error: { name: 'RangeError', message: 'out of range', stack: expect.stringContaining('RangeError') },
    });
  });
});

describe('request logging in createHandler', () => {
  function handlerWith(middleware: typeof MiddlewareModule, log: typeof LogModule) {
    return middleware.buildHandler('echo-op', { auth: 'none', body: 'json-or-form' }, {}, async (event) => {
      log.log('debug', 'inside the handler');
      if (event.queryStringParameters?.fail === 'crash') {
        throw new TypeError(
          `crashed with ${event.headers.authorization} and ${JSON.stringify(event.parsedBody)}`,
        );
      }
      return ok({ fine: true });
    });
  }

  it('puts the request id, route and function name on every line, plus one access line', async () => {
    const { log, middleware } = load(DEBUG);
    const handler = handlerWith(middleware, log);
    const context: Context = createLambdaContext('echo-function', 'request-1');
    const event = request({
      path: '/echo?page[limit]=5&client_secret=query-secret-value',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-custom': 'header-value' },
      requestId: 'gateway-1',
    });
    const lines = await linesOf(() => handler(event, context));
    expect(lines.map((line) => line.message)).toEqual([
      'request started',
      'inside the handler',
      'request completed',
    ]);
    for (const line of lines) {
      expect(line).toMatchObject({
        service: 'commerce-api',
        function_name: 'echo-function',
        function_request_id: 'request-1',
        route: 'GET /echo',
        operation: 'echo-op',
      });
    }
    expect(lines[2]).toEqual(
      expect.objectContaining({
        level: 'INFO',
        method: 'GET',
        status: 200,
        duration_ms: expect.any(Number),
        apigw_request_id: 'gateway-1',
      }),
    );
    const text = JSON.stringify(lines);
    for (const never of [TOKEN, 'header-value', 'query-secret-value', 'page[limit]', 'x-custom', '"fine"']) {
      expect(text).not.toContain(never);
    }
  });

  it('at info writes no debug line and never builds one (a level lookup, no line)', async () => {
    const { log, middleware } = load({ ...DEBUG, LOG_LEVEL: 'info' });
    expect(log.debugEnabled()).toBe(false);
    const debug = jest.spyOn(log.logger, 'debug');
    const handler = handlerWith(middleware, log);
    const lines = await linesOf(() =>
      handler(request({ path: '/echo' }), createLambdaContext('echo-function', 'r-2')),
    );
    expect(lines.map((line) => line.message)).toEqual(['request completed']);
    expect(debug).not.toHaveBeenCalled();
    expect(load(DEBUG).log.debugEnabled()).toBe(true);
  });

  it('marks each function’s first invocation cold_start (on-demand containers), and none after', async () => {
    const { log, middleware } = load({ ...DEBUG, AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' });
    const first = handlerWith(middleware, log);
    const second = middleware.buildHandler('other-op', { auth: 'none', body: 'json-or-form' }, {}, async () =>
      ok({}),
    );
    const coldOf = async (handler: typeof first, id: string) =>
      (await linesOf(() => handler(request(), createLambdaContext('f', id)))).at(-1)?.cold_start;
    expect(await coldOf(first, 'a')).toBe(true);
    expect(await coldOf(first, 'b')).toBe(false);
    // Another function served by the same process (the local server): its own first invocation.
    expect(await coldOf(second, 'c')).toBe(true);
    expect(await coldOf(second, 'd')).toBe(false);
  });

  it('never marks cold_start in a container that was not started on demand (provisioned concurrency)', async () => {
    const { log, middleware } = load({ ...DEBUG, AWS_LAMBDA_INITIALIZATION_TYPE: 'provisioned-concurrency' });
    const handler = handlerWith(middleware, log);
    const lines = await linesOf(() => handler(request(), createLambdaContext('f', 'a')));
    expect(lines.at(-1)?.cold_start).toBe(false);
  });

  it('does not carry one request’s keys into the next or outside a request', async () => {
    const { log, middleware } = load(DEBUG);
    const handler = handlerWith(middleware, log);
    const lines = await linesOf(async () => {
      await handler(request({ routeKey: 'GET /first' }), createLambdaContext('f', 'request-1'));
      log.log('info', 'between requests');
      await handler(request({ routeKey: 'GET /second' }), createLambdaContext('f', 'request-2'));
    });
    const between = lines.find((line) => line.message === 'between requests');
    expect(between).not.toHaveProperty('route');
    expect(between).not.toHaveProperty('operation');
    const second = lines.filter((line) => line.function_request_id === 'request-2');
    expect(second).toHaveLength(3);
    expect(second.every((line) => line.route === 'GET /second')).toBe(true);
  });

  it('logs a 5xx with the error name, message and stack, credentials redacted', async () => {
    const { log, middleware } = load(DEBUG);
    const handler = handlerWith(middleware, log);
    const event = request({
      method: 'POST',
      path: '/echo?fail=crash',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'abc', client_secret: CLIENT_SECRET }),
    });
    let status = 0;
    const lines = await linesOf(async () => {
      status = (await handler(event, createLambdaContext('f', 'request-9'))).statusCode;
    });
    expect(status).toBe(500);
    const failed = lines.find((line) => line.message === 'request failed');
    expect(failed).toMatchObject({
      level: 'ERROR',
      status: 500,
      route: 'GET /echo',
      function_request_id: 'request-9',
      error: {
        name: 'TypeError',
        message: expect.stringContaining('crashed with [REDACTED] and'),
        stack: expect.stringContaining('TypeError: crashed with [REDACTED]'),
      },
    });
    expect(lines.at(-1)).toMatchObject({ message: 'request completed', status: 500 });
    const text = JSON.stringify(lines);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(CLIENT_SECRET);
  });

  it('logs a 4xx only as its access line', async () => {
    const { log, middleware } = load(DEBUG);
    const handler = handlerWith(middleware, log);
    const event = request({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' });
    const lines = await linesOf(() => handler(event, createLambdaContext('f', 'request-4')));
    expect(lines.filter((line) => line.level === 'ERROR')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({
      message: 'request completed',
      status: 400,
      function_request_id: 'request-4',
    });
  });

  it('never logs the event, even with POWERTOOLS_LOGGER_LOG_EVENT=true', async () => {
    const { log, middleware } = load({ ...DEBUG, POWERTOOLS_LOGGER_LOG_EVENT: 'true' });
    const handler = handlerWith(middleware, log);
    const event = request({ headers: { authorization: `Bearer ${TOKEN}` } });
    const lines = await linesOf(() => handler(event, createLambdaContext('f', 'request-5')));
    expect(lines.map((line) => line.message)).not.toContain('Lambda invocation event');
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});

describe('redaction helpers', () => {
  it('finds the Authorization value (whole and credential) and a body client_secret', () => {
    expect(
      requestSecrets({ Authorization: `Bearer ${TOKEN}`, other: 'x' }, { client_secret: CLIENT_SECRET }),
    ).toEqual([`Bearer ${TOKEN}`, TOKEN, CLIENT_SECRET]);
    expect(requestSecrets(undefined, undefined)).toEqual([]);
  });

  it('redacts every occurrence and ignores values too short to be credentials', () => {
    expect(redact(`a ${TOKEN} b ${TOKEN}`, [TOKEN])).toBe('a [REDACTED] b [REDACTED]');
    expect(redact('Bearer x', ['x', undefined])).toBe('Bearer x');
  });

  it('describes errors and non-errors', () => {
    expect(errorFields(new RangeError(`bad ${TOKEN}`), [TOKEN])).toMatchObject({
      name: 'RangeError',
      message: 'bad [REDACTED]',
      stack: expect.stringContaining('RangeError: bad [REDACTED]'),
    });
    expect(errorFields('plain')).toEqual({ name: 'string', message: 'plain' });
  });
});
