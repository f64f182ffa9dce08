import { parseArgs } from 'node:util';
import { storeRepository } from '../lib/store/store-repository';
import { usageError } from './cli';

export const SET_CHANNEL_HEADER_USAGE = `Usage: npm run admin -- set-channel-header --store STORE_ID required|optional [--json]

Whether the store's catalog reads need the channel header (SVC-Channel or EP-Channel). "required" (the
default of every store) answers 400 to a request without one; "optional" lets such a request match the
catalog rules that name no channel (a storefront that sends no channel, as the reference storefront does).
Every container applies the setting within 60 s.`;

class UsageError extends Error {}

const OPTIONS = {
  store: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]): { storeId: string; required: boolean; json: boolean } | 'help' {
  let parsed: ReturnType<typeof strictArgs>;
  try {
    parsed = strictArgs(argv);
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  if (parsed.values.help) return 'help';
  const storeId = parsed.values.store;
  if (!storeId) throw new UsageError('set-channel-header needs --store STORE_ID');
  const [value, ...rest] = parsed.positionals;
  if (rest.length > 0 || (value !== 'required' && value !== 'optional')) {
    throw new UsageError('set-channel-header needs exactly one of required or optional');
  }
  return { storeId, required: value === 'required', json: parsed.values.json === true };
}

function strictArgs(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

/** `admin set-channel-header --store ID required|optional`: returns the exit code (0 done, 1 no store, 2 usage). */
export async function setChannelHeaderCommand(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageError('admin', error.message);
  }
  if (args === 'help') {
    process.stdout.write(`${SET_CHANNEL_HEADER_USAGE}\n`);
    return 0;
  }
  const store = await storeRepository.setChannelRequired(args.storeId, args.required);
  if (!store) {
    process.stderr.write(`no store with id ${args.storeId}\n`);
    return 1;
  }
  const output = { store_id: store.id, channel_required: store.channel_required !== false };
  if (args.json) process.stdout.write(`${JSON.stringify(output)}\n`);
  else {
    for (const [name, value] of Object.entries(output))
      process.stdout.write(`${`${name}:`.padEnd(17)} ${value}\n`);
    process.stderr.write('Every container applies the setting within 60 s.\n');
  }
  return 0;
}
