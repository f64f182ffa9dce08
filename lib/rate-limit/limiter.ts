import { errorFields, log } from '../http/log';
import type { WindowCounters } from '../store/rate-limit-repository';
import { AddressLedger } from './addresses';
import {
  type Allowance,
  allowanceOf,
  applyLease,
  emptyWindow,
  exhaustedFor,
  type KeyDemand,
  type KeyLimits,
  planLease,
  remainingFor,
  type Tokens,
  takeToken,
  type WindowState,
} from './allowance';

/*
 * The container side of the shared rate limit (docs/rate-limits.md). Each store's limit is counted in
 * one-second windows held in DynamoDB. A container takes tokens from a window in leases (one UpdateItem
 * each), serves requests from them locally, renews before they run out and takes the next window's lease
 * shortly before it starts, both in the background (not awaited by the request that triggered them).
 * Leases are sized to the container's observed demand. When DynamoDB fails, requests are admitted.
 */

/** Length of a window: the limit is requests per second. */
export const WINDOW_MS = 1000;
/**
 * A lease covers this much of the key's observed demand beyond the renewal point (bounded by what is left
 * of the window): at 50 requests/s, about two leases a window.
 */
export const LEASE_SECONDS = 0.5;
/** Renew when what is held would last less than this at the observed rate. */
export const RENEW_AHEAD_SECONDS = 0.1;
/** Take the next window's lease in this last part of the current one. */
export const PREFETCH_MS = 200;
/** After a renewal plan that asked for nothing, the next plan waits this long. */
const QUIET_MS = 20;
/**
 * A request waits at most this long for a lease (the default of `deps.deadlineMs`; RATE_LIMIT_DEADLINE_MS in
 * production), then it is admitted (failed open) and the lease goes on; until that lease settles, requests
 * that find no token are admitted at once, without waiting again.
 */
export const LEASE_DEADLINE_MS = 50;
/**
 * Before a container's first lease for a store has answered, up to this many of the store's requests are
 * admitted without waiting for it (its first request never waits); the lease asks for them too and they
 * are charged to what it grants. Bound: a new container can admit at most this many requests of a store
 * beyond the window's limit, and only when the window was already used up by other containers.
 */
export const FIRST_LEASE_ALLOWANCE = 1;
/** After a failed lease, requests short of tokens are admitted without asking DynamoDB for this long. */
export const FAIL_OPEN_MS = 5000;
/**
 * A request waits for at most this many leases; every lease grants it something or marks its counters used
 * up, so this only guards against the unforeseen (then the request is admitted, failed open).
 */
const MAX_LEASE_ROUNDS = 20;

/** What the limiter decided for one request, and the allowance headers that go with it. */
export interface RateLimitDecision {
  admitted: boolean;
  /** `X-RateLimit-Limit`: the key's reservation plus the store's shared pool, per second. */
  limit: number;
  /** `X-RateLimit-Remaining`: an estimate of what the key has left in this window. */
  remaining: number;
  /** `X-RateLimit-Reset` (and `Retry-After` when refused): whole seconds until the window ends, >= 1. */
  resetSeconds: number;
  /** Admitted because the limiter could not reach its state (logged and counted). */
  failedOpen: boolean;
  /** The window (epoch second) the request was counted in. */
  window: number;
}

/** Counts since the container started (the lead wires them into metrics; tests and benches read them). */
export interface LimiterStats {
  admitted: number;
  limited: number;
  /** UpdateItem calls on windows (each one DynamoDB write). */
  leases: number;
  leaseFailures: number;
  /** Requests that had to wait for a lease (the rest were served from tokens already held). */
  waits: number;
  /** Requests admitted against the first-lease allowance, before the container's first lease answered. */
  unleased: number;
  /** Requests admitted without a decision because the limiter's DynamoDB calls failed or were slow. */
  failedOpen: number;
}

export interface LimiterDeps {
  now: () => number;
  take: (storeId: string, window: number, ask: Tokens) => Promise<WindowCounters>;
  /** How long a request waits for a lease before it is admitted (default LEASE_DEADLINE_MS). */
  deadlineMs?: number;
}

interface Demand {
  window: number;
  count: number;
  /** Requests in the window before `window` (0 when that window saw none). */
  last: number;
  /** Smoothed requests per second over past windows. */
  rate: number;
  allowance: Allowance;
}

