import {
  digestsEqual,
  generateAccessToken,
  generateClientId,
  generateClientSecret,
  hashSecret,
  parseAccessToken,
} from '../../lib/auth/secrets';

const STORE = '0190a0c0-0000-7000-8000-000000000001';
const KEY = '0190a0c0-0000-7000-8000-000000000003';

describe('access tokens', () => {
  it('name their store and key, then carry 256 random bits', () => {
    const token = generateAccessToken(STORE, KEY);
    expect(token).toMatch(new RegExp(`^${STORE}\\.${KEY}\\.[A-Za-z0-9_-]{43}$`));
    expect(parseAccessToken(token)).toEqual({ storeId: STORE, keyId: KEY });
    expect(generateAccessToken(STORE, KEY)).not.toBe(token);
  });

  it.each([
    '',
    'abc',
    `${STORE}.${KEY}`,
    `${STORE}.${KEY}.short`,
    `${STORE}.not-a-uuid.${'A'.repeat(43)}`,
    `${STORE}.${KEY}.${'A'.repeat(43)}.extra`,
    `${STORE.toUpperCase()}.${KEY}.${'A'.repeat(43)}`,
  ])('does not parse %p', (token) => {
    expect(parseAccessToken(token)).toBeUndefined();
  });
});

describe('secrets and hashes', () => {
  it('generates client ids and secrets of the documented shape', () => {
    expect(generateClientId()).toMatch(/^[0-9a-f]{40}$/);
    expect(generateClientSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('compares digests in constant time, false for different or malformed ones', () => {
    const digest = hashSecret('secret');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestsEqual(digest, hashSecret('secret'))).toBe(true);
    expect(digestsEqual(digest, hashSecret('Secret'))).toBe(false);
    expect(digestsEqual(digest, '')).toBe(false);
    expect(digestsEqual(digest, 'abcd')).toBe(false);
  });
});
