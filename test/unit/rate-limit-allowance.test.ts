import fc from 'fast-check';
import {
  addressShares,
  allowanceOf,
  applyLease,
  emptyWindow,
  exhaustedFor,
  granted,
  type KeyDemand,
  planLease,
  remainingFor,
  type Tokens,
  takeToken,
} from '../../lib/rate-limit/allowance';

const tokens = (pool: number, reserved: Record<string, number> = {}): Tokens => ({
  pool,
  reserved: new Map(Object.entries(reserved)),
});

describe('allowanceOf', () => {
  it('gives an unreserved key the unreserved remainder of the store (the pool)', () => {
    expect(allowanceOf({ rateLimit: 50, reservedTotal: 20, reserved: 0 })).toEqual({
      reserved: 0,
      pool: 30,
      limit: 30,
    });
  });

  it('gives a reserved key its reservation plus the whole pool it may borrow from', () => {
    expect(allowanceOf({ rateLimit: 50, reservedTotal: 20, reserved: 20 })).toEqual({
      reserved: 20,
      pool: 30,
      limit: 50,
    });
  });

  it('has no pool when the keys reserve the whole limit', () => {
    expect(allowanceOf({ rateLimit: 10, reservedTotal: 10, reserved: 4 })).toEqual({
      reserved: 4,
      pool: 0,
      limit: 4,
    });
    expect(allowanceOf({ rateLimit: 10, reservedTotal: 10, reserved: 0 })).toEqual({
      reserved: 0,
      pool: 0,
      limit: 0,
    });
  });

  it('never lets a stale total or reservation exceed the store limit', () => {
    expect(allowanceOf({ rateLimit: 10, reservedTotal: 3, reserved: 15 })).toEqual({
      reserved: 10,
      pool: 0,
      limit: 10,
    });
    expect(allowanceOf({ rateLimit: 10, reservedTotal: 12, reserved: 0 }).pool).toBe(0);
  });
});

describe('granted', () => {
  it('grants what fits under the limit, given the counter after the addition', () => {
    expect(granted(5, 5, 10)).toBe(5);
    expect(granted(5, 12, 10)).toBe(3);
    expect(granted(5, 15, 10)).toBe(0);
    expect(granted(5, 40, 10)).toBe(0);
    expect(granted(0, 7, 10)).toBe(0);
  });

  it('never grants more than the limit in total, whatever order the leases reach the counter in', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(30), { maxLength: 30 }), fc.nat(100), (asks, max) => {
        let counter = 0;
        let total = 0;
        for (const ask of asks) {
          counter += ask;
          total += granted(ask, counter, max);
        }
        const asked = asks.reduce((a, b) => a + b, 0);
        expect(total).toBe(Math.min(max, asked));
      }),
    );
  });
});

describe('takeToken', () => {
  it('uses the key reservation first, then borrows from the pool, then refuses', () => {
    const state = { ...emptyWindow(), ...tokens(1, { a: 1 }) };
    expect(takeToken(state, 'a')).toBe('reserved');
    expect(takeToken(state, 'a')).toBe('pool');
    expect(takeToken(state, 'a')).toBeUndefined();
  });

  it('makes a reserved key wait for its own tokens rather than borrow the pool before its reservation is used up', () => {
    const state = { ...emptyWindow(), ...tokens(5) };
    // The container holds none of the key's 8 yet: the pool's 5 stay for the keys counted against it.
    expect(takeToken(state, 'a', 8)).toBeUndefined();
    expect(state.pool).toBe(5);
    // Once the window's reservation is known to be used up, it borrows.
    state.reservedExhausted.add('a');
    expect(takeToken(state, 'a', 8)).toBe('pool');
    expect(state.pool).toBe(4);
  });

  it('never hands one key another key’s reserved tokens', () => {
    const state = { ...emptyWindow(), ...tokens(0, { a: 3 }) };
    expect(takeToken(state, 'b')).toBeUndefined();
    expect(state.reserved.get('a')).toBe(3);
  });
});

