/**
 * How releases are laid out and kept: shared by the publisher and the catalog API, which must not import
 * the publisher (and with it the release validation's Ajv) into its Lambda bundles.
 */

/**
 * Partitions a release's items are spread over (by product id) so a publish's writes spread too: at 1,000
 * WCU/s a partition, 64 take the 40,000 WCU/s a warmed products table serves (docs/publishing.md, the
 * arithmetic). Each release records its own count, so releases written with 16 read as before.
 */
export const RELEASE_SHARDS = 64;
/** A `writing` release whose heartbeat is older than this was abandoned (the publisher died). */
export const ABANDONED_AFTER_MS = 5 * 60 * 1000;
/** A replaced release is kept this long for requests that still hold its id (cached <= 10 s). */
export const RETAIN_REPLACED_MS = 60 * 1000;
/** A catalog keeps its current release and the two before it (docs/catalog-api.md); older ones go. */
export const KEPT_REPLACED = 2;
