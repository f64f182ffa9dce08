import type { KeyLimits, Tokens } from '../../lib/rate-limit/allowance';
import { FAIL_OPEN_MS, FIRST_LEASE_ALLOWANCE, RateLimiter, WINDOW_MS } from '../../lib/rate-limit/limiter';
import type { WindowCounters } from '../../lib/store/rate-limit-repository';

/*
 * The limiter's container logic against an in-memory stand-in for the shared window items and a fake
 * clock, so several "containers" (limiters) can be run in lockstep and every figure is exact. The
 * DynamoDB side is covered by test/integration/rate-limit.test.ts.
 */

class SharedWindows {
  readonly counters = new Map<string, WindowCounters>();
  writes = 0;
  failing = false;

  take = async (storeId: string, window: number, ask: Tokens): Promise<WindowCounters> => {
    if (this.failing) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
    this.writes += 1;
    const id = `${storeId}/${window}`;
    const counters = this.counters.get(id) ?? { pool: 0, reserved: new Map<string, number>() };
    counters.pool += ask.pool;
    for (const [key, n] of ask.reserved) counters.reserved.set(key, (counters.reserved.get(key) ?? 0) + n);
    this.counters.set(id, counters);
    return { pool: counters.pool, reserved: new Map(counters.reserved) };
  };
}

function setup(containers = 1) {
  const shared = new SharedWindows();
  const clock = { now: 10_000 * WINDOW_MS };
  const limiters = Array.from(
    { length: containers },
    () => new RateLimiter({ now: () => clock.now, take: shared.take }),
  );
  return { shared, clock, limiters };
}

const STORE = 'store-1';

/** Sends `count` requests of one key through a limiter; returns how many were admitted. */
async function admitted(limiter: RateLimiter, count: number, limits: KeyLimits, key = 'k'): Promise<number> {
  let n = 0;
  for (let i = 0; i < count; i += 1) if ((await limiter.admit(STORE, key, limits)).admitted) n += 1;
  return n;
}
const unreserved = (rateLimit: number, reservedTotal = 0): KeyLimits => ({
  rateLimit,
  reservedTotal,
  reserved: 0,
});

