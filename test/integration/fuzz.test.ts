import { ROUTES } from '../../functions/routes';
import type { FuzzRequest } from '../../fuzz/arbitraries';
import { fuzzRoute, fuzzTargets, isValidErrorBody, runCase, seedFuzzWorld } from '../../fuzz/properties';
import { CATALOG, type FuzzWorld } from '../../fuzz/world';
import { runScriptAsync } from '../support/cli';

/** The properties of `npm run fuzz` on a sample: 300 cases per route, with the run's default seed. */
const CASES = 300;
const SEED = 7;

let world: FuzzWorld;

beforeAll(async () => {
  world = await seedFuzzWorld();
}, 60000);

// Releases created by the cases are published in this process: the file ends once every one is done.
afterAll(async () => {
  await world?.settle();
}, 60000);

describe('isValidErrorBody (the JSON error body of docs/errors.md)', () => {
  const JSON_TYPE = { 'Content-Type': 'application/json' };
  const entry = { status: '404', title: 'Not Found', detail: 'No such key', request_id: 'req-1' };
  const body = (...errors: unknown[]) => JSON.stringify({ errors });

  it('accepts the error shape, with or without source, with a charset parameter', () => {
    expect(isValidErrorBody(404, JSON_TYPE, body(entry))).toBe(true);
    expect(isValidErrorBody(404, { 'content-type': 'application/json; charset=utf-8' }, body(entry))).toBe(
      true,
    );
    expect(
      isValidErrorBody(
        400,
        JSON_TYPE,
        body({ ...entry, status: '400', title: 'Bad Request', source: 'filter' }),
      ),
    ).toBe(true);
  });

  it.each<[string, number, Record<string, string>, string | undefined]>([
    ['a text content type', 404, { 'Content-Type': 'text/plain' }, body(entry)],
    ['no content type', 404, {}, body(entry)],
    ['no body', 404, JSON_TYPE, undefined],
    ['a body that is not JSON', 404, JSON_TYPE, 'Not Found'],
    ["API Gateway's own 404 body", 404, JSON_TYPE, '{"message":"Not Found"}'],
    ['an empty errors array', 404, JSON_TYPE, body()],
    ['a status that is not the response status', 400, JSON_TYPE, body(entry)],
    ['a numeric status', 404, JSON_TYPE, body({ ...entry, status: 404 })],
    ['a title that is not the status title', 404, JSON_TYPE, body({ ...entry, title: 'Missing' })],
    ['no detail', 404, JSON_TYPE, body({ ...entry, detail: undefined })],
    ['no request_id', 404, JSON_TYPE, body({ ...entry, request_id: undefined })],
    ['a non-string source', 404, JSON_TYPE, body({ ...entry, source: { pointer: '/data' } })],
    ['an unknown field', 404, JSON_TYPE, body({ ...entry, stack: 'Error at ...' })],
    ['another top-level field', 404, JSON_TYPE, JSON.stringify({ errors: [entry], data: null })],
  ])('rejects %s', (_case, status, headers, text) => {
    expect(isValidErrorBody(status, headers, text)).toBe(false);
  });
});

