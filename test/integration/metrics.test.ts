import { publishRelease } from '../../lib/catalog/publisher';
import { childrenRelease, PARENT } from '../support/catalog-fixtures';
import { bearer, createTestStore, invoke, tokenFor } from '../support/fixtures';

/**
 * Our custom metrics as CloudWatch embedded-metric-format lines: the functions write one per invocation
 * that counted something, and none otherwise. Metrics are off in tests (test/support/test-env.ts); this
 * file turns them on before the modules load.
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
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  jest.isolateModules(() => {
    modules = {
      listKeys: require('../../functions/list-application-keys/handler'),
      token: require('../../functions/create-access-token/handler'),
      children: require('../../functions/list-child-products/handler'),
    };
  });
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
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

  it('counts catalog items read from DynamoDB as CatalogCacheMisses, then the same items from the cache as CatalogCacheHits', async () => {
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
    expect((await list()).status).toBe(200);
    const warm = emf();
    expect(warm).toHaveLength(1);
    expect(warm[0]?.CatalogCacheMisses).toBeUndefined();
    expect(total(warm[0]?.CatalogCacheHits)).toBe(coldItems);
  });
});