describe('exhaustedFor', () => {
  const reserved = allowanceOf({ rateLimit: 50, reservedTotal: 20, reserved: 20 });
  const unreserved = allowanceOf({ rateLimit: 50, reservedTotal: 20, reserved: 0 });

  it('an unreserved key is done when the pool is', () => {
    const state = emptyWindow();
    expect(exhaustedFor(state, 'u', unreserved)).toBe(false);
    state.poolExhausted = true;
    expect(exhaustedFor(state, 'u', unreserved)).toBe(true);
  });

  it('a reserved key is still served from its reservation when the pool is used up', () => {
    const state = emptyWindow();
    state.poolExhausted = true;
    expect(exhaustedFor(state, 'r', reserved)).toBe(false);
    state.reservedExhausted.add('r');
    expect(exhaustedFor(state, 'r', reserved)).toBe(true);
  });
});

describe('planLease', () => {
  const reservedKey: KeyDemand = {
    keyId: 'r',
    perSecond: 100,
    allowance: allowanceOf({ rateLimit: 50, reservedTotal: 20, reserved: 20 }),
  };
  const unreservedKey: KeyDemand = {
    keyId: 'u',
    perSecond: 10,
    allowance: allowanceOf({ rateLimit: 50, reservedTotal: 20, reserved: 0 }),
  };

  it('asks for half a second of demand: reservation first, the rest from the pool, capped by each', () => {
    const ask = planLease({
      demands: [reservedKey, unreservedKey],
      state: emptyWindow(),
      seconds: 0.5,
      pool: 30,
    });
    // r: 50 wanted, 20 from its reservation, 30 from the pool; u: 5 from the pool; the pool caps at 30.
    expect(ask.reserved).toEqual(new Map([['r', 20]]));
    expect(ask.pool).toBe(30);
  });

  it('sizes the ask to the observed rate, minus what is still held', () => {
    const slow = { ...unreservedKey, perSecond: 8 };
    const state = { ...emptyWindow(), ...tokens(1) };
    expect(planLease({ demands: [slow], state, seconds: 0.5, pool: 30 })).toEqual(tokens(3));
  });

  it('asks nothing from a counter known to be used up', () => {
    const state = emptyWindow();
    state.poolExhausted = true;
    state.reservedExhausted.add('r');
    expect(planLease({ demands: [reservedKey, unreservedKey], state, seconds: 0.5, pool: 30 })).toEqual(
      tokens(0),
    );
  });

  it('asks at least one token per waiting request, from where that key can still draw', () => {
    const idle = { ...unreservedKey, perSecond: 0 };
    const idleReserved = { ...reservedKey, perSecond: 0 };
    const plan = (demand: KeyDemand, waiting: number, state = emptyWindow()) =>
      planLease({
        demands: [demand],
        state,
        seconds: 0.5,
        pool: 30,
        waiting: new Map([[demand.keyId, waiting]]),
      });
    expect(plan(idle, 3)).toEqual(tokens(3));
    expect(plan(idleReserved, 1)).toEqual(tokens(0, { r: 1 }));
    // More waiting than the reservation holds: the rest from the pool.
    expect(plan(idleReserved, 25)).toEqual(tokens(5, { r: 20 }));
    const usedUp = emptyWindow();
    usedUp.reservedExhausted.add('r');
    expect(plan(idleReserved, 1, usedUp)).toEqual(tokens(1));
  });
});