interface StoreBucket {
  windows: Map<number, WindowState>;
  inflight: Map<number, Promise<void>>;
  demand: Map<string, Demand>;
  /** Until then (ms), requests short of tokens are admitted without a lease (after a failed one). */
  failingUntil: number;
  /** Smoothed time a lease takes (ms): renewals start at least twice that ahead of need. */
  leaseMs: number;
  /** Requests waiting for a lease, by key: the next lease asks at least one token for each. */
  waiting: Map<string, number>;
  /** The window of the last decision (older windows are dropped when it changes). */
  current: number;
  /** A renewal plan found nothing to ask for: no new plan before this time (ms). */
  quietUntil: number;
  /** A lease missed the deadline and is still running: requests short of tokens are admitted at once. */
  stalled: boolean;
  /** A lease of this store has answered in this container (until then, the first-lease allowance). */
  leased: boolean;
  /** Requests admitted against the first-lease allowance so far. */
  unleased: number;
  /** Those not yet charged to a lease's grant, by key. */
  owed: Map<string, number>;
  /** Storefront requests by source address: each address's share of the pool (lib/rate-limit/addresses.ts). */
  addresses: AddressLedger;
}

const WAIT_EXPIRED = Symbol('wait-expired');

/** How far ahead of running out a renewal starts: at least RENEW_AHEAD_SECONDS, else twice a lease's time. */
function aheadSeconds(bucket: StoreBucket): number {
  return Math.max(RENEW_AHEAD_SECONDS, (2 * bucket.leaseMs) / 1000);
}

/**
 * A key's demand in `window`, requests per second: the most of its smoothed rate, the previous window's
 * count and the current window's count so far (so a rising rate is followed within the window).
 */
function demandPerSecond(demand: Demand, window: number): number {
  if (demand.window === window) return Math.max(demand.rate, demand.last, demand.count);
  const gap = window - demand.window;
  return Math.max(demand.rate * 0.5 ** gap, gap === 1 ? demand.count : 0);
}

export class RateLimiter {
  readonly stats: LimiterStats = {
    admitted: 0,
    limited: 0,
    leases: 0,
    leaseFailures: 0,
    failedOpen: 0,
    waits: 0,
    unleased: 0,
  };
  private readonly buckets = new Map<string, StoreBucket>();
  /** Every lease in flight, also of buckets `reset` forgot (they still write the counters and the stats). */
  private readonly leasing = new Set<Promise<void>>();

  constructor(private readonly deps: LimiterDeps) {}

  /**
   * Decides whether a request of `keyId` in `storeId` is admitted; never throws (fails open). Answers at
   * once (no promise) when the container holds a token or knows the window is used up: the common case.
   */
  admit(
    storeId: string,
    keyId: string,
    limits: KeyLimits,
    address?: string,
  ): RateLimitDecision | Promise<RateLimitDecision> {
    const allowance = allowanceOf(limits);
    const bucket = this.bucket(storeId);
    const window = Math.floor(this.deps.now() / WINDOW_MS);
    this.observe(bucket, keyId, window, allowance);
    if (address !== undefined) {
      // Counted before the decision (requests waiting for a lease must not all pass the check), given back
      // when refused.
      if (!bucket.addresses.take(address, window, allowance.pool))
        return this.decide(false, this.windowState(bucket, window), keyId, allowance, false, window);
      // Decided at once (the common case): nothing allocated beyond the decision.
      const decision =
        this.decideNow(bucket, storeId, keyId, allowance) ??
        this.admitUnleased(bucket, storeId, keyId, allowance);
      if (decision === undefined)
        return this.waitAsStorefront(bucket, storeId, keyId, allowance, window, address);
      if (!decision.admitted) bucket.addresses.giveBack(address, window);
      return decision;
    }
    return this.decideOrWait(bucket, storeId, keyId, allowance, window);
  }

