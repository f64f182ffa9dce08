import type * as Crypto from 'node:crypto';

/**
 * SHA-256 and HMAC-SHA-256 (FIPS 180-4, RFC 2104) in JavaScript for the small inputs a request hashes
 * (SigV4's payload and canonical request, a token, a claim's key), and `node:crypto` loaded on first use
 * for everything else. A function that only reads never loads `node:crypto`: its module pulls in some
 * twenty of node's internal modules (keys, ciphers, certificates, Diffie-Hellman...), 3.9-4.2 ms of a cold
 * start here once the sockets' modules are loaded, where hashing a first request's worth in JavaScript,
 * compiled on the spot, takes 2.2 ms (docs/performance.md, "SHA-256 without node:crypto"). Inputs from
 * NATIVE_FROM bytes on (an object store payload) go to `node:crypto`, which hashes them faster.
 */

let crypto: typeof Crypto | undefined;

/** `node:crypto`, loaded when first asked for (not through `import`, whose namespace loads more). */
export function nodeCrypto(): typeof Crypto {
  crypto ??= process.getBuiltinModule('node:crypto');
  return crypto;
}

/** Inputs this long or longer are hashed by `node:crypto`. */
export const NATIVE_FROM = 64 * 1024;

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const W = new Uint32Array(64);
const H = new Uint32Array(8);

/** One 64-byte block of `bytes` from `offset` into the state H. */
function compress(bytes: Uint8Array, offset: number): void {
  for (let i = 0; i < 16; i += 1) {
    const at = offset + i * 4;
    W[i] =
      ((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number);
  }
  for (let i = 16; i < 64; i += 1) {
    const a = W[i - 15] as number;
    const b = W[i - 2] as number;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
  }
  let a = H[0] as number;
  let b = H[1] as number;
  let c = H[2] as number;
  let d = H[3] as number;
  let e = H[4] as number;
  let f = H[5] as number;
  let g = H[6] as number;
  let h = H[7] as number;
  for (let i = 0; i < 64; i += 1) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + (K[i] as number) + (W[i] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0] as number) + a;
  H[1] = (H[1] as number) + b;
  H[2] = (H[2] as number) + c;
  H[3] = (H[3] as number) + d;
  H[4] = (H[4] as number) + e;
  H[5] = (H[5] as number) + f;
  H[6] = (H[6] as number) + g;
  H[7] = (H[7] as number) + h;
}

const asBytes = (data: string | Uint8Array): Uint8Array =>
  typeof data === 'string' ? Buffer.from(data, 'utf8') : data;

/** The SHA-256 digest of `data` (text as UTF-8). */
export function sha256(data: string | Uint8Array): Buffer {
  const bytes = asBytes(data);
  if (bytes.length >= NATIVE_FROM) return nodeCrypto().createHash('sha256').update(bytes).digest();
  H.set([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const whole = bytes.length - (bytes.length % 64);
  for (let offset = 0; offset < whole; offset += 64) compress(bytes, offset);
  // The rest, 0x80, zeros and the length in bits (big-endian, 64 bits): one block, or two.
  const tail = new Uint8Array(bytes.length - whole < 56 ? 64 : 128);
  tail.set(bytes.subarray(whole));
  tail[bytes.length - whole] = 0x80;
  const bits = bytes.length * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(tail.length - 4, bits >>> 0);
  for (let offset = 0; offset < tail.length; offset += 64) compress(tail, offset);
  const digest = Buffer.allocUnsafe(32);
  for (let i = 0; i < 8; i += 1) digest.writeUInt32BE(H[i] as number, i * 4);
  return digest;
}

/** The SHA-256 digest of `data` in lower-case hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return sha256(data).toString('hex');
}

/** HMAC-SHA-256 of `data` under `key` (text as UTF-8). */
export function hmacSha256(key: string | Uint8Array, data: string | Uint8Array): Buffer {
  let keyBytes = asBytes(key);
  if (keyBytes.length > 64) keyBytes = sha256(keyBytes);
  const message = asBytes(data);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i += 1) {
    const byte = keyBytes[i] ?? 0;
    inner[i] = byte ^ 0x36;
    outer[i] = byte ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256(inner), 64);
  return sha256(outer);
}
