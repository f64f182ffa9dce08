import type { AuthContext } from '../../lib/auth/authenticate';
import { ApiError } from '../../lib/http/errors';
import {
  getStoreMapping,
  renderMapping,
  updateMappingPrefix,
} from '../../lib/merchant-realm-mappings/service';
import { type MappingRecord, mappingRepository } from '../../lib/store/mapping-repository';
import type { StoreRecord } from '../../lib/store/store-repository';

const STORE_ID = 'store-1';
const MAPPING_ID = 'mapping-1';
const auth = {
  storeId: STORE_ID,
  keyId: 'key-1',
  kind: 'client_credentials',
  store: { id: STORE_ID, mapping_id: MAPPING_ID } as StoreRecord,
} satisfies AuthContext;

const record = (prefix: string | null, version: number, storeId = STORE_ID): MappingRecord => ({
  id: MAPPING_ID,
  store_id: storeId,
  realm_id: 'realm-1',
  prefix,
  version,
});

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

// The repository is replaced by scripted answers here to drive the retry loop through every outcome;
// the same paths run against DynamoDB Local in test/integration.
let reads: jest.SpyInstance;
let changes: jest.SpyInstance;
beforeEach(() => {
  reads = jest.spyOn(mappingRepository, 'get');
  changes = jest.spyOn(mappingRepository, 'changePrefix');
});
afterEach(() => jest.restoreAllMocks());

describe('renderMapping', () => {
  it('shows the five fields of a mapping and nothing internal', () => {
    expect(renderMapping(record('Shop', 7))).toEqual({
      id: MAPPING_ID,
      type: 'merchant-realm-mappings',
      prefix: 'Shop',
      realm_id: 'realm-1',
      store_id: STORE_ID,
    });
  });
});

describe('getStoreMapping', () => {
  it('answers 404 without reading for an id that is not the store mapping', async () => {
    expect((await apiError(getStoreMapping(auth, 'other'))).status).toBe(404);
    expect(reads).not.toHaveBeenCalled();
  });

  it('answers 404 when the stored mapping names another store', async () => {
    reads.mockResolvedValueOnce(record(null, 0, 'store-2'));
    expect((await apiError(getStoreMapping(auth))).status).toBe(404);
  });
});

describe('updateMappingPrefix', () => {
  it('writes nothing when the prefix is exactly the current one', async () => {
    reads.mockResolvedValueOnce(record('shop', 2));
    await expect(updateMappingPrefix(auth, MAPPING_ID, { prefix: 'shop' })).resolves.toEqual(
      record('shop', 2),
    );
    expect(changes).not.toHaveBeenCalled();
  });

  it('re-reads and retries after a stale read, with the version it read', async () => {
    reads.mockResolvedValueOnce(record('a1', 1)).mockResolvedValueOnce(record('b2', 2));
    changes.mockResolvedValueOnce('stale').mockResolvedValueOnce('changed');
    await expect(updateMappingPrefix(auth, MAPPING_ID, { prefix: 'c3' })).resolves.toEqual(record('c3', 3));
    expect(changes.mock.calls).toEqual([
      [record('a1', 1), 'c3'],
      [record('b2', 2), 'c3'],
    ]);
  });

  it('stops retrying when a concurrent request already set the same prefix', async () => {
    reads.mockResolvedValueOnce(record('a1', 1)).mockResolvedValueOnce(record('c3', 2));
    changes.mockResolvedValueOnce('stale');
    await expect(updateMappingPrefix(auth, MAPPING_ID, { prefix: 'c3' })).resolves.toEqual(record('c3', 2));
    expect(changes).toHaveBeenCalledTimes(1);
  });

  it('retries a transaction conflict', async () => {
    reads.mockResolvedValue(record(null, 0));
    changes.mockResolvedValueOnce('contended').mockResolvedValueOnce('changed');
    await expect(updateMappingPrefix(auth, MAPPING_ID, { prefix: 'x1' })).resolves.toEqual(record('x1', 1));
    expect(changes).toHaveBeenCalledTimes(2);
  });

  it('gives up after five attempts with 409 write conflict', async () => {
    reads.mockResolvedValue(record(null, 0));
    changes.mockResolvedValue('stale');
    const error = await apiError(updateMappingPrefix(auth, MAPPING_ID, { prefix: 'x1' }));
    expect([error.status, error.detail, error.source]).toEqual([
      409,
      'write conflict, please retry',
      undefined,
    ]);
    expect(changes).toHaveBeenCalledTimes(5);
  });

  it('answers 409 "the prefix is already in use" at once when another mapping holds it', async () => {
    reads.mockResolvedValue(record(null, 0));
    changes.mockResolvedValue('prefix-taken');
    const error = await apiError(updateMappingPrefix(auth, MAPPING_ID, { prefix: 'x1' }));
    expect([error.status, error.detail, error.source]).toEqual([
      409,
      'the prefix is already in use',
      'data.prefix',
    ]);
    expect(changes).toHaveBeenCalledTimes(1);
  });

  it('answers 503 with Retry-After when DynamoDB throttles the transaction', async () => {
    reads.mockResolvedValue(record(null, 0));
    changes.mockResolvedValue('throttled');
    const error = await apiError(updateMappingPrefix(auth, MAPPING_ID, { prefix: 'x1' }));
    expect([error.status, error.headers]).toEqual([503, { 'Retry-After': '1' }]);
  });
});
