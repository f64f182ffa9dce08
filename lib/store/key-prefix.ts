/**
 * The key condition of a Query for the items of a partition whose sort key begins with a prefix, written as
 * a range: `sk BETWEEN :prefix AND :prefixEnd`. DynamoDB answers it as `begins_with(sk, :prefix)` (the
 * same items, the same read units), but DynamoDB Local, which the local harness and the tests run on,
 * scans the whole partition for a `begins_with` and reads a range only for a `BETWEEN`: a store's
 * integrations or release markers, beside its 100,000 products, took 109-198 ms a Query, and 1.5 ms as a
 * range (docs/performance.md, "Fourth round").
 */
export const SK_PREFIX_CONDITION = 'pk = :pk AND sk BETWEEN :prefix AND :prefixEnd';

/**
 * The values of SK_PREFIX_CONDITION for `prefix`. The range ends at the prefix followed by the highest code
 * point (U+10FFFF, UTF-8 F4 8F BF BF, as DynamoDB compares strings): every key beginning with the prefix
 * is in it but one continuing with that code point and more, which no key of this service has (they are
 * ids, names of its own and validated text).
 */
export const skPrefix = (prefix: string) => ({ ':prefix': prefix, ':prefixEnd': `${prefix}\u{10FFFF}` });
