import { catalogKeys } from '../../lib/store/catalog-repository';
import { keysTable, mappingsTable } from '../../lib/store/schema';
import { parseAccessTokenRequest } from '../../lib/validation/access-token';
import { isValidPrefix } from '../../lib/validation/merchant-realm-mapping';

/*
 * Every value a request can put into a DynamoDB key is bounded in UTF-8 bytes, so no valid request
 * reaches DynamoDB with a key over its limits (a ValidationException, which used to be a 500). The
 * ids (stores, keys, mappings, catalogs, releases, products) are UUIDs, checked before any read; the
 * free-text values are the client id (at most 512 bytes) and the prefix (2-63 ASCII characters).
 */

const PARTITION_KEY_MAX_BYTES = 2048;
const SORT_KEY_MAX_BYTES = 1024;
const UUID = 'ffffffff-ffff-7fff-bfff-ffffffffffff';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const expectFits = (key: { pk: string; sk: string }) => {
  expect(bytes(key.pk)).toBeLessThanOrEqual(PARTITION_KEY_MAX_BYTES);
  expect(bytes(key.sk)).toBeLessThanOrEqual(SORT_KEY_MAX_BYTES);
};

describe('DynamoDB key sizes of the largest valid values', () => {
  it.each([
    ['one-byte', 'a'.repeat(512)],
    ['two-byte', '\u00e9'.repeat(256)],
    ['three-byte', '\u4e2d'.repeat(170)],
    ['four-byte', '\u{1F600}'.repeat(128)],
  ])('the longest valid client id of %s characters fits the client lookup key', (_kind, clientId) => {
    const request = parseAccessTokenRequest({ grant_type: 'implicit', client_id: clientId });
    expect(request.client_id).toBe(clientId);
    expectFits(keysTable.client(clientId));
  });

  it.each([
    ['four-byte characters', '\u{1F600}'.repeat(129)],
    ['three-byte characters', '\u4e2d'.repeat(171)],
    ['one-byte characters', 'a'.repeat(513)],
  ])('a client id over 512 bytes of %s is refused before any read', (_kind, clientId) => {
    expect(() => parseAccessTokenRequest({ grant_type: 'implicit', client_id: clientId })).toThrow(
      'client_id must be a string of 1 to 512 characters, at most 512 bytes in UTF-8',
    );
  });

  it('the longest valid prefix fits its reservation key, and no prefix of non-ASCII characters is valid', () => {
    const longest = `a${'b'.repeat(61)}c`;
    expect(isValidPrefix(longest)).toBe(true);
    expect(isValidPrefix(`${longest}d`)).toBe(false);
    // Lower-casing can grow text ("\u0130" becomes two characters); prefixes are ASCII, so it cannot.
    expect(isValidPrefix('\u0130stanbul')).toBe(false);
    expectFits(mappingsTable.prefix(longest));
  });

  it('every id-based key fits', () => {
    expectFits(keysTable.store(UUID));
    expectFits(keysTable.applicationKey(UUID, UUID));
    expectFits(keysTable.token('f'.repeat(64)));
    expectFits(mappingsTable.mapping(UUID));
    expectFits(catalogKeys.registry(UUID));
    expectFits(catalogKeys.releaseMarker(UUID, UUID, UUID));
    expectFits(catalogKeys.product({ id: UUID, shards: 16 }, UUID));
    expectFits(catalogKeys.childChunk({ id: UUID, shards: 16 }, UUID, 999_999));
  });
});
