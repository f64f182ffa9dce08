import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new client secret: 32 random bytes, base64url (43 characters). Shown once, stored as a hash. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A new client id: 20 random bytes as 40 hex characters. */
export function generateClientId(): string {
  return randomBytes(20).toString('hex');
}

/** A new access token: 32 random bytes, base64url. Only its hash is stored. */
export function generateAccessToken(): string {
  return randomBytes(32).toString('base64url');
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
