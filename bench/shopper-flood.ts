import './silent-logs';
import { firstKeyReservation } from '../lib/rate-limit/allowance';
import { checkRateLimit, resetRateLimits } from '../lib/rate-limit/index';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { storeRepository } from '../lib/store/store-repository';
import { progress, runAsScript } from './support';

/** Served / sent for each caller of the shopper-flood scenario. */
export interface ShopperFloodFigures {
  seconds: number;
  /** One-second windows the run touched (a loaded machine stretches the run). */
  windows: number;
  flooder: { sent: number; served: number };
  admin: { sent: number; served: number; ratio: number };
  shopper: { sent: number; served: number; ratio: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One source address floods a store (limit 20/s) with storefront requests at 100/s while its admin key
 * (the first key, reserving the default share) makes 3 requests/s and another shopper, from another
 * address, 3/s; every request goes through the limiter as the request path calls it, against the shared
 * window items on DynamoDB. Returns what each caller was served.
 */
export async function shopperFlood(seconds = 3): Promise<ShopperFloodFigures> {
  resetRateLimits();
  const rateLimit = 20;
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
  };
  const send = async (who: keyof typeof tally, keyId: string, address?: string) => {
    tally[who].sent += 1;
    const decision = await checkRateLimit(store.id, keyId, address ? { address } : undefined);
    if (!decision || decision.admitted) tally[who].served += 1;
  };
  const ticks = seconds * 20;
  const firstWindow = Math.floor(Date.now() / 1000);
  for (let tick = 0; tick < ticks; tick += 1) {
    const started = Date.now();
    const sends = [];
    for (let i = 0; i < 5; i += 1) sends.push(send('flooder', storefront.id, '203.0.113.66'));
    if (tick % 7 === 0) sends.push(send('admin', admin.id));
    if (tick % 7 === 3) sends.push(send('shopper', storefront.id, '198.51.100.23'));
    await Promise.all(sends);
    await sleep(Math.max(0, 50 - (Date.now() - started)));
  }
  const ratio = ({ sent, served }: { sent: number; served: number }) =>
    Math.round((served / (sent || 1)) * 1000) / 1000;
  return {
    seconds,
    windows: Math.floor(Date.now() / 1000) - firstWindow + 1,
    flooder: tally.flooder,
    admin: { ...tally.admin, ratio: ratio(tally.admin) },
    shopper: { ...tally.shopper, ratio: ratio(tally.shopper) },
  };
}

runAsScript(
  import.meta.url,
  async () => {
    progress('one address floods a 20/s store at 100/s; admin key and another shopper at 3/s each');
    return shopperFlood(5);
  },
  (f) =>
    `flooder ${f.flooder.served}/${f.flooder.sent} served; admin ${f.admin.served}/${f.admin.sent} (${f.admin.ratio}); other shopper ${f.shopper.served}/${f.shopper.sent} (${f.shopper.ratio})\n`,
);
