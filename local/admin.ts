import './quiet-sdk';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { storeRepository } from '../lib/store/store-repository';
import { fail, option, parseArgs } from './args';
import { setRateLimitCommand } from './set-rate-limit';

const USAGE = `Usage:
  npm run admin -- create-store --name NAME [--rate-limit N] [--page-length N] [--json]
  npm run admin -- create-key --store STORE_ID [--name NAME] [--json]
  npm run admin -- set-rate-limit --store STORE_ID N [--json]

Talks to DynamoDB at DYNAMODB_ENDPOINT (default http://127.0.0.1:8000; the tables of \`npm start\`),
or to AWS when DYNAMODB_ENDPOINT is empty and KEYS_TABLE/MAPPINGS_TABLE name the deployed tables.`;

function positiveInt(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    fail(`--${name} must be an integer from 1 to ${max}`);
  return Number(raw);
}

function print(values: Record<string, string>, asJson: boolean, note: string): void {
  if (asJson) {
    process.stdout.write(`${JSON.stringify(values)}\n`);
    return;
  }
  const width = Math.max(...Object.keys(values).map((k) => k.length)) + 1;
  for (const [name, value] of Object.entries(values))
    process.stdout.write(`${`${name}:`.padEnd(width)} ${value}\n`);
  process.stderr.write(`${note}\n`);
}

async function main(): Promise<void> {
  process.env.DYNAMODB_ENDPOINT ??= 'http://127.0.0.1:8000';
  if (process.argv[2] === 'set-rate-limit') {
    process.exitCode = await setRateLimitCommand(process.argv.slice(3));
    return;
  }
  const args = parseArgs(process.argv.slice(2), ['name', 'store', 'rate-limit', 'page-length']);
  const command = args.positionals[0];
  const asJson = args.flags.has('json');
  if (command === 'create-store') {
    const name = option(args, 'name');
    if (!name || name.length > 255) fail(`create-store needs --name (1-255 characters)\n\n${USAGE}`);
    const store = await storeRepository.create({
      name,
      rate_limit: positiveInt(option(args, 'rate-limit'), 'rate-limit', 100, 100000),
      page_length: positiveInt(option(args, 'page-length'), 'page-length', 25, 100),
    });
    const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
      name: 'Default key',
      reserved_rate_limit: 0,
    });
    print(
      {
        store_id: store.id,
        client_id: key.client_id,
        client_secret: clientSecret,
        mapping_id: store.mapping_id,
      },
      asJson,
      'The client secret is shown only now: keep it somewhere safe.',
    );
    return;
  }
  if (command === 'create-key') {
    const storeId = option(args, 'store');
    if (!storeId) fail(`create-key needs --store STORE_ID\n\n${USAGE}`);
    if (!(await storeRepository.get(storeId, true))) fail(`no store with id ${storeId}`);
    const name = option(args, 'name') ?? 'Admin key';
    if (name.length < 1 || name.length > 255) fail('--name must be 1-255 characters');
    const { key, clientSecret } = await applicationKeyRepository.create(storeId, {
      name,
      reserved_rate_limit: 0,
    });
    print(
      { store_id: storeId, key_id: key.id, client_id: key.client_id, client_secret: clientSecret },
      asJson,
      'The client secret is shown only now: keep it somewhere safe.',
    );
    return;
  }
  fail(USAGE);
}

main().catch((error: unknown) => {
  const e = error as Error & { code?: string };
  if (e.code === 'ECONNREFUSED' || e.name === 'ResourceNotFoundException') {
    fail(
      `cannot reach the tables at ${process.env.DYNAMODB_ENDPOINT}: is \`npm start\` running? (${e.name})`,
    );
  }
  fail(`admin failed: ${e.message}`);
});