  /** A storefront request that must wait for a lease: its address's share follows it into later windows. */
  private async waitAsStorefront(
    bucket: StoreBucket,
    storeId: string,
    keyId: string,
    allowance: Allowance,
    window: number,
    address: string,
  ): Promise<RateLimitDecision> {
    let heldIn: number | undefined = window;
    // A request that waited for a lease into the next window spends that window's tokens: it must fit in
    // that window's share too, or the flood's waiting requests take the pool past every share.
    const moveTo = (next: number) => {
      if (heldIn !== undefined) bucket.addresses.giveBack(address, heldIn);
      heldIn = bucket.addresses.take(address, next, allowance.pool) ? next : undefined;
      return heldIn !== undefined;
    };
    const decision = await this.admitAfterLeases(bucket, storeId, keyId, allowance, window, moveTo);
    if (!decision.admitted && heldIn !== undefined) bucket.addresses.giveBack(address, heldIn);
    return decision;
  }

  private decideOrWait(
    bucket: StoreBucket,
    storeId: string,
    keyId: string,
    allowance: Allowance,
    window: number,
  ): RateLimitDecision | Promise<RateLimitDecision> {
    return (
      this.decideNow(bucket, storeId, keyId, allowance) ??
      this.admitUnleased(bucket, storeId, keyId, allowance) ??
      this.admitAfterLeases(bucket, storeId, keyId, allowance, window)
    );
  }

  /** A decision from what the container holds, or undefined when a lease must be waited for. */
  private decideNow(
    bucket: StoreBucket,
    storeId: string,
    keyId: string,
    allowance: Allowance,
  ): RateLimitDecision | undefined {
    const window = Math.floor(this.deps.now() / WINDOW_MS);
    if (window !== bucket.current) {
      for (const old of bucket.windows.keys()) if (old < window) bucket.windows.delete(old);
      bucket.current = window;
    }
    const state = this.windowState(bucket, window);
    if (takeToken(state, keyId, allowance.reserved)) {
      this.renewIfLow(bucket, storeId, window, keyId, allowance);
      return this.decide(true, state, keyId, allowance, false, window);
    }
    if (bucket.stalled || this.deps.now() < bucket.failingUntil)
      return this.decide(true, state, keyId, allowance, true, window);
    if (exhaustedFor(state, keyId, allowance))
      return this.decide(false, state, keyId, allowance, false, window);
    return undefined;
  }

  /**
   * Before the container's first lease of the store has answered, its first requests do not wait: they are
   * admitted at once (up to FIRST_LEASE_ALLOWANCE) and charged to that lease's grant.
   */
  private admitUnleased(
    bucket: StoreBucket,
    storeId: string,
    keyId: string,
    allowance: Allowance,
  ): RateLimitDecision | undefined {
    if (bucket.leased || bucket.unleased >= FIRST_LEASE_ALLOWANCE) return undefined;
    const window = Math.floor(this.deps.now() / WINDOW_MS);
    bucket.unleased += 1;
    this.stats.unleased += 1;
    bucket.owed.set(keyId, (bucket.owed.get(keyId) ?? 0) + 1);
    bucket.waiting.set(keyId, (bucket.waiting.get(keyId) ?? 0) + 1);
    void this.lease(bucket, storeId, window, true);
    return this.decide(true, this.windowState(bucket, window), keyId, allowance, false, window);
  }

  private async admitAfterLeases(
    bucket: StoreBucket,
    storeId: string,
    keyId: string,
    allowance: Allowance,
    admittedIn: number,
    /** Counts a storefront request's source address in a later window (false: no share left there). */
    moveTo?: (window: number) => boolean,
  ): Promise<RateLimitDecision> {
    let counted = admittedIn;
    for (let round = 1; ; round += 1) {
      // Read the clock every round: a request that waited for a lease may have crossed into a new window.
      const window = Math.floor(this.deps.now() / WINDOW_MS);
      const state = this.windowState(bucket, window);
      // Counted (stats.failedOpen), not logged per request: the lines would lack the request's keys.
      if (round > MAX_LEASE_ROUNDS) return this.decide(true, state, keyId, allowance, true, window);
      this.stats.waits += 1;
      bucket.waiting.set(keyId, (bucket.waiting.get(keyId) ?? 0) + 1);
      let timer: NodeJS.Timeout | undefined;
      const waited = await Promise.race([
        this.lease(bucket, storeId, window),
        new Promise<typeof WAIT_EXPIRED>((resolve) => {
          timer = setTimeout(() => resolve(WAIT_EXPIRED), this.deps.deadlineMs ?? LEASE_DEADLINE_MS);
        }),
      ]);
      clearTimeout(timer);
      bucket.waiting.set(keyId, (bucket.waiting.get(keyId) ?? 1) - 1);
      if (waited === WAIT_EXPIRED) {
        // Past the deadline: this request and, until the lease settles, every request short of tokens
        // are admitted at once (a stalled table costs one deadline, not one per request).
        if (bucket.inflight.size > 0) bucket.stalled = true;
        return this.decide(true, state, keyId, allowance, true, window);
      }
      const now = Math.floor(this.deps.now() / WINDOW_MS);
      if (moveTo && now !== counted) {
        counted = now;
        if (!moveTo(now))
          return this.decide(false, this.windowState(bucket, now), keyId, allowance, false, now);
      }
      const decision = this.decideNow(bucket, storeId, keyId, allowance);
      if (decision) return decision;
    }
  }