describe('RateLimiter', () => {
  it('admits exactly the store limit in a window and refuses the rest with a reset of at least 1 s', async () => {
    const { limiters, shared } = setup();
    const limiter = limiters[0] as RateLimiter;
    const decisions = [];
    for (let i = 0; i < 200; i += 1) decisions.push(await limiter.admit(STORE, 'k', unreserved(10)));
    expect(decisions.filter((d) => d.admitted)).toHaveLength(10);
    const refused = decisions.filter((d) => !d.admitted);
    expect(refused).toHaveLength(190);
    for (const d of refused) {
      expect(d.remaining).toBe(0);
      expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(d.limit).toBe(10);
    }
    // Once the window is known to be used up, refusals cost no write.
    expect(shared.writes).toBeLessThan(10);
  });

  it('starts over in the next window (roll-over)', async () => {
    const { limiters, clock } = setup();
    const limiter = limiters[0] as RateLimiter;
    expect(await admitted(limiter, 20, unreserved(5))).toBe(5);
    clock.now += WINDOW_MS;
    expect(await admitted(limiter, 20, unreserved(5))).toBe(5);
  });

  it('shares one limit across containers: 4 flooding containers together admit the limit per window, the reserved key at least its reservation', async () => {
    const { limiters, clock } = setup(4);
    const limits = {
      r: { rateLimit: 50, reservedTotal: 20, reserved: 20 },
      u1: unreserved(50, 20),
      u2: unreserved(50, 20),
    };
    for (let window = 0; window < 5; window += 1) {
      const admitted: Record<string, number> = { r: 0, u1: 0, u2: 0 };
      // 10 steps of 100 ms; in each, every container sees 10 requests of every key.
      for (let step = 0; step < 10; step += 1) {
        for (let i = 0; i < 10; i += 1) {
          for (const limiter of limiters) {
            for (const key of ['r', 'u1', 'u2'] as const) {
              if ((await limiter.admit(STORE, key, limits[key])).admitted)
                admitted[key] = (admitted[key] ?? 0) + 1;
            }
          }
        }
        clock.now += WINDOW_MS / 10;
      }
      const total = (admitted.r ?? 0) + (admitted.u1 ?? 0) + (admitted.u2 ?? 0);
      expect(total).toBeLessThanOrEqual(50);
      expect(total).toBeGreaterThanOrEqual(45);
      expect(admitted.r).toBeGreaterThanOrEqual(20);
    }
  });

  it('keeps a reserved key served while an unreserved key of its store floods', async () => {
    const { limiters, clock } = setup(2);
    const [flooder, quiet] = limiters as [RateLimiter, RateLimiter];
    const reservedLimits = { rateLimit: 20, reservedTotal: 5, reserved: 5 };
    let quietAdmitted = 0;
    // Two seconds; the reserved key asks every 200 ms: 5 requests/s, exactly its reservation.
    for (let step = 0; step < 20; step += 1) {
      for (let i = 0; i < 50; i += 1) await flooder.admit(STORE, 'flood', unreserved(20, 5));
      if (step % 2 === 0 && (await quiet.admit(STORE, 'reserved', reservedLimits)).admitted)
        quietAdmitted += 1;
      clock.now += WINDOW_MS / 10;
    }
    expect(quietAdmitted).toBe(10);
    expect(flooder.stats.admitted).toBe(30);
  });

  it('writes at most once per 10 admitted requests at a steady 50 requests/s', async () => {
    const { limiters, clock, shared } = setup();
    const limiter = limiters[0] as RateLimiter;
    let admitted = 0;
    for (let i = 0; i < 500; i += 1) {
      if ((await limiter.admit(STORE, 'k', unreserved(100))).admitted) admitted += 1;
      clock.now += 20;
    }
    expect(admitted).toBe(500);
    expect(shared.writes / admitted).toBeLessThanOrEqual(0.1);
    expect(limiter.stats.leases).toBe(shared.writes);
  });

  it('fails open when its DynamoDB calls fail: admits, counts, and waits before trying again', async () => {
    const { limiters, clock, shared } = setup();
    const limiter = limiters[0] as RateLimiter;
    shared.failing = true;
    const decisions = [];
    for (let i = 0; i < 30; i += 1) decisions.push(await limiter.admit(STORE, 'k', unreserved(10)));
    expect(decisions.every((d) => d.admitted)).toBe(true);
    // The first is admitted against the first-lease allowance; once that lease failed, the rest fail open.
    expect(decisions.map((d) => d.failedOpen)).toEqual([false, ...Array(29).fill(true)]);
    expect(limiter.stats.leaseFailures).toBe(1);
    expect(limiter.stats.unleased).toBe(1);
    expect(limiter.stats.failedOpen).toBe(29);
    shared.failing = false;
    clock.now += FAIL_OPEN_MS;
    expect(await admitted(limiter, 30, unreserved(10))).toBe(10);
  });

  it('never makes a container’s first request wait: up to the first-lease allowance are admitted while the lease runs, then charged to it', async () => {
    const { limiters, shared } = setup();
    const limiter = limiters[0] as RateLimiter;
    const first = limiter.admit(STORE, 'k', unreserved(10));
    // Decided at once, without a promise: nothing waited for DynamoDB.
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ admitted: true, failedOpen: false });
    await limiter.settled();
    // Charged: the whole window still admits exactly its limit.
    expect(1 + (await admitted(limiter, 30, unreserved(10)))).toBe(10);
    expect(shared.counters.get(`${STORE}/10000`)?.pool).toBeGreaterThanOrEqual(10);
  });

  it('sends a container’s first lease after the first request’s own reads have gone out', async () => {
    const order: string[] = [];
    const shared = new SharedWindows();
    const limiter = new RateLimiter({
      now: () => 10_000 * WINDOW_MS,
      take: (...args) => {
        order.push('lease');
        return shared.take(...args);
      },
    });
    expect(limiter.admit(STORE, 'k', unreserved(10))).toMatchObject({ admitted: true });
    // The handler's first read, sent in the microtasks after the decision.
    await Promise.resolve().then(() => order.push('read'));
    await limiter.settled();
    expect(order).toEqual(['read', 'lease']);
    expect(shared.writes).toBe(1);
  });

  it('bounds what a new container admits before its first lease answers: FIRST_LEASE_ALLOWANCE beyond a used-up window', async () => {
    const { limiters } = setup(2);
    const [busy, fresh] = limiters as [RateLimiter, RateLimiter];
    expect(await admitted(busy, 30, unreserved(10))).toBe(10);
    // A fresh container whose first lease will find the window used up.
    const decisions = [];
    for (let i = 0; i < 20; i += 1) decisions.push(await fresh.admit(STORE, 'k', unreserved(10)));
    expect(decisions.filter((d) => d.admitted).length).toBeLessThanOrEqual(FIRST_LEASE_ALLOWANCE);
    expect(fresh.stats.unleased).toBeLessThanOrEqual(FIRST_LEASE_ALLOWANCE);
  });

  it('waits for a stalled lease at most its deadline, then admits at once until the lease settles', async () => {
    let release: (() => void) | undefined;
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    const shared = new SharedWindows();
    const clock = { now: 10_000 * WINDOW_MS };
    const limiter = new RateLimiter({
      now: () => clock.now,
      take: async (...args) => {
        await hanging;
        return shared.take(...args);
      },
      deadlineMs: 30,
    });
    for (let i = 0; i < FIRST_LEASE_ALLOWANCE; i += 1) await limiter.admit(STORE, 'k', unreserved(10));
    const started = Date.now();
    const waited = await limiter.admit(STORE, 'k', unreserved(10));
    const waitedMs = Date.now() - started;
    expect(waited).toMatchObject({ admitted: true, failedOpen: true });
    expect(waitedMs).toBeGreaterThanOrEqual(25);
    expect(waitedMs).toBeLessThan(1000);
    // Stalled: the next requests do not wait again.
    const next = limiter.admit(STORE, 'k', unreserved(10));
    expect(next).not.toBeInstanceOf(Promise);
    expect(next).toMatchObject({ admitted: true, failedOpen: true });
    release?.();
    await limiter.settled();
    expect(limiter.stats.leaseFailures).toBe(0);
  });

  it('applies a changed limit to the next lease', async () => {
    const { limiters, clock } = setup();
    const limiter = limiters[0] as RateLimiter;
    expect(await admitted(limiter, 30, unreserved(10))).toBe(10);
    clock.now += WINDOW_MS;
    expect(await admitted(limiter, 30, unreserved(3))).toBe(3);
  });
});

