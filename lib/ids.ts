import { createHash, randomBytes, randomUUID } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/**
 * A UUID v7 (RFC 9562): 48-bit millisecond timestamp, then random bits, so ids sort by creation.
 * Within one millisecond a 12-bit counter keeps ids from the same process increasing.
 */
export function uuidv7(now: number = Date.now()): string {
  if (now <= lastMs) {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMs += 1;
      sequence = 0;
    }
  } else {
    lastMs = now;
    sequence = 0;
  }
  const bytes = randomBytes(16);
  bytes[6] = (sequence >>> 8) & 0x0f;
  bytes[7] = sequence & 0xff;
  return formatV7(bytes, lastMs);
}

/**
 * A UUID v7 that sorts after `last` (another UUID v7, perhaps from a process whose clock runs ahead): a new
 * one when it does, else one of the millisecond after `last`'s.
 */
export function uuidv7After(last: string | undefined): string {
  const fresh = uuidv7();
  if (last === undefined || fresh > last.toLowerCase()) return fresh;
  return uuidv7(Number.parseInt(`${last.slice(0, 8)}${last.slice(9, 13)}`, 16) + 1);
}

/** 16 bytes as a UUID v7 of time `ms`: the time in the first six, then the version and variant bits. */
function formatV7(bytes: Buffer, ms: number): string {
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = (ms >>> 24) & 0xff;
  bytes[3] = (ms >>> 16) & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A UUID v7 whose time is `ms` and whose other bits come from a hash of `seed`: the same arguments give the
 * same id (what a retried job computes again), ids of one time sort together.
 */
export function derivedUuidv7(ms: number, seed: string): string {
  return formatV7(createHash('sha256').update(seed, 'utf8').digest().subarray(0, 16), ms);
}

/** A random UUID v4. */
export function uuidv4(): string {
  return randomUUID();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a canonical UUID string. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