  /**
   * Charges the requests admitted against the first-lease allowance to the tokens a lease granted. What
   * the grant could not cover stays owed (and asked for by the next lease) until the window is known to be
   * used up for the key; after a failed lease (`state` undefined) they count as admitted failing open.
   */
  private chargeOwed(bucket: StoreBucket, state: WindowState | undefined): void {
    for (const [keyId, owed] of bucket.owed) {
      let left = owed;
      const allowance = bucket.demand.get(keyId)?.allowance;
      while (state && left > 0 && takeToken(state, keyId, allowance?.reserved)) left -= 1;
      if (state && left > 0 && allowance && !exhaustedFor(state, keyId, allowance)) {
        bucket.owed.set(keyId, left);
      } else {
        bucket.owed.delete(keyId);
        left = 0;
      }
      bucket.waiting.set(keyId, Math.max(0, (bucket.waiting.get(keyId) ?? 0) - (owed - left)));
    }
  }

  /**
   * Resolves once every lease in flight has been applied, those started before a `reset` included (tests:
   * background work made visible, and kept from running into the next test).
   */
  async settled(): Promise<void> {
    while (this.leasing.size > 0) await Promise.all(this.leasing);
  }

  /** Forgets every lease and observation (tests); leases in flight still finish (`settled`). */
  reset(): void {
    this.buckets.clear();
  }

  private decide(
    admitted: boolean,
    state: WindowState,
    keyId: string,
    allowance: Allowance,
    failedOpen: boolean,
    window: number,
  ): RateLimitDecision {
    const now = this.deps.now();
    const windowEnd = (window + 1) * WINDOW_MS;
    if (admitted) this.stats.admitted += 1;
    else this.stats.limited += 1;
    if (failedOpen) this.stats.failedOpen += 1;
    return {
      admitted,
      limit: allowance.limit,
      remaining: admitted ? remainingFor(state, keyId, allowance) : 0,
      resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      failedOpen,
      window,
    };
  }

  private bucket(storeId: string): StoreBucket {
    let bucket = this.buckets.get(storeId);
    if (!bucket) {
      bucket = {
        windows: new Map(),
        inflight: new Map(),
        demand: new Map(),
        failingUntil: 0,
        leaseMs: 0,
        waiting: new Map(),
        current: 0,
        quietUntil: 0,
        stalled: false,
        leased: false,
        unleased: 0,
        owed: new Map(),
        addresses: new AddressLedger(),
      };
      this.buckets.set(storeId, bucket);
    }
    return bucket;
  }

  private windowState(bucket: StoreBucket, window: number): WindowState {
    let state = bucket.windows.get(window);
    if (!state) {
      state = emptyWindow();
      bucket.windows.set(window, state);
    }
    return state;
  }

  /** Counts the request towards the key's demand; past windows fold into a smoothed rate. */
  private observe(bucket: StoreBucket, keyId: string, window: number, allowance: Allowance): void {
    const demand = bucket.demand.get(keyId) ?? { window, count: 0, last: 0, rate: 0, allowance };
    if (demand.window !== window) {
      const gap = Math.max(1, window - demand.window);
      demand.rate = (demand.rate + demand.count) * 0.5 ** gap;
      demand.last = gap === 1 ? demand.count : 0;
      demand.count = 0;
      demand.window = window;
    }
    demand.count += 1;
    demand.allowance = allowance;
    bucket.demand.set(keyId, demand);
  }

