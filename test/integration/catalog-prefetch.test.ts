import { clearAuthCache } from '../../lib/auth/authenticate';
import { clearCatalogCaches, currentRegistry } from '../../lib/catalog/cache';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { childrenRelease, LIVE_CHILDREN, listChildren, PARENT } from '../support/catalog-fixtures';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore, tokenFor } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';

let store: TestStore;
let token: string;

// A publish (its first validation also loads and compiles the release schema): seconds on a loaded machine.
beforeAll(async () => {
  store = await createTestStore({ page_length: 5, rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store, 'implicit');
  await publishRelease(store.store.id, childrenRelease());
}, 60_000);

beforeEach(() => {
  clearCatalogCaches();
  clearAuthCache();
});
afterEach(() => jest.restoreAllMocks());

describe('registry prefetch while the token is checked', () => {
  it('reads the registry once for a cold request (the prefetch and the handler share the read)', async () => {
    const reads = jest.spyOn(catalogRepository, 'getRegistry');
    const response = await listChildren(token, PARENT);
    expect(response.status).toBe(200);
    expect(response.body.data.map((p: { id: string }) => p.id)).toEqual(LIVE_CHILDREN.slice(0, 5));
    expect(reads).toHaveBeenCalledTimes(1);
    expect(reads).toHaveBeenCalledWith(store.store.id);
  });

  it('answers 401 to a forged token naming a real store, and returns nothing of its catalog', async () => {
    const forged = token.replace(/\.[A-Za-z0-9_-]{43}$/, `.${'A'.repeat(43)}`);
    const response = await listChildren(forged, PARENT);
    expect(response.status).toBe(401);
    expect(response.raw).not.toContain(PARENT);
  });

  it('forgets a failed registry read instead of caching the failure', async () => {
    jest.spyOn(catalogRepository, 'getRegistry').mockRejectedValueOnce(new Error('network down'));
    await expect(currentRegistry(store.store.id)).rejects.toThrow('network down');
    const registry = await currentRegistry(store.store.id);
    expect(Object.keys(registry?.catalogs ?? {})).toHaveLength(1);
  });
});