describe('the fuzz harness', () => {
  it('fuzzes every entry of the route table', () => {
    expect(fuzzTargets().map((target) => target.key)).toEqual(
      ROUTES.map((route) => `${route.method} ${route.path}`),
    );
  });

  it('counts a 5xx, a rejected promise, a 4xx without the error body and a response off openapi.json as failures', async () => {
    const target = fuzzTargets().find((candidate) => candidate.key === 'GET /v2/application-keys');
    if (!target) throw new Error('GET /v2/application-keys is not in the route table');
    const request: FuzzRequest = { params: {}, query: '', headers: {}, body: undefined };
    const answering = (response: unknown) => async () => async () => response as never;
    const json = { 'Content-Type': 'application/json' };
    const outcome = async (load: Parameters<typeof runCase>[3]) =>
      (await runCase(target, request, world, load)).failure;
    expect(await outcome(answering({ statusCode: 503, headers: json, body: '{}' }))).toBe('five_xx');
    expect(await outcome(answering({ body: '' }))).toBe('five_xx');
    expect(
      await outcome(answering({ statusCode: 404, headers: json, body: '{"message":"Not Found"}' })),
    ).toBe('invalid_error_body');
    expect(
      await outcome(async () => async () => {
        throw new TypeError('boom');
      }),
    ).toBe('uncaught');
    // GET /v2/application-keys never answers 204, and a 200 without its security headers breaks the document.
    expect(await outcome(answering({ statusCode: 204, headers: {}, body: '' }))).toBe('contract_violation');
    const secure = {
      ...json,
      'X-Content-Type-Options': 'nosniff',
      'Strict-Transport-Security': 'max-age=31536000',
      'Cache-Control': 'no-store',
    };
    const page = {
      data: [],
      links: { current: 'c', first: 'f', last: 'l', next: null, prev: null },
      meta: {
        page: { limit: 25, offset: 0, current: 1, total: 1 },
        results: { total: 0 },
        total_reserved_rate_limit: 0,
      },
    };
    expect(await outcome(answering({ statusCode: 200, headers: json, body: JSON.stringify(page) }))).toBe(
      'contract_violation',
    );
    expect(
      await outcome(answering({ statusCode: 200, headers: secure, body: JSON.stringify(page) })),
    ).toBeUndefined();
  });
});

describe('npm run fuzz, through its own entry point (fuzz/run.ts)', () => {
  // The tool as a user runs it: its own DynamoDB Local and object store, its world of 1,100 extra keys in
  // one store, every route. A few cases per route: the 300-case sample below is the thorough part.
  it('seeds its world, runs every route and exits 0 with no failure', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.S3_ENDPOINT;
    const run = await runScriptAsync(env, 'fuzz/run.ts', ['--cases', '2', '--json'], {
      timeoutMs: 240_000,
    });
    expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    expect(JSON.parse(run.stdout)).toEqual({
      cases: 2 * ROUTES.length,
      five_xx: 0,
      uncaught: 0,
      invalid_error_bodies: 0,
      contract_violations: 0,
      seed: 7,
    });
  }, 300_000);
});

describe('failures the full fuzz run found', () => {
  it.each(['in(mpn,"\ud800")', "in(sku,'a\udc00')"])(
    'a filter with an unpaired surrogate (%j) is a 400 naming it, not a 500 from the page links',
    async (filter) => {
      const target = fuzzTargets().find((candidate) => candidate.key.startsWith('GET /catalog/'));
      if (!target) throw new Error('the catalog route is not in the route table');
      const result = await runCase(
        target,
        {
          params: { product_id: CATALOG.parents[0] as string },
          query: `filter=${filter}`,
          headers: { authorization: 'Bearer {{implicitToken}}', 'svc-channel': 'web' },
          body: undefined,
        },
        world,
      );
      expect(result.failure).toBeUndefined();
      expect(result.status).toBe(400);
      expect(JSON.parse(result.body ?? '').errors[0]).toMatchObject({
        source: 'filter',
        detail: expect.stringMatching(
          /^U\+D[8C]00 at character \d+ is an unpaired surrogate, not a character$/,
        ),
      });
    },
  );
});

describe(`every route, ${CASES} fuzz cases (seed ${SEED}; npm run fuzz runs 10,000)`, () => {
  it.each(fuzzTargets().map((target) => [target.key, target] as const))(
    '%s: no 5xx, nothing uncaught, every 4xx a valid error body, every response as openapi.json says',
    async (_key, target) => {
      const stats = await fuzzRoute(target, { cases: CASES, seed: SEED, world, shrinkTimeMs: 20000 });
      expect({
        cases: stats.cases,
        five_xx: stats.five_xx,
        uncaught: stats.uncaught,
        invalid_error_bodies: stats.invalid_error_bodies,
        contract_violations: stats.contract_violations,
        counterexample: stats.counterexample,
      }).toEqual({
        cases: CASES,
        five_xx: 0,
        uncaught: 0,
        invalid_error_bodies: 0,
        contract_violations: 0,
        counterexample: undefined,
      });
    },
    60000,
  );
});
