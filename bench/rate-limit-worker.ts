import './silent-logs';
import { checkRateLimit, keyLimits, rateLimiter } from '../lib/rate-limit/index';
import { getDocumentClient } from '../lib/store/client';

/*
 * One simulated Lambda container for the rate-limit benchmark and the multi-process test: it reads the
 * keys' limits (a warm container), prints `ready`, reads the start time (epoch ms) from stdin, and from then for DURATION_MS it sends RATE_PER_KEY requests per second of every key in KEYS (a JSON list)
 * through the limiter the functions use, against the shared DynamoDB in the environment, and prints one
 * JSON line: per key, the requests admitted in each window (epoch second), and its limiter's counts.
 */

export interface WorkerReport {
  admitted: Record<string, Record<string, number>>;
  attempts: number;
  writes: number;
  stats: typeof rateLimiter.stats;
}

const TICK_MS = 10;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** The key's limits, asked again (every 20 ms, for at most 10 s) while the limiter says its read stalled. */
async function warmLimits(storeId: string, keyId: string): Promise<void> {
  for (let waited = 0; ; waited += 20) {
    try {
      await keyLimits(storeId, keyId);
      return;
    } catch (error) {
      if ((error as Error).name !== 'LimitsStalled' || waited >= 10_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function main(): Promise<void> {
  const storeId = required('STORE_ID');
  const keys = JSON.parse(required('KEYS')) as string[];
  const perKey = Number(required('RATE_PER_KEY'));
  const duration = Number(required('DURATION_MS'));
  let writes = 0;
  getDocumentClient().use((next) => (operation, body) => {
    if (operation === 'UpdateItem') writes += 1;
    return next(operation, body);
  });
  const admitted: WorkerReport['admitted'] = Object.fromEntries(keys.map((key) => [key, {}]));
  let attempts = 0;
  const pending = new Set<Promise<void>>();
  // A warm container: the keys' limits are cached and the connection to DynamoDB is open. A fresh process's
  // first reads can pass the limiter's deadline (they go on in the background): ask again until cached.
  await Promise.all(keys.map((key) => warmLimits(storeId, key)));
  process.stdout.write('ready\n');
  const startAt = await new Promise<number>((resolve) => {
    let input = '';
    process.stdin.on('data', (chunk: Buffer) => {
      input += chunk.toString();
      if (input.includes('\n')) resolve(Number(input.trim()));
    });
  });
  process.stdin.pause();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  const end = startAt + duration;
  let sent = 0;
  while (Date.now() < end) {
    // Paced by the clock: as many requests as the rate says by now (bursts make up for a slow tick).
    const due = Math.floor(((Date.now() - startAt) / 1000) * perKey);
    for (; sent < due; sent += 1) {
      for (const key of keys) {
        attempts += 1;
        const request = Promise.resolve(checkRateLimit(storeId, key)).then((decision) => {
          if (decision?.admitted) {
            const counts = admitted[key] as Record<string, number>;
            counts[decision.window] = (counts[decision.window] ?? 0) + 1;
          }
        });
        pending.add(request);
        void request.finally(() => pending.delete(request));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(pending);
  const report: WorkerReport = { admitted, attempts, writes, stats: rateLimiter.stats };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