describe('settled', () => {
  it('waits for a lease started before a reset, which still counts in the stats', async () => {
    let release: (() => void) | undefined;
    const shared = new SharedWindows();
    const limiter = new RateLimiter({
      now: () => 10_000 * WINDOW_MS,
      take: (storeId, window, ask) =>
        new Promise<void>((resolve) => {
          release = resolve;
        }).then(() => shared.take(storeId, window, ask)),
    });
    // The first request is admitted at once; its lease goes out in the background and is held here.
    expect((await limiter.admit(STORE, 'k', unreserved(10))).admitted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(release).toBeDefined();
    limiter.reset();
    let done = false;
    const settling = limiter.settled().then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    release?.();
    await settling;
    expect(shared.writes).toBe(1);
    expect(limiter.stats.leases).toBe(1);
  });
});

describe('storefront source addresses', () => {
  /** Storefront requests of `address` in the current window; returns how many were admitted. */
  async function fromAddress(limiter: RateLimiter, address: string, count: number): Promise<number> {
    let n = 0;
    for (let i = 0; i < count; i += 1)
      if ((await limiter.admit(STORE, 'k#implicit', unreserved(32), address)).admitted) n += 1;
    return n;
  }

  it('counts a request that waited for a lease into the next window against the share of that window', async () => {
    const shared = new SharedWindows();
    const clock = { now: 10_000 * WINDOW_MS };
    const first = 10_000;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first window's leases hang until released; the next window's answer at once.
    const limiter = new RateLimiter({
      now: () => clock.now,
      take: (storeId, window, ask) =>
        window === first
          ? gate.then(() => shared.take(storeId, window, ask))
          : shared.take(storeId, window, ask),
    });
    const pending = Array.from({ length: 12 }, () =>
      limiter.admit(STORE, 'k#implicit', unreserved(32), 'flood'),
    );
    clock.now += WINDOW_MS;
    // Next window: the address, known now, takes its whole share (half the pool) before the lease answers.
    expect(await fromAddress(limiter, 'flood', 40)).toBe(16);
    release();
    const late = (await Promise.all(pending)).filter((decision) => decision.admitted).length;
    // Only the request admitted before the first lease answered; the waiting ones find no share left.
    expect(late).toBe(FIRST_LEASE_ALLOWANCE);
  });

  it('leaves a shopper and new shoppers served while 2, 3 or 4 addresses flood, from the second window on', async () => {
    for (const attackers of [2, 3, 4]) {
      const { limiters, clock } = setup();
      const limiter = limiters[0] as RateLimiter;
      // Window 0: the shopper browses (3 requests); nobody floods yet.
      expect(await fromAddress(limiter, 'shopper', 3)).toBe(3);
      const perWindow: { flood: number[]; shopper: number; newcomers: number }[] = [];
      for (let window = 1; window <= 4; window += 1) {
        clock.now = (10_000 + window) * WINDOW_MS;
        const flood: number[] = [];
        for (let a = 0; a < attackers; a += 1) flood.push(await fromAddress(limiter, `attacker-${a}`, 50));
        const shopper = await fromAddress(limiter, 'shopper', 3);
        let newcomers = 0;
        for (let n = 0; n < 3; n += 1) newcomers += await fromAddress(limiter, `new-${window}-${n}`, 1);
        perWindow.push({ flood, shopper, newcomers });
      }
      // Window 1: the flooding addresses are new, so they draw on what the shopper's 3 leave (29), each
      // only while it has taken less than what is left: 15, 7, 4, 2. The shopper keeps its 3; new shoppers
      // get what the flooders left (7, 3, 1 of it). From window 2 on, the flooders are known and each gets
      // an even split of what the shopper and new shoppers leave.
      expect(perWindow[0]).toEqual({
        flood: [15, 7, 4, 2].slice(0, attackers),
        shopper: 3,
        newcomers: { 2: 3, 3: 3, 4: 1 }[attackers],
      });
      for (const seen of perWindow.slice(1)) {
        expect(seen.shopper).toBe(3);
        expect(seen.newcomers).toBe(3);
      }
      // 32 less the shopper's 3 and the last window's new shoppers' 3, split among the flooders and one
      // share kept for newcomers: 26 / 3 = 8, 26 / 4 = 6, 26 / 5 = 5.
      const share = { 2: 8, 3: 6, 4: 5 }[attackers] ?? 0;
      for (const seen of perWindow.slice(1)) expect(seen.flood).toEqual(Array(attackers).fill(share));
    }
  });
});
