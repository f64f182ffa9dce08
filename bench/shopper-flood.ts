import './silent-logs';
import { firstKeyReservation } from '../lib/rate-limit/allowance';
import { checkRateLimit, resetRateLimits } from '../lib/rate-limit/index';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { storeRepository } from '../lib/store/store-repository';
import { progress, runAsScript } from './support';

/** Served / sent for one caller of the shopper-flood scenario. */
export interface Served {
  sent: number;
  served: number;
  ratio: number;
}

/** Served / sent for each caller of the shopper-flood scenario. */
export interface ShopperFloodFigures {
  seconds: number;
  rateLimit: number;
  /** Source addresses flooding at once. */
  addresses: number;
  /** One-second windows the flood touched (a loaded machine stretches the run). */
  windows: number;
  /** All flooding addresses together. */
  flooder: Served;
  admin: Served;
  /** A shopper who was browsing before the flood began, from its own address. */
  shopper: Served;
  /** New shoppers, each from a new address, each making one request (as an implicit grant does). */
  newcomers: Served;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `addresses` source addresses flood a store (limit `rateLimit`, 20/s by default) with storefront requests at 100/s each while
 * its admin key (the first key, reserving the default share) makes about 3 requests/s, a shopper who
 * browsed for a second before the flood about 3/s from its own address, and new shoppers arrive at about
 * 3/s, each from a new address with one request; every request goes through the limiter as the request
 * path calls it, against the shared window items on DynamoDB. Returns what each caller was served.
 */
export async function shopperFlood(
  seconds = 3,
  addresses = 1,
  rateLimit = 20,
  /** The source address of a flooder's nth request (default: one fixed IPv4 address per flooder). */
  flooderAddress: (flooder: number, request: number) => string = (flooder) => `203.0.113.${66 + flooder}`,
): Promise<ShopperFloodFigures> {
  resetRateLimits();
  const store = await storeRepository.create({ name: 'Shopper flood', rate_limit: rateLimit });
  const { key: admin } = await applicationKeyRepository.create(store.id, {
    name: 'Admin',
    reserved_rate_limit: firstKeyReservation(rateLimit),
  });
  const { key: storefront } = await applicationKeyRepository.create(store.id, {
    name: 'Storefront',
    reserved_rate_limit: 0,
  });
  const tally = {
    flooder: { sent: 0, served: 0 },
    admin: { sent: 0, served: 0 },
    shopper: { sent: 0, served: 0 },
    newcomers: { sent: 0, served: 0 },
  };
  const send = async (who: keyof typeof tally | undefined, keyId: string, address?: string) => {
    const decision = await checkRateLimit(store.id, keyId, address ? { address } : undefined);
    if (!who) return;
    tally[who].sent += 1;
    if (!decision || decision.admitted) tally[who].served += 1;
  };
  const flooders = Array.from({ length: addresses }, (_, i) => i);
  let floods = 0;
  const shopper = '198.51.100.23';
  // Before the flood: the shopper browses (not counted), so the limiter has seen it.
  for (let tick = 0; tick < 20; tick += 1) {
    if (tick % 7 === 3) await send(undefined, storefront.id, shopper);
    await sleep(50);
  }
  const ticks = seconds * 20;
  const firstWindow = Math.floor(Date.now() / 1000);
  let newcomer = 0;
  for (let tick = 0; tick < ticks; tick += 1) {
    const started = Date.now();
    const sends = [];
    for (const flooder of flooders)
      for (let i = 0; i < 5; i += 1)
        sends.push(send('flooder', storefront.id, flooderAddress(flooder, floods++)));
    if (tick % 7 === 0) sends.push(send('admin', admin.id));
    if (tick % 7 === 3) sends.push(send('shopper', storefront.id, shopper));
    if (tick % 7 === 5) {
      newcomer += 1;
      sends.push(send('newcomers', storefront.id, `192.0.2.${newcomer}`));
    }
    await Promise.all(sends);
    await sleep(Math.max(0, 50 - (Date.now() - started)));
  }
  const ratio = ({ sent, served }: { sent: number; served: number }) => ({
    sent,
    served,
    ratio: Math.round((served / (sent || 1)) * 1000) / 1000,
  });
  return {
    seconds,
    rateLimit,
    addresses,
    windows: Math.floor(Date.now() / 1000) - firstWindow + 1,
    flooder: ratio(tally.flooder),
    admin: ratio(tally.admin),
    shopper: ratio(tally.shopper),
    newcomers: ratio(tally.newcomers),
  };
}

runAsScript(
  import.meta.url,
  async () => {
    const figures: ShopperFloodFigures[] = [];
    for (const [addresses, rateLimit] of [
      [1, 20],
      [2, 20],
      [2, 40],
      [3, 40],
      [4, 40],
    ] as const) {
      progress(
        `${addresses} address(es) flood a ${rateLimit}/s store at 100/s each; admin key, a shopper and new shoppers at 3/s each`,
      );
      figures.push(await shopperFlood(5, addresses, rateLimit));
    }
    return figures;
  },
  (all) =>
    all
      .map(
        (f) =>
          `${f.addresses} flooding a ${f.rateLimit}/s store: flooders ${f.flooder.served}/${f.flooder.sent} served; admin ${f.admin.served}/${f.admin.sent} (${f.admin.ratio}); shopper ${f.shopper.served}/${f.shopper.sent} (${f.shopper.ratio}); new shoppers ${f.newcomers.served}/${f.newcomers.sent} (${f.newcomers.ratio})\n`,
      )
      .join(''),
);