  /** Each key's demand (per second) as it stands in `window`; keys idle for long are forgotten. */
  private demands(bucket: StoreBucket, window: number): KeyDemand[] {
    const out: KeyDemand[] = [];
    for (const [keyId, demand] of bucket.demand) {
      const perSecond = demandPerSecond(demand, window);
      if (perSecond < 0.01 && demand.window < window) {
        bucket.demand.delete(keyId);
        continue;
      }
      out.push({ keyId, perSecond, allowance: demand.allowance });
    }
    return out;
  }

  /** After a token was taken: renew in the background when what is held runs low; prefetch the next window. */
  private renewIfLow(
    bucket: StoreBucket,
    storeId: string,
    window: number,
    keyId: string,
    allowance: Allowance,
  ): void {
    const now = this.deps.now();
    // After a failure, or shortly after a plan that found nothing worth asking for: no planning now (this
    // runs on every admitted request, and planning allocates).
    if (now < bucket.failingUntil || now < bucket.quietUntil) return;
    const state = this.windowState(bucket, window);
    const demand = bucket.demand.get(keyId);
    const perSecond = demand ? demandPerSecond(demand, window) : 1;
    const held = (state.reserved.get(keyId) ?? 0) + state.pool;
    if (
      held <= Math.ceil(perSecond * aheadSeconds(bucket)) &&
      !exhaustedFor(state, keyId, allowance) &&
      !bucket.inflight.has(window)
    ) {
      void this.lease(bucket, storeId, window);
    }
    const next = window + 1;
    if (next * WINDOW_MS - now <= PREFETCH_MS && !bucket.windows.has(next) && !bucket.inflight.has(next)) {
      void this.lease(bucket, storeId, next);
    }
  }

  /**
   * One lease on `window` (single flight per store and window): plans the ask from the observed demand,
   * adds it to the shared counters and applies what was granted. Never rejects: a failure is logged,
   * counted, and opens the store's limiter for FAIL_OPEN_MS.
   */
  private lease(bucket: StoreBucket, storeId: string, window: number, afterRequest = false): Promise<void> {
    const running = bucket.inflight.get(window);
    if (running) return running;
    const now = this.deps.now();
    const state = this.windowState(bucket, window);
    const current = Math.floor(now / WINDOW_MS);
    const left = window === current ? ((window + 1) * WINDOW_MS - now) / 1000 : WINDOW_MS / 1000;
    const demands = this.demands(bucket, window === current ? window : current);
    const pool = Math.max(0, ...demands.map((d) => d.allowance.pool));
    const ask = planLease({
      demands,
      state,
      // Enough to last LEASE_SECONDS past the point where the next renewal starts (within this window).
      seconds: Math.min(LEASE_SECONDS + aheadSeconds(bucket), left),
      ...(window === current ? { waiting: bucket.waiting } : {}),
      pool,
    });
    if (ask.pool === 0 && ask.reserved.size === 0) {
      bucket.quietUntil = now + QUIET_MS;
      return Promise.resolve();
    }
    this.stats.leases += 1;
    const started = this.deps.now();
    const reservedOf = (keyId: string) => demands.find((d) => d.keyId === keyId)?.allowance.reserved ?? 0;
    // The first lease of a container's first request goes out after the request's own first read (a
    // macrotask later): that read takes the connection the token check opened, the lease opens the next.
    const taken = afterRequest
      ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.deps.take(storeId, window, ask))
      : this.deps.take(storeId, window, ask);
    const lease = taken
      .then(
        (after) => {
          const applied = this.windowState(bucket, window);
          applyLease(applied, ask, after, { pool, reserved: reservedOf });
          bucket.leased = true;
          this.chargeOwed(bucket, applied);
          bucket.failingUntil = 0;
          bucket.leaseMs = 0.8 * bucket.leaseMs + 0.2 * (this.deps.now() - started);
        },
        (error: unknown) => {
          this.chargeOwed(bucket, undefined);
          this.stats.leaseFailures += 1;
          bucket.failingUntil = this.deps.now() + FAIL_OPEN_MS;
          log('warn', 'rate limiter lease failed: requests are admitted', {
            store_id: storeId,
            fail_open_ms: FAIL_OPEN_MS,
            error: errorFields(error),
          });
        },
      )
      .finally(() => {
        bucket.inflight.delete(window);
        if (bucket.inflight.size === 0) bucket.stalled = false;
        this.leasing.delete(lease);
      });
    bucket.inflight.set(window, lease);
    this.leasing.add(lease);
    return lease;
  }
}
