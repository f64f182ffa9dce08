import { request, type Server } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  closeServer,
  createGatewayServer,
  exceedsLambdaResponseLimit,
  GATEWAY_INTEGRATION_TIMEOUT_MS,
  LAMBDA_MAX_RESPONSE_BYTES,
  lambdaResponseBytes,
  listen,
} from '../../local/gateway';

/**
 * The platform's limits at the local gateway, which fronts all three local servers (in-process, dev, template):
 * API Gateway's 10 MB request (413) and 30 s integration timeout (503), Lambda's 6 MB response (500), each
 * answered with API Gateway's own body, so nothing passes locally that AWS would refuse.
 */

type Behaviour = () => Promise<APIGatewayProxyStructuredResultV2>;

let server: Server | undefined;
let stderr: jest.SpyInstance;

beforeEach(() => {
  stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(async () => {
  stderr.mockRestore();
  if (server) await closeServer(server);
  server = undefined;
});

async function gateway(behaviour: Behaviour, integrationTimeoutMs?: number): Promise<string> {
  server = createGatewayServer<Behaviour>({
    routes: [{ method: 'POST', path: '/echo', target: behaviour }],
    invoke: (target) => target(),
    describeError: (error) => String(error),
    ...(integrationTimeoutMs === undefined ? {} : { integrationTimeoutMs }),
  });
  return `http://127.0.0.1:${await listen(server, 0)}`;
}

const ok = (body: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json' },
  body,
});

/** A JSON body whose Lambda response (the serialized result object) takes exactly `bytes` bytes. */
function responseOf(bytes: number): APIGatewayProxyStructuredResultV2 {
  const overhead = lambdaResponseBytes(ok('{"a":""}'));
  return ok(`{"a":"${'x'.repeat(bytes - overhead)}"}`);
}

describe('Lambda response limit (6 MB)', () => {
  it('passes a response of exactly 6,291,556 bytes and refuses one byte more with 500 as API Gateway does', async () => {
    const atLimit = responseOf(LAMBDA_MAX_RESPONSE_BYTES);
    expect(lambdaResponseBytes(atLimit)).toBe(LAMBDA_MAX_RESPONSE_BYTES);
    const overLimit = responseOf(LAMBDA_MAX_RESPONSE_BYTES + 1);
    expect(exceedsLambdaResponseLimit(atLimit)).toBe(false);
    expect(exceedsLambdaResponseLimit(overLimit)).toBe(true);

    const within = await fetch(`${await gateway(async () => atLimit)}/echo`, { method: 'POST' });
    expect(within.status).toBe(200);
    expect((await within.text()).length).toBe(atLimit.body?.length);
    await closeServer(server as Server);

    const over = await fetch(`${await gateway(async () => overLimit)}/echo`, { method: 'POST' });
    expect(over.status).toBe(500);
    expect(over.headers.get('content-type')).toBe('application/json');
    expect(await over.text()).toBe('{"message":"Internal Server Error"}');
    expect(String(stderr.mock.calls.at(-1)?.[0])).toContain(
      `returned ${LAMBDA_MAX_RESPONSE_BYTES + 1} bytes, over Lambda's ${LAMBDA_MAX_RESPONSE_BYTES}-byte response limit`,
    );
  });

  it('measures the response as serialized: quotes double, control characters take six bytes each', () => {
    // Quotes double in JSON; control characters take six bytes: the check measures the serialized object.
    const quotes = ok('"'.repeat(1_200_000));
    expect(lambdaResponseBytes(quotes)).toBeGreaterThan(2_400_000);
    expect(exceedsLambdaResponseLimit(quotes)).toBe(false);
    const controls = ok('\u0001'.repeat(1_100_000));
    expect(lambdaResponseBytes(controls)).toBeGreaterThan(6_600_000);
    expect(exceedsLambdaResponseLimit(controls)).toBe(true);
  });
});

describe('integration timeout (30 s)', () => {
  it("is API Gateway's 30 s by default", () => {
    expect(GATEWAY_INTEGRATION_TIMEOUT_MS).toBe(30_000);
  });

  it('answers 503 {"message":"Service Unavailable"} when the function has not answered in time', async () => {
    let finish: (() => void) | undefined;
    const slow: Behaviour = () =>
      new Promise((resolve) => {
        finish = () => resolve(ok('{"late":true}'));
      });
    const response = await fetch(`${await gateway(slow, 200)}/echo`, { method: 'POST' });
    expect(response.status).toBe(503);
    expect(await response.text()).toBe('{"message":"Service Unavailable"}');
    // The function was still running: its late answer goes nowhere and breaks nothing.
    expect(finish).toBeDefined();
    finish?.();
  });

  it('passes an answer that comes before the timeout', async () => {
    const quick: Behaviour = async () => ok('{"quick":true}');
    const response = await fetch(`${await gateway(quick, 5_000)}/echo`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ quick: true });
  });
});

describe('request limit (10 MB)', () => {
  it('refuses a body over 10 MB with 413 {"message":"Request Entity Too Large"} before the function runs', async () => {
    let invoked = false;
    const base = await gateway(async () => {
      invoked = true;
      return ok('{}');
    });
    const response = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: 'x'.repeat(10 * 1024 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    expect(await response.text()).toBe('{"message":"Request Entity Too Large"}');
    expect(invoked).toBe(false);
  });

  it('counts a chunked body (no Content-Length) too: 413 over 10 MB, passed whole under it', async () => {
    const seen: (string | undefined)[] = [];
    server = createGatewayServer<string>({
      routes: [{ method: 'POST', path: '/echo', target: 'echo' }],
      invoke: async (_target, event) => {
        seen.push(event.body);
        return ok('{}');
      },
      describeError: (error) => String(error),
    });
    const port = await listen(server, 0);
    const chunked = (chunks: string[]) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/echo',
            method: 'POST',
            headers: { 'content-type': 'text/plain' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    expect(await chunked(['abc', 'def'])).toBe(200);
    expect(seen).toEqual(['abcdef']);
    const mb = 'x'.repeat(1024 * 1024);
    expect(await chunked([...Array(10).fill(mb), 'x'])).toBe(413);
    expect(seen).toHaveLength(1);
  });

  it('gives a request without a body (no Content-Length, no Transfer-Encoding) no body', async () => {
    const bodies: (string | undefined)[] = [];
    server = createGatewayServer<string>({
      routes: [{ method: 'GET', path: '/echo', target: 'echo' }],
      invoke: async (_target, event) => {
        bodies.push(event.body);
        return ok('{}');
      },
      describeError: (error) => String(error),
    });
    const response = await fetch(`http://127.0.0.1:${await listen(server, 0)}/echo`);
    expect(response.status).toBe(200);
    expect(bodies).toEqual([undefined]);
  });
});
