import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { createTestStore } from '../support/fixtures';

// Each case spawns the CLI (tsx compiles it first): seconds on a loaded 2-core machine.
jest.setTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), 'event-cli-'));

describe('npm run event', () => {
  it('prints a payload 2.0 event routed with the route table', () => {
    const run = runCli(
      'event',
      'PUT',
      '/v2/merchant-realm-mappings/abc?x=1',
      '--header',
      'Authorization: Bearer t',
      '--body',
      '{"data":{}}',
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(
      'route: PUT /v2/merchant-realm-mappings/{mapping_id} -> function update-merchant-realm-mapping',
    );
    const event = JSON.parse(run.stdout);
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
      rawPath: '/v2/merchant-realm-mappings/abc',
      rawQueryString: 'x=1',
      queryStringParameters: { x: '1' },
      pathParameters: { mapping_id: 'abc' },
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"data":{}}',
      requestContext: { http: { method: 'PUT', path: '/v2/merchant-realm-mappings/abc' } },
    });
  });

  it('refuses a body that is not JSON', () => {
    const run = runCli('event', 'POST', '/oauth/access_token', '--body', '{nope');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--body must be valid JSON');
  });
});

describe('npm run invoke', () => {
  it('runs a function once with an event file and prints its result', async () => {
    const store = await createTestStore();
    const made = runCli(
      'event',
      'POST',
      '/oauth/access_token',
      '--body',
      JSON.stringify({ grant_type: 'implicit', client_id: store.clientId }),
    );
    const file = join(dir, 'token-event.json');
    writeFileSync(file, made.stdout);
    const run = runCli('invoke', 'create-access-token', '--event', file);
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ token_type: 'Bearer', identifier: 'implicit' });
  });

  it('prints the function’s log lines on stderr, keeping stdout for the result', async () => {
    const store = await createTestStore();
    const made = runCli(
      'event',
      'POST',
      '/oauth/access_token',
      '--body',
      JSON.stringify({
        grant_type: 'client_credentials',
        client_id: store.clientId,
        client_secret: store.clientSecret,
      }),
    );
    const file = join(dir, 'logged-token-event.json');
    writeFileSync(file, made.stdout);
    const saved = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'debug';
    const run = (() => {
      try {
        return runCli('invoke', 'create-access-token', '--event', file);
      } finally {
        process.env.LOG_LEVEL = saved;
      }
    })();
    expect(run.status).toBe(0);
    const token = JSON.parse(JSON.parse(run.stdout).body).access_token as string;
    const access = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .find((line) => line.message === 'request completed');
    expect(access).toMatchObject({
      route: 'POST /oauth/access_token',
      status: 200,
      function_request_id: expect.any(String),
    });
    expect(run.stderr).not.toContain(store.clientSecret);
    expect(run.stderr).not.toContain(token);
  });

  it.each<[string, unknown, string]>([
    ['null', null, 'it must be a JSON object, got null'],
    ['an array', [1], 'it must be a JSON object, got an array'],
    ['an empty object', {}, 'version must be "2.0", got undefined'],
    ['a numeric body', { body: 5 }, 'body must be a string, got number'],
    ['headers that are not an object', { headers: 'x' }, 'headers must be an object of strings'],
    ['a header that is not a string', { headers: { a: 1 } }, 'headers.a must be a string, got number'],
    ['no requestContext', { requestContext: undefined }, 'requestContext must be an object'],
    [
      'no method',
      { requestContext: { requestId: 'r', http: { path: '/', sourceIp: '127.0.0.1' } } },
      'requestContext.http.method must be a string, got undefined',
    ],
  ])(
    'refuses an event that API Gateway would never send (%s): what is wrong, exit 2, nothing run',
    (_case, change, problem) => {
      const made = JSON.parse(runCli('event', 'POST', '/oauth/access_token', '--body', '{}').stdout);
      const event =
        change === null || Array.isArray(change) || Object.keys(change as object).length === 0
          ? change
          : { ...made, ...(change as object) };
      const file = join(dir, 'malformed-event.json');
      writeFileSync(file, JSON.stringify(event));
      const run = runCli('invoke', 'create-access-token', '--event', file);
      expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
        status: 2,
        stdout: '',
        stderr: `invoke: ${file} is not an API Gateway HTTP API event (payload 2.0): ${problem}; \`npm run event -- METHOD PATH\` prints one (see --help)\n`,
      });
    },
  );

  it('names the functions it knows when given another', () => {
    const run = runCli('invoke', 'no-such-function', '--event', 'x.json');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("unknown function 'no-such-function'");
    expect(run.stderr).toContain('list-child-products');
  });
});

describe('CLI flags of npm start and npm run invoke', () => {
  it('refuse an unknown flag with exit 2 and print usage on --help', () => {
    const start = runCli('start', '--nope');
    expect(start.status).toBe(2);
    expect(start.stderr).toContain("Unknown option '--nope'");
    const help = runCli('start', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--from-template');
    const invoke = runCli('invoke', 'create-access-token', '--event', 'x.json', '--nope');
    expect(invoke.status).toBe(2);
    expect(runCli('invoke', '--help').stdout).toContain('--from-template');
  });
});
