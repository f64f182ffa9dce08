import { childrenRelease, PARENT } from '../support/catalog-fixtures';
import { bearer, createTestStore, invoke, tokenFor } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';

/**
 * Our custom metrics as CloudWatch embedded-metric-format lines: the functions write at most one per
 * invocation, at once for anything but catalog cache hits, which a container sums and writes at most
 * once a minute. Metrics are off in tests (test/support/test-env.ts); this file turns them on while
 * it runs (the metrics library reads the switch when its first line is written).
 */

type Emf = {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  service: string;
  [metric: string]: unknown;
};

let lines: string[] = [];
const write = process.stdout.write;
beforeAll(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => line.includes('"_aws"')),
    );
    return true;
  }) as typeof process.stdout.write;
});
afterAll(() => {
  process.stdout.write = write;
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
beforeEach(() => {
  lines = [];
});

async function load() {
  let modules:
    | {
        listKeys: typeof import('../../functions/list-application-keys/handler');
        token: typeof import('../../functions/create-access-token/handler');
        children: typeof import('../../functions/list-child-products/handler');
      }
    | undefined;
  jest.isolateModules(() => {
    modules = {
      listKeys: require('../../functions/list-application-keys/handler'),
      token: require('../../functions/create-access-token/handler'),
      children: require('../../functions/list-child-products/handler'),
    };
  });
  if (!modules) throw new Error('not loaded');
  return modules;
}

const emf = (): Emf[] => lines.map((line) => JSON.parse(line) as Emf);
/** A metric's total in one line: EMF carries one value, or an array when it was counted several times. */
const total = (value: unknown): number | undefined =>
  value === undefined ? undefined : [value].flat().reduce((sum: number, v) => sum + Number(v), 0);

describe('custom metrics (EMF)', () => {
  it('counts an AuthenticationFailures for a bad bearer token, in namespace CommerceApi with the service dimension', async () => {
    const { listKeys } = await load();
    const response = await invoke(listKeys.handler, {
      method: 'GET',
      path: '/v2/application-keys',
      routeKey: 'GET /v2/application-keys',
      headers: bearer('not-a-token'),
    });
    expect(response.status).toBe(401);
    const [line, ...rest] = emf();
    expect(rest).toEqual([]);
    expect(line?._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'CommerceApi',
        Dimensions: [['service']],
        Metrics: [{ Name: 'AuthenticationFailures', Unit: 'Count' }],
      },
    ]);
    expect(line).toMatchObject({ service: 'commerce-api', AuthenticationFailures: 1 });
  });

  it('counts an AuthenticationFailures for wrong client credentials, and nothing for a good token request', async () => {
    const { token } = await load();
    const store = await createTestStore();
    const bad = await invoke(token.handler, {
      method: 'POST',
      path: '/oauth/access_token',
      routeKey: 'POST /oauth/access_token',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: store.clientId,
        client_secret: 'wrong-secret-1234',
      }),
    });
    expect(bad.status).toBe(401);
    expect(emf().map((line) => line.AuthenticationFailures)).toEqual([1]);
    lines = [];
    const good = await invoke(token.handler, {
      method: 'POST',
      path: '/oauth/access_token',
      routeKey: 'POST /oauth/access_token',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'implicit', client_id: store.clientId }),
    });
    expect(good.status).toBe(200);
    expect(lines).toEqual([]);
  });

  it('counts catalog items read from DynamoDB as CatalogCacheMisses at once, then the same items from the cache as CatalogCacheHits, summed over a minute', async () => {
    const { children } = await load();
    const store = await createTestStore();
    await publishRelease(store.store.id, childrenRelease());
    const token = await tokenFor(store, 'implicit');
    const list = () =>
      invoke(children.handler, {
        method: 'GET',
        path: `/catalog/products/${PARENT}/relationships/children`,
        routeKey: 'GET /catalog/products/{product_id}/relationships/children',
        pathParameters: { product_id: PARENT },
        headers: bearer(token, { 'svc-channel': 'web' }),
      });
    expect((await list()).status).toBe(200);
    const cold = emf();
    expect(cold).toHaveLength(1);
    const coldMisses = total(cold[0]?.CatalogCacheMisses) ?? 0;
    expect(coldMisses).toBeGreaterThan(0);
    const coldItems = coldMisses + (total(cold[0]?.CatalogCacheHits) ?? 0);
    lines = [];
    // Warm requests count only cache hits: held in the container, no line per request...
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    expect(lines).toEqual([]);
    // ... until a minute after the last line, when the next request writes their sum in one line.
    const realNow = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(realNow + 60_000);
    try {
      expect((await list()).status).toBe(200);
    } finally {
      clock.mockRestore();
    }
    const warm = emf();
    expect(warm).toHaveLength(1);
    expect(warm[0]?.CatalogCacheMisses).toBeUndefined();
    expect(warm[0]?.CatalogCacheHits).toBe(3 * coldItems);
  });

  it('writes pending cache hits with the next refusal or failure, at once', async () => {
    const { children } = await load();
    const store = await createTestStore();
    await publishRelease(store.store.id, childrenRelease());
    const token = await tokenFor(store, 'implicit');
    const list = (bearerToken: string) =>
      invoke(children.handler, {
        method: 'GET',
        path: `/catalog/products/${PARENT}/relationships/children`,
        routeKey: 'GET /catalog/products/{product_id}/relationships/children',
        pathParameters: { product_id: PARENT },
        headers: bearer(bearerToken, { 'svc-channel': 'web' }),
      });
    expect((await list(token)).status).toBe(200);
    const coldItems = emf().reduce(
      (sum, line) => sum + (total(line.CatalogCacheMisses) ?? 0) + (total(line.CatalogCacheHits) ?? 0),
      0,
    );
    lines = [];
    expect((await list(token)).status).toBe(200);
    expect(lines).toEqual([]);
    expect((await list('not-a-token')).status).toBe(401);
    const [line, ...rest] = emf();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ AuthenticationFailures: 1, CatalogCacheHits: coldItems });
  });
});
