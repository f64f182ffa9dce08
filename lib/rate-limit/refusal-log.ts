import { log } from '../http/log';

/*
 * Refusals are logged as counts, one line per store, key and second ("rate limited", with `count`), not
 * one line per refused request: a flood of 429s must not become a flood of log lines. A second's line is
 * written when the key's next refusal falls in a later second, or by a timer shortly after the second
 * ends (unref'd: it never keeps a process alive; a frozen Lambda container writes it on its next refusal).
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
let timer: NodeJS.Timeout | undefined;

function write(tally: Tally): void {
  log('warn', 'rate limited', {
    store_id: tally.storeId,
    key_id: tally.keyId,
    limit: tally.limit,
    route: tally.route,
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
  const id = `${ids.storeId}/${ids.keyId}`;
  const tally = tallies.get(id);
  if (tally && tally.second === second) {
    tally.count += 1;
    return;
  }
  if (tally) write(tally);
  tallies.set(id, { second, count: 1, storeId: ids.storeId, keyId: ids.keyId, limit, route });
  if (!timer) {
    timer = setTimeout(
      () => {
        timer = undefined;
        flushRefusals();
      },
      (second + 1) * 1000 - now + 5,
    );
    timer.unref?.();
  }
}
