/**
 * The allowance arithmetic of the rate limiter, as pure functions (docs/rate-limits.md): what a key may
 * use per second, how much a container asks for in one lease, what a lease was granted from the shared
 * window's counters, and which local token a request takes.
 */

/** A store's limits as seen by one of its keys (from the store item and the key item). */
export interface KeyLimits {
  /** The store's `rate_limit`, requests per second. */
  rateLimit: number;
  /** The sum of the store's keys' reservations (`total_reserved_rate_limit`). */
  reservedTotal: number;
  /** This key's `reserved_rate_limit`. */
  reserved: number;
}

/** What a key may use per second: its own reservation, then the store's shared pool. */
export interface Allowance {
  /** Guaranteed to this key alone. */
  reserved: number;
  /** The store's unreserved remainder, shared by all its keys. */
  pool: number;
  /** `reserved + pool`: the most this key can get in one second (`X-RateLimit-Limit`). */
  limit: number;
}

/** The allowance of a key: its reservation (never above the store's limit) plus the unreserved pool. */
export function allowanceOf(limits: KeyLimits): Allowance {
  let allowance = allowances.get(limits);
  if (!allowance) {
    allowance = computeAllowance(limits);
    allowances.set(limits, allowance);
  }
  return allowance;
}

/** Each limits object's allowance, computed once: a container sees the same limits object request after request. */
const allowances = new WeakMap<KeyLimits, Allowance>();

function computeAllowance(limits: KeyLimits): Allowance {
  const rateLimit = Math.max(0, limits.rateLimit);
  const reserved = Math.max(0, Math.min(limits.reserved, rateLimit));
  const pool = Math.max(0, rateLimit - Math.max(limits.reservedTotal, reserved));
  return { reserved, pool, limit: reserved + pool };
}

/** Tokens a container holds (or asks for) in one window: store-wide pool tokens and per-key reserved ones. */
export interface Tokens {
  pool: number;
  reserved: Map<string, number>;
}

/** What a container knows about one window of a store. */
export interface WindowState extends Tokens {
  /** The shared pool of this window is used up (a lease got less than it asked). */
  poolExhausted: boolean;
  /** Keys whose reservation in this window is used up. */
  reservedExhausted: Set<string>;
  /** The shared counters as last seen (after this container's last lease), for `X-RateLimit-Remaining`. */
  seen: { pool: number; reserved: Map<string, number> } | undefined;
}

export function emptyWindow(): WindowState {
  return {
    pool: 0,
    reserved: new Map(),
    poolExhausted: false,
    reservedExhausted: new Set(),
    seen: undefined,
  };
}

/**
 * Takes one local token for a request of `keyId`: its reservation first, then the pool. A reserved key
 * borrows from the pool only once its reservation for the window is used up (`reserved` of its allowance),
 * not when this container merely holds none of it yet: it waits for a lease of its own tokens then, and
 * the pool's tokens stay with the storefront addresses they were counted for. Returns where it came from,
 * or undefined.
 */
export function takeToken(state: WindowState, keyId: string, reserved = 0): 'reserved' | 'pool' | undefined {
  const own = state.reserved.get(keyId) ?? 0;
  if (own > 0) {
    state.reserved.set(keyId, own - 1);
    return 'reserved';
  }
  if (reserved > 0 && !state.reservedExhausted.has(keyId)) return undefined;
  if (state.pool > 0) {
    state.pool -= 1;
    return 'pool';
  }
  return undefined;
}

/** True when the shared window has nothing left for `keyId`: its reservation and the pool are used up. */
export function exhaustedFor(state: WindowState, keyId: string, allowance: Allowance): boolean {
  const reservationDone = allowance.reserved === 0 || state.reservedExhausted.has(keyId);
  const poolDone = allowance.pool === 0 || state.poolExhausted;
  return reservationDone && poolDone;
}

/** One key's recent demand in this container. */
export interface KeyDemand {
  keyId: string;
  /** Requests per second (attempts, admitted or not). */
  perSecond: number;
  allowance: Allowance;
}

/**
 * How many tokens to ask for in one lease: enough for `seconds` of each key's observed demand, and at least
 * one per request waiting for a token (`waiting`, by key), from the key's reservation first (up to all of
 * it) and from the pool for the rest (up to all of it), minus what the container still holds; nothing from
 * a counter known to be used up.
 */
export function planLease(input: {
  demands: readonly KeyDemand[];
  state: WindowState;
  seconds: number;
  waiting?: ReadonlyMap<string, number>;
  pool: number;
}): Tokens {
  const { state, seconds } = input;
  const ask: Tokens = { pool: 0, reserved: new Map() };
  let poolNeed = 0;
  let poolWaiting = 0;
  for (const demand of input.demands) {
    const waiting = input.waiting?.get(demand.keyId) ?? 0;
    const need = Math.max(Math.ceil(demand.perSecond * seconds), waiting);
    const held = state.reserved.get(demand.keyId) ?? 0;
    let covered = held;
    if (demand.allowance.reserved > 0 && !state.reservedExhausted.has(demand.keyId)) {
      const want = Math.min(demand.allowance.reserved, need) - held;
      if (want > 0) ask.reserved.set(demand.keyId, want);
      covered += Math.max(0, want);
    }
    poolNeed += Math.max(0, need - covered);
    poolWaiting += Math.max(0, waiting - covered);
  }
  if (input.pool > 0 && !state.poolExhausted) {
    // Pool tokens held serve any key; those waiting for the pool get at least one each beyond them.
    const want = Math.max(Math.min(input.pool, poolNeed) - state.pool, Math.min(input.pool, poolWaiting));
    if (want > 0) ask.pool = want;
  }
  return ask;
}

