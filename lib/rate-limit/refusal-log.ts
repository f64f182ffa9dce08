import { log } from '../http/log';

/*
 * Refusals are logged as counts, one line per store, key and second ("rate limited", with `count`), not
 * one line per refused request: a flood of 429s must not become a flood of log lines. A finished second's
 * lines are written by the container's next refusal (of any key), inside that request, so they carry a
 * request's context like every line. No timer: outside a request a line would carry a stale context, and
 * a frozen Lambda container runs none. The RateLimitedRequests metric counts every refusal as it happens.
 */

interface Tally {
  second: number;
  count: number;
  storeId: string;
  keyId: string;
  limit: number;
  route: string;
}

const tallies = new Map<string, Tally>();

function write(tally: Tally): void {
  log('warn', 'rate limited', {
    store_id: tally.storeId,
    key_id: tally.keyId,
    limit: tally.limit,
    // Not `route`: the line is written inside whichever request comes next, whose route the logger adds.
    refused_route: tally.route,
    second: tally.second,
    count: tally.count,
  });
}

/** Writes every finished second's line (all of them with `all`: tests, and before a process exits). */
export function flushRefusals(now = Date.now(), all = false): void {
  const second = Math.floor(now / 1000);
  for (const [id, tally] of tallies) {
    if (all || tally.second < second) {
      write(tally);
      tallies.delete(id);
    }
  }
}

/** Counts one refused request of a key; its second's line is written once the second is over. */
export function noteRefusal(
  ids: { storeId: string; keyId: string },
  limit: number,
  route: string,
  now = Date.now(),
): void {
  const second = Math.floor(now / 1000);
  flushRefusals(now);
  const id = `${ids.storeId}/${ids.keyId}`;
  const tally = tallies.get(id);
  if (tally) {
    tally.count += 1;
    return;
  }
  tallies.set(id, { second, count: 1, storeId: ids.storeId, keyId: ids.keyId, limit, route });
}
