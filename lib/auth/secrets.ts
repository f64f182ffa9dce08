import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new client secret: 32 random bytes, base64url (43 characters). Shown once, stored as a hash. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A new client id: 20 random bytes as 40 hex characters. */
export function generateClientId(): string {
  return randomBytes(20).toString('hex');
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ACCESS_TOKEN = new RegExp(`^(${UUID})\\.(${UUID})\\.[A-Za-z0-9_-]{43}$`);

/**
 * A new access token: `<store id>.<key id>.<32 random bytes, base64url>`. The ids are not secret; they
 * let one batch read the token, its key and its store. Only the hash of the whole token is stored, so
 * changing the ids gives a token that matches nothing.
 */
export function generateAccessToken(storeId: string, keyId: string): string {
  return `${storeId}.${keyId}.${randomBytes(32).toString('base64url')}`;
}

/** The store and key an access token names, or undefined when it is not shaped like one. */
export function parseAccessToken(token: string): { storeId: string; keyId: string } | undefined {
  const match = ACCESS_TOKEN.exec(token);
  return match?.[1] && match[2] ? { storeId: match[1], keyId: match[2] } : undefined;
}

/**
 * SHA-256 of a high-entropy secret or token, hex-encoded. Secrets here are 256 random bits, so a fast
 * hash is enough (no password stretching needed) and lets tokens be looked up by their hash.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two hex digests in constant time. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  if (left.length !== right.length || left.length === 0) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
