import { parseArgs } from 'node:util';
import { storeRepository } from '../lib/store/store-repository';
import { usageError } from './cli';

export const SET_RATE_LIMIT_USAGE = `Usage: npm run admin -- set-rate-limit --store STORE_ID N [--json]

Sets the store's rate limit to N requests per second (1-100000). Refused when the store's application
keys together reserve more than N (lower their reserved_rate_limit first). Every container applies the
new limit within 51 s.`;

/** A usage error: one line on stderr, exit 2. */
class UsageError extends Error {}

const MAX_RATE_LIMIT = 100_000;

const OPTIONS = {
  store: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]): { storeId: string; rateLimit: number; json: boolean } | 'help' {
  let parsed: ReturnType<typeof strictArgs>;
  try {
    parsed = strictArgs(argv);
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  if (parsed.values.help) return 'help';
  const storeId = parsed.values.store;
  if (!storeId) throw new UsageError('set-rate-limit needs --store STORE_ID');
  if (parsed.positionals.length !== 1) throw new UsageError('set-rate-limit needs exactly one rate limit N');
  const raw = parsed.positionals[0] ?? '';
  const rateLimit = Number(raw);
  if (!/^\d+$/.test(raw) || rateLimit < 1 || rateLimit > MAX_RATE_LIMIT) {
    throw new UsageError(`the rate limit must be an integer from 1 to ${MAX_RATE_LIMIT}, got "${raw}"`);
  }
  return { storeId, rateLimit, json: parsed.values.json === true };
}

function strictArgs(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

/** `admin set-rate-limit --store ID N`: returns the exit code (0 done, 1 refused, 2 usage). */
export async function setRateLimitCommand(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageError('admin', error.message);
  }
  if (args === 'help') {
    process.stdout.write(`${SET_RATE_LIMIT_USAGE}\n`);
    return 0;
  }
  const result = await storeRepository.setRateLimit(args.storeId, args.rateLimit);
  if (!result.ok) {
    process.stderr.write(
      result.reason === 'not-found'
        ? `admin: no store with id ${args.storeId}\n`
        : `admin: the store's keys reserve ${result.reserved} requests/s together, more than ${args.rateLimit}: lower their reserved_rate_limit first\n`,
    );
    return 1;
  }
  const output = {
    store_id: result.store.id,
    rate_limit: result.store.rate_limit,
    total_reserved_rate_limit: result.store.reserved_rate_limit_total,
  };
  if (args.json) process.stdout.write(`${JSON.stringify(output)}\n`);
  else {
    for (const [name, value] of Object.entries(output))
      process.stdout.write(`${`${name}:`.padEnd(27)} ${value}\n`);
    process.stderr.write('Every container applies the new limit within 51 s.\n');
  }
  return 0;
}
