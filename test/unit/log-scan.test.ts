import { createServer, request as httpRequest, type Server } from 'node:http';
import type * as LogModule from '../../lib/http/log';
import {
  captureOutput,
  checkCapture,
  findLeaks,
  isServiceLog,
  type Scan,
  SecretRegistry,
  tapFetch,
  tapServer,
} from '../support/log-scan';

const TOKEN =
  '0190a0c0-0000-7000-8000-000000000001.0190a0c0-0000-7000-8000-000000000003.QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo';
const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I';

/** A logger built at debug level in a fresh module registry (the shared one is silent in tests). */
function debugLogger(): typeof LogModule {
  const saved = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'debug';
  try {
    let module: typeof LogModule | undefined;
    jest.isolateModules(() => {
      module = require('../../lib/http/log');
    });
    if (!module) throw new Error('not loaded');
    return module;
  } finally {
    process.env.LOG_LEVEL = saved;
  }
}

function emptyScan(): Scan {
  return { registry: new SecretRegistry(), served: [] };
}

describe('SecretRegistry', () => {
  it('registers Authorization values whole and after the scheme, ignoring short ones', () => {
    const registry = new SecretRegistry();
    registry.addAuthorization(`Bearer ${TOKEN}`);
    registry.addAuthorization('Bearer x');
    registry.addAuthorization(undefined);
    expect([...registry.secrets.keys()]).toEqual([`Bearer ${TOKEN}`, TOKEN, 'Bearer x']);
  });

  it('registers client_secret and access_token fields of JSON bodies at any depth, and of forms', () => {
    const registry = new SecretRegistry();
    registry.addFromBody(JSON.stringify({ data: { id: 'k1', client_secret: SECRET } }), 'application/json');
    registry.addFromBody(JSON.stringify({ access_token: TOKEN, token_type: 'Bearer' }), 'application/json');
    registry.addFromBody(`grant_type=client_credentials&client_id=abc&client_secret=${SECRET}x`);
    registry.addFromBody('<html>not json</html>', 'text/html');
    expect(Object.fromEntries(registry.secrets)).toEqual({
      [SECRET]: 'client_secret',
      [TOKEN]: 'access_token',
      [`${SECRET}x`]: 'client_secret',
    });
  });
});

describe('findLeaks', () => {
  const registry = new SecretRegistry();
  registry.add(TOKEN, 'access_token');
  registry.add(SECRET, 'client_secret');

  it('finds a planted token in captured output, without printing it', () => {
    const output = `{"level":"INFO","message":"fine"}\n{"level":"DEBUG","message":"oops","token":"${TOKEN}"}\n`;
    const leaks = findLeaks(output, registry);
    expect(leaks).toEqual([
      { kind: 'access_token', excerpt: '{"level":"DEBUG","message":"oops","token":"[access_token]"}' },
    ]);
    expect(JSON.stringify(leaks)).not.toContain(TOKEN);
  });

  it('finds JSON-escaped and URL-encoded spellings', () => {
    const quoted = new SecretRegistry();
    quoted.add('a"b/c+d=e&f', 'client_secret');
    expect(findLeaks(JSON.stringify({ s: 'a"b/c+d=e&f' }), quoted)).toHaveLength(1);
    expect(findLeaks(`body=${encodeURIComponent('a"b/c+d=e&f')}`, quoted)).toHaveLength(1);
  });

  it('finds nothing in clean output', () => {
    expect(findLeaks('{"level":"INFO","message":"request completed","status":200}\n', registry)).toEqual([]);
  });
});

