import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * JSON stored deflated (the child and release indexes, filter-index buckets, id lists). The text each
 * encoding deflated is remembered beside its bytes while they live, so a publish that hashes the items it
 * just derived (lib/catalog/pipeline/item-manifest.ts) reads it back without inflating it again: a third of
 * the manifest's hashing time went to inflating what had been deflated a moment before.
 */
const sources = new WeakMap<Uint8Array, string>();

/** `value` as JSON, deflated (raw deflate, the default level). */
export function deflateJson(value: unknown): Uint8Array {
  const text = JSON.stringify(value);
  const bytes = new Uint8Array(deflateRawSync(text));
  sources.set(bytes, text);
  return bytes;
}

/** The text deflated into `bytes`: remembered when this process deflated them, else inflated. */
export function inflatedText(bytes: Uint8Array): string {
  return sources.get(bytes) ?? inflateRawSync(bytes).toString('utf8');
}
