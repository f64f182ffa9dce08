import { AddressLedger } from '../../lib/rate-limit/addresses';

/*
 * The per-address ledger of one container on its own: windows are plain numbers, the pool is fixed, and
 * "taken" is what the ledger lets through (the pool's tokens are the limiter's business). Whatever the
 * order of requests, what it lets through in a window never adds up to more than the pool.
 */

const POOL = 32;
const SHOPPER = '198.51.100.23';

/** `count` requests of `address` in `window`; how many the ledger let through. */
function send(ledger: AddressLedger, address: string, window: number, count: number): number {
  let taken = 0;
  for (let i = 0; i < count; i += 1) if (ledger.take(address, window, POOL)) taken += 1;
  return taken;
}

/** `rounds` requests from each of `addresses`, taken in turns as a concurrent flood arrives. */
function flood(ledger: AddressLedger, addresses: string[], window: number, rounds: number): number[] {
  const taken = addresses.map(() => 0);
  for (let round = 0; round < rounds; round += 1)
    addresses.forEach((address, i) => {
      if (ledger.take(address, window, POOL)) taken[i] = (taken[i] ?? 0) + 1;
    });
  return taken;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const flooders = (n: number) => Array.from({ length: n }, (_, i) => `203.0.113.${66 + i}`);

describe('AddressLedger', () => {
  it('serves a known shopper that asks more than its estimate while four new addresses flood', () => {
    const ledger = new AddressLedger();
    // One second of history with a single request: its demand is 1, it is set aside 1.
    expect(send(ledger, SHOPPER, 1, 1)).toBe(1);
    // Next window: four new addresses flood (in turns), then the shopper browses at 3.
    const taken = flood(ledger, flooders(4), 2, 100);
    // Each stops once it has taken as much of the newcomers' part (31) as the part has left: 25 in all.
    expect(taken).toEqual([7, 6, 6, 6]);
    expect(send(ledger, SHOPPER, 2, 3)).toBe(3);
    expect(sum(taken) + 3).toBeLessThanOrEqual(POOL);
  });

  it('keeps the pool whole when known addresses that looked light flood', () => {
    const ledger = new AddressLedger();
    // A shopper at 3/s, and four addresses that began flooding at the end of the window (2 requests each).
    expect(send(ledger, SHOPPER, 1, 3)).toBe(3);
    for (const address of flooders(4)) send(ledger, address, 1, 2);
    const taken = flood(ledger, flooders(4), 2, 100);
    // Demands 3, 2, 2, 2, 2: all below an even split, so the share is what is left for one more (32 - 11),
    // at most half the pool.
    expect(ledger.current()).toEqual({ share: 16, newcomers: 21 });
    // Each its 2, then turns at the newcomers' part (21) until it has taken as much as the part has left.
    expect(taken).toEqual([7, 6, 6, 6]);
    // The shopper's 3 were set aside; new shoppers still find some of the part.
    expect(send(ledger, SHOPPER, 2, 3)).toBe(3);
    expect(send(ledger, '192.0.2.1', 2, 1) + send(ledger, '192.0.2.2', 2, 1)).toBe(2);
    expect(sum(taken) + 3 + 2).toBeLessThanOrEqual(POOL);
  });

  it('never lets a window through more than the pool, whatever the history and the order', () => {
    for (let seed = 1; seed <= 50; seed += 1) {
      const ledger = new AddressLedger();
      let state = seed;
      const random = (n: number) => {
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
        return state % n;
      };
      const addresses = Array.from({ length: 12 }, (_, i) => `198.51.100.${i}`);
      for (let window = 1; window <= 6; window += 1) {
        let taken = 0;
        for (let request = 0; request < 200; request += 1)
          if (ledger.take(addresses[random(addresses.length)] as string, window, POOL)) taken += 1;
        expect(taken).toBeLessThanOrEqual(POOL);
      }
    }
  });

  it('gives a refused request back to the part it was taken from', () => {
    const ledger = new AddressLedger();
    send(ledger, SHOPPER, 1, 1);
    // Set aside 1: the first request comes from it, the second from the newcomers' part (31).
    expect(send(ledger, SHOPPER, 2, 2)).toBe(2);
    ledger.giveBack(SHOPPER, 2);
    ledger.giveBack(SHOPPER, 2);
    // Nothing of the part is left taken: one new address alone takes 16 of 31 (it stops at half).
    expect(send(ledger, '192.0.2.9', 2, 100)).toBe(16);
  });
});