describe('checkCapture', () => {
  const served = [{ requestId: 'r-1', routeKey: 'GET /v2/application-keys', status: 200 }];
  const access = (fields: Record<string, unknown>) =>
    `${JSON.stringify({ service: 'commerce-api', message: 'request completed', ...fields })}\n`;

  it('passes an access line for every served request and no secret', () => {
    const output = access({ function_request_id: 'r-1', route: 'GET /v2/application-keys', status: 200 });
    expect(checkCapture(output, { registry: new SecretRegistry(), served })).toEqual([]);
  });

  it('fails an empty capture when requests were served (it cannot pass vacuously)', () => {
    expect(checkCapture('', { registry: new SecretRegistry(), served })).toEqual([
      'the local API answered 1 requests but no log line was captured',
      'no access line {route: GET /v2/application-keys, status: 200} for request r-1',
    ]);
  });

  it('fails a line of a request without its route, and an access line with the wrong status', () => {
    const output =
      `${JSON.stringify({ service: 'commerce-api', message: 'x', function_request_id: 'r-1' })}\n` +
      access({ function_request_id: 'r-1', route: 'GET /v2/application-keys', status: 500 });
    expect(checkCapture(output, { registry: new SecretRegistry(), served })).toEqual([
      'no access line {route: GET /v2/application-keys, status: 200} for request r-1',
      'a log line of request r-1 does not carry its route GET /v2/application-keys',
    ]);
  });

  it('wants no access line for a rate-limited 429 (the refusal log counts it), and fails one that has it', () => {
    const limited = [{ requestId: 'r-2', routeKey: 'GET /catalog', status: 429, rateLimited: true }];
    const refusal = `${JSON.stringify({ service: 'commerce-api', message: 'rate limited', count: 40 })}\n`;
    expect(checkCapture(refusal, { registry: new SecretRegistry(), served: limited })).toEqual([]);
    const output = refusal + access({ function_request_id: 'r-2', route: 'GET /catalog', status: 429 });
    expect(checkCapture(output, { registry: new SecretRegistry(), served: limited })).toEqual([
      'an access line for rate-limited request r-2: refusals are logged as counts',
    ]);
  });

  it('fails on a secret the real logger wrote into the captured output', () => {
    const log = debugLogger();
    const scan = emptyScan();
    scan.registry.addAuthorization(`Bearer ${TOKEN}`);
    const capture = captureOutput(() => false);
    try {
      log.log('debug', 'an unsafe line', { authorization: `Bearer ${TOKEN}` });
    } finally {
      capture.stop();
    }
    expect(capture.text()).toContain(TOKEN);
    const problems = checkCapture(capture.text(), scan);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(
      /^a authorization value appears in the output: .*"authorization":"\[authorization\]"/,
    );
    expect(problems.join('\n')).not.toContain(TOKEN);
  });
});

describe('captureOutput', () => {
  it('captures stdout, stderr and console, and writes through only what passThrough allows', () => {
    // Both streams stubbed: what passes through is recorded, not printed into the test run's output.
    const written: string[] = [];
    const writtenToStderr: string[] = [];
    const realWrite = process.stdout.write;
    const realStderrWrite = process.stderr.write;
    process.stdout.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      writtenToStderr.push(Buffer.from(chunk).toString());
      return true;
    }) as typeof process.stderr.write;
    try {
      const consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      const capture = captureOutput((chunk) => !isServiceLog(chunk));
      process.stdout.write('plain text\n');
      process.stdout.write('{"service":"commerce-api","message":"hidden"}\n');
      process.stderr.write(Buffer.from('to stderr\n'));
      console.log('from %s', 'console');
      capture.stop();
      expect(consoleLog).toHaveBeenCalledWith('from %s', 'console');
      consoleLog.mockRestore();
      expect(capture.text()).toBe(
        'plain text\n{"service":"commerce-api","message":"hidden"}\nto stderr\nfrom console\n',
      );
    } finally {
      process.stdout.write = realWrite;
      process.stderr.write = realStderrWrite;
    }
    expect(written).toEqual(['plain text\n']);
    expect(writtenToStderr).toEqual(['to stderr\n']);
  });
});

describe('taps', () => {
  let server: Server;
  let base: string;
  const scan = emptyScan();

  beforeAll(async () => {
    server = createServer((req, res) => {
      // Like the local server: an await before the body is read must not lose the body.
      void (async () => {
        await new Promise((done) => setTimeout(done, 5));
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks).toString();
        res.writeHead(200, { 'Content-Type': 'application/json', 'apigw-requestid': 'req-1' });
        res.end(JSON.stringify({ echoed: body.length, access_token: TOKEN }));
      })();
    });
    tapServer(server, scan);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('the server tap registers Authorization, request body and response body secrets without eating the body', async () => {
    const body = `grant_type=client_credentials&client_id=abc&client_secret=${SECRET}`;
    const answer = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        `${base}/v2/application-keys`,
        {
          method: 'POST',
          headers: {
            authorization: 'Basic dXNlcjpwYXNzd29yZA==',
            'content-type': 'application/x-www-form-urlencoded',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(JSON.parse(answer).echoed).toBe(body.length);
    expect(Object.fromEntries(scan.registry.secrets)).toEqual({
      'Basic dXNlcjpwYXNzd29yZA==': 'authorization',
      'dXNlcjpwYXNzd29yZA==': 'authorization',
      [SECRET]: 'client_secret',
      [TOKEN]: 'access_token',
    });
    expect(scan.served).toEqual([{ requestId: 'req-1', routeKey: 'POST /v2/application-keys', status: 200 }]);
  });

  it('the fetch tap registers what crosses fetch', async () => {
    const fetchScan = emptyScan();
    const fetch = tapFetch(globalThis.fetch, fetchScan);
    const response = await fetch(`${base}/anything`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}x`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_secret: `${SECRET}y` }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ access_token: TOKEN });
    expect(Object.fromEntries(fetchScan.registry.secrets)).toEqual({
      [`Bearer ${TOKEN}x`]: 'authorization',
      [`${TOKEN}x`]: 'authorization',
      [`${SECRET}y`]: 'client_secret',
      [TOKEN]: 'access_token',
    });
  });
});
