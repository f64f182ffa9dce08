import { type AddressShares, addressShares } from './allowance';

/*
 * The storefront side of a store's pool in one container (docs/rate-limits.md): what each source address
 * asked for recently and took in the current window. At each window's first request the shares are set
 * from the addresses' recent demand (`addressShares`, max-min fair): a busy address gets an even split of
 * what the lighter ones leave, never more than half the pool, and addresses new to the container share
 * what the known ones are not set aside (the newcomers' part), so newcomers cannot take what a known
 * shopper needs; a new address takes from that part only while it has taken less than the part has left,
 * so n new addresses flooding together leave at least 1/(n+1) of it to the next one.
 *
 * A demand is an estimate from a second or a few, short either way: a shopper browsing at 3 requests a
 * second lands 2 in one window and 3 in the next (1, with one second of history), and addresses that
 * began to flood at the end of a window look light in the next. So a known address is set aside
 * `min(demand, share)`, and what it takes past that comes out of the newcomers' part under the same rule
 * as a new address's: every request counted, together never more than the pool. An address that asks a
 * little more than its estimate (the shopper) finds room; addresses that ask far more leave room for it.
 */

/** Addresses remembered per store and container; past it, the oldest seen is forgotten first. */
const MAX_ADDRESSES = 10_000;

interface Seen {
  /** Requests in the current window (admitted or not). */
  attempts: number;
  /** Requests admitted in the current window. */
  admitted: number;
  /** Requests in the previous window. */
  last: number;
  /** Smoothed requests per second over past windows (halves every idle second). */
  rate: number;
  /** Seen before the current window: it has a demand, and draws on the newcomers' part only past it. */
  known: boolean;
  /** Its demand as the current window's shares were set (requests per second, whole). */
  demand: number;
}

export class AddressLedger {
  private readonly seen = new Map<string, Seen>();
  private window = Number.NaN;
  private pool = Number.NaN;
  private shares: AddressShares = { share: 1, newcomers: 0 };
  /** What was taken from the newcomers' part in this window (new addresses, and known ones past their part). */
  private newcomersTaken = 0;

  /**
   * Counts a storefront request of `address` in `window`; true when its share (and, past what it is set
   * aside, the newcomers' part) has room for it, which is then counted as taken.
   */
  take(address: string, window: number, pool: number): boolean {
    if (window !== this.window) this.roll(window, pool);
    else if (pool !== this.pool) this.setShares(pool);
    let seen = this.seen.get(address);
    if (!seen) {
      if (this.seen.size >= MAX_ADDRESSES) {
        const oldest = this.seen.keys().next().value;
        if (oldest !== undefined) this.seen.delete(oldest);
      }
      seen = { attempts: 0, admitted: 0, last: 0, rate: 0, known: false, demand: 0 };
      this.seen.set(address, seen);
    }
    seen.attempts += 1;
    if (seen.admitted >= this.shares.share) return false;
    const beyond = seen.admitted - this.setAside(seen);
    if (beyond >= 0) {
      // Past what it is set aside (all of it, for a new address), an address takes from the newcomers' part
      // only while it has taken less of it than the part has left for the others: however many addresses
      // flood, some of the part is always left for the next.
      if (beyond >= this.shares.newcomers - this.newcomersTaken) return false;
      this.newcomersTaken += 1;
    }
    seen.admitted += 1;
    return true;
  }

  /** Gives back what `take` counted (the request was refused for lack of tokens after all). */
  giveBack(address: string, window: number): void {
    const seen = this.seen.get(address);
    if (window !== this.window || !seen || seen.admitted === 0) return;
    seen.admitted -= 1;
    if (seen.admitted >= this.setAside(seen)) this.newcomersTaken = Math.max(0, this.newcomersTaken - 1);
  }

  /** What the current window's shares set aside for `seen`: its demand up to the share (0 when new). */
  private setAside(seen: Seen): number {
    return seen.known ? Math.min(seen.demand, this.shares.share) : 0;
  }

  /** The current window's shares (tests). */
  current(): AddressShares {
    return { ...this.shares };
  }

  /** Folds the finished window(s) into each address's demand, forgets idle ones, sets the new shares. */
  private roll(window: number, pool: number): void {
    const gap = Number.isNaN(this.window) ? 1 : Math.max(1, window - this.window);
    for (const [address, seen] of this.seen) {
      seen.rate = (seen.rate + seen.attempts) * 0.5 ** gap;
      seen.last = gap === 1 ? seen.attempts : 0;
      seen.attempts = 0;
      seen.admitted = 0;
      if (seen.rate < 0.01) {
        this.seen.delete(address);
        continue;
      }
      seen.known = true;
      seen.demand = Math.round(Math.max(seen.rate, seen.last));
    }
    this.window = window;
    this.newcomersTaken = 0;
    this.setShares(pool);
  }

  private setShares(pool: number): void {
    const demands: number[] = [];
    for (const seen of this.seen.values()) if (seen.known && seen.demand > 0) demands.push(seen.demand);
    this.pool = pool;
    this.shares = addressShares(pool, demands);
  }
}