/**
 * Tokens granted from one shared counter: the counter was incremented by `asked` (unconditionally) and is
 * now `after`; of the asked tokens, those that fit under `max` are granted. Because every lease adds to
 * the same counter, the granted ranges never overlap and their sum never exceeds `max`.
 */
export function granted(asked: number, after: number, max: number): number {
  return Math.max(0, Math.min(asked, max - (after - asked)));
}

/**
 * Applies a lease's answer to the window: adds the granted tokens, marks counters that are used up, and
 * remembers the counters for `X-RateLimit-Remaining`.
 */
export function applyLease(
  state: WindowState,
  ask: Tokens,
  after: Tokens,
  limits: { pool: number; reserved: (keyId: string) => number },
): void {
  const seen = state.seen ?? { pool: 0, reserved: new Map<string, number>() };
  seen.pool = Math.max(seen.pool, after.pool);
  const poolGranted = granted(ask.pool, after.pool, limits.pool);
  state.pool += poolGranted;
  if (after.pool >= limits.pool) state.poolExhausted = true;
  for (const [keyId, asked] of ask.reserved) {
    const counter = after.reserved.get(keyId) ?? asked;
    const max = limits.reserved(keyId);
    state.reserved.set(keyId, (state.reserved.get(keyId) ?? 0) + granted(asked, counter, max));
    seen.reserved.set(keyId, Math.max(seen.reserved.get(keyId) ?? 0, counter));
    if (counter >= max) state.reservedExhausted.add(keyId);
  }
  state.seen = seen;
}

/**
 * `X-RateLimit-Remaining`: the tokens this container holds for the key plus what the shared window had
 * left for it when last seen. An estimate: other containers may have taken some since.
 */
export function remainingFor(state: WindowState, keyId: string, allowance: Allowance): number {
  const held = (state.reserved.get(keyId) ?? 0) + state.pool;
  if (!state.seen) return held;
  const reservedLeft = state.reservedExhausted.has(keyId)
    ? 0
    : Math.max(0, allowance.reserved - (state.seen.reserved.get(keyId) ?? 0));
  const poolLeft = state.poolExhausted ? 0 : Math.max(0, allowance.pool - state.seen.pool);
  return Math.min(allowance.limit, held + reservedLeft + poolLeft);
}

/**
 * The most of a store's pool one source address may take per second, whatever else is going on (a
 * container's storefront requests; see `addressShares`).
 */
export const ADDRESS_SHARE = 0.5;

/** What each source address may take of a store's pool in one window (docs/rate-limits.md). */
export interface AddressShares {
  /** The most any one address may take in the window (at least 1). */
  share: number;
  /**
   * What addresses not among `demands` (new ones) may take together: the pool less what the known
   * addresses are set aside (each its demand, up to `share`).
   */
  newcomers: number;
}

/**
 * The per-address shares of a pool for one window, from the demands (requests per second, whole numbers)
 * of the addresses seen recently: max-min fair. The share is the largest whole number `c` such that every
 * known address taking `min(demand, c)` and one more address taking `c` fit in the pool, so an address that
 * asks less than its fair share gets all it asks, busy addresses split the rest evenly, and a newcomer's
 * share is always left over. Never more than `ADDRESS_SHARE` of the pool, never less than 1.
 */
export function addressShares(pool: number, demands: readonly number[]): AddressShares {
  const total = Math.max(0, Math.floor(pool));
  const sorted = demands.map((d) => Math.max(0, Math.ceil(d))).sort((a, b) => a - b);
  let left = total;
  let sharing = sorted.length + 1;
  for (const demand of sorted) {
    // Satisfied in full while it fits in an even split of what is left: the split only grows from there.
    if (demand * sharing > left) break;
    left -= demand;
    sharing -= 1;
  }
  const share = Math.max(1, Math.min(Math.floor(total * ADDRESS_SHARE), Math.floor(left / sharing)));
  let setAside = 0;
  for (const demand of sorted) setAside += Math.min(demand, share);
  return { share, newcomers: Math.max(0, total - setAside) };
}

/**
 * The share of a new store's `rate_limit` its first (admin) key reserves by default (`npm run admin --
 * create-store`, the demo store): the back office keeps requests however hard the storefronts flood.
 */
export const FIRST_KEY_RESERVED_SHARE = 0.2;

/** The first key's default reservation for a store limit: 20% of it, rounded down (100 → 20). */
export function firstKeyReservation(rateLimit: number): number {
  return Math.floor(rateLimit * FIRST_KEY_RESERVED_SHARE);
}