describe('applyLease and remainingFor', () => {
  const allowance = allowanceOf({ rateLimit: 50, reservedTotal: 20, reserved: 20 });
  const limits = { pool: 30, reserved: () => 20 };

  it('adds the granted tokens and marks the counters that reached their limit', () => {
    const state = emptyWindow();
    // Others took 25 of the pool and 10 of r's reservation before this lease of 10 + 15.
    applyLease(state, tokens(10, { r: 15 }), tokens(35, { r: 25 }), limits);
    expect(state.pool).toBe(5);
    expect(state.reserved.get('r')).toBe(10);
    expect(state.poolExhausted).toBe(true);
    expect(state.reservedExhausted.has('r')).toBe(true);
    expect(remainingFor(state, 'r', allowance)).toBe(15);
  });

  it('estimates what is left: held tokens plus what the window had unallocated when last seen', () => {
    const state = emptyWindow();
    applyLease(state, tokens(5, { r: 5 }), tokens(12, { r: 5 }), limits);
    expect(state.poolExhausted).toBe(false);
    // held 5 + 5; unallocated: reservation 20 - 5, pool 30 - 12.
    expect(remainingFor(state, 'r', allowance)).toBe(10 + 15 + 18);
    expect(takeToken(state, 'r')).toBe('reserved');
    expect(remainingFor(state, 'r', allowance)).toBe(42);
  });
});

describe('addressShares', () => {
  const setAside = (demands: number[], share: number) =>
    demands.reduce((sum, demand) => sum + Math.min(demand, share), 0);

  it('gives one busy address half the pool, as before any other address is seen', () => {
    expect(addressShares(16, [100])).toEqual({ share: 8, newcomers: 8 });
    expect(addressShares(16, [])).toEqual({ share: 8, newcomers: 16 });
  });

  it('splits what light addresses leave among the busy ones, keeping one share for newcomers', () => {
    // Two flooding addresses and a shopper at 3/s, pool 16: the shopper's 3 set aside, 13 split three ways.
    expect(addressShares(16, [100, 100, 3])).toEqual({ share: 4, newcomers: 5 });
    expect(addressShares(16, [100, 100, 100, 3])).toEqual({ share: 3, newcomers: 4 });
    expect(addressShares(80, [500, 500])).toEqual({ share: 26, newcomers: 28 });
  });

  it('never goes below one request per address, even when addresses outnumber the pool', () => {
    expect(addressShares(4, [9, 9, 9, 9, 9])).toEqual({ share: 1, newcomers: 0 });
    expect(addressShares(0, [3])).toEqual({ share: 1, newcomers: 0 });
  });

  const inputs = fc.tuple(fc.nat(2000), fc.array(fc.nat(300), { maxLength: 60 }));

  it('is max-min fair: the known addresses at the share and one more fit, one more request each would not', () => {
    fc.assert(
      fc.property(inputs, ([pool, demands]) => {
        const { share } = addressShares(pool, demands);
        const half = Math.floor(pool / 2);
        expect(share).toBeGreaterThanOrEqual(1);
        expect(share).toBeLessThanOrEqual(Math.max(1, half));
        if (share > 1 || pool >= demands.length + 1) {
          expect(setAside(demands, share) + share).toBeLessThanOrEqual(pool);
        }
        if (share < half) {
          expect(setAside(demands, share + 1) + share + 1).toBeGreaterThan(pool);
        }
      }),
    );
  });

  it('gives every address at least an even split and newcomers at least one share', () => {
    fc.assert(
      fc.property(inputs, ([pool, demands]) => {
        const { share, newcomers } = addressShares(pool, demands);
        expect(share).toBeGreaterThanOrEqual(
          Math.max(1, Math.min(Math.floor(pool / 2), Math.floor(pool / (demands.length + 1)))),
        );
        expect(newcomers).toBe(Math.max(0, pool - setAside(demands, share)));
        if (pool >= demands.length + 1) expect(newcomers).toBeGreaterThanOrEqual(share);
      }),
    );
  });

  it('lets n busy addresses take at most n/(n+1) of the pool, however hard they flood', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 2000 }), fc.integer({ min: 1, max: 50 }), (pool, n) => {
        fc.pre(pool >= n + 1);
        const { share } = addressShares(pool, Array(n).fill(10 * pool));
        expect(n * share).toBeLessThanOrEqual(Math.floor((n * pool) / (n + 1)));
      }),
    );
  });
});
