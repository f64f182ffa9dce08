import './quiet-sdk';
import { firstKeyReservation } from '../lib/rate-limit/allowance';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { storeRepository } from '../lib/store/store-repository';
import {
  DATABASE_HELP,
  fail,
  intOption,
  objectStoreUnreachableMessage,
  parseCli,
  usageError,
  useToolDatabase,
  useToolObjectStore,
} from './cli';
import { count, databaseUnreachableMessage } from './messages';
import { resetDemo } from './reset-demo';
import { DEMO } from './seed';
import { setChannelHeaderCommand } from './set-channel-header';
import { setRateLimitCommand } from './set-rate-limit';

const TOOL = 'admin';
const USAGE = `Usage:
  npm run admin -- create-store --name NAME [--rate-limit N] [--page-length N] [--json]
      Creates a store, its merchant realm mapping (prefix null) and a first application key, and
      prints store_id, client_id, client_secret and mapping_id.
  npm run admin -- create-key --store STORE_ID [--name NAME] [--json]
      Adds an application key to a store (for a store that lost all its keys).
  npm run admin -- set-rate-limit --store STORE_ID N [--json]
      Sets the store's rate limit to N requests per second (applies everywhere within 51 s).
  npm run admin -- set-channel-header --store STORE_ID required|optional [--json]
      Whether catalog reads need the channel header (default: required); optional lets requests
      without one match catalog rules that name no channel (applies everywhere within 60 s).
  npm run admin -- reset-demo
      Local only: empties the tables of \`npm start\`'s DynamoDB (every store, key, mapping, token and
      catalog) and seeds the demo store again with the ids and credentials \`npm start\` printed. The
      docs' examples start from there. It drops the tables and creates them again (DynamoDB Local does
      that at once, whatever they hold), saying on stderr how many items each table held.

--json prints one JSON object on stdout; run it as \`npm run -s admin -- ... --json\` (npm's -s keeps
its own banner off stdout). Exit status: 0 done, 1 failed, 2 wrong arguments.

${DATABASE_HELP}`;

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

const SECRET_NOTE = 'The client secret is shown only now: keep it somewhere safe.';

async function main(): Promise<void> {
  if (process.argv[2] === 'set-rate-limit') {
    useToolDatabase(TOOL);
    process.exitCode = await setRateLimitCommand(process.argv.slice(3));
    return;
  }
  if (process.argv[2] === 'set-channel-header') {
    useToolDatabase(TOOL);
    process.exitCode = await setChannelHeaderCommand(process.argv.slice(3));
    return;
  }
  const { values, positionals } = parseCli(
    TOOL,
    USAGE,
    {
      name: { type: 'string' },
      store: { type: 'string' },
      'rate-limit': { type: 'string' },
      'page-length': { type: 'string' },
      json: { type: 'boolean' },
    },
    process.argv.slice(2),
    1,
  );
  const command = positionals[0];
  const asJson = values.json === true;
  if (command === 'create-store') {
    if (values.store !== undefined) usageError(TOOL, 'create-store does not take --store');
    const name = values.name;
    if (!name || name.length > 255) usageError(TOOL, 'create-store needs --name (1-255 characters)');
    const rateLimit = intOption(TOOL, values['rate-limit'], 'rate-limit', 100, 1, 100000);
    const pageLength = intOption(TOOL, values['page-length'], 'page-length', 25, 1, 100);
    useToolDatabase(TOOL);
    const store = await storeRepository.create({ name, rate_limit: rateLimit, page_length: pageLength });
    // The first (admin) key reserves a share of the limit (docs/rate-limits.md), so storefront floods
    // cannot starve the back office.
    const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
      name: 'Default key',
      reserved_rate_limit: firstKeyReservation(rateLimit),
    });
    print(
      {
        store_id: store.id,
        client_id: key.client_id,
        client_secret: clientSecret,
        mapping_id: store.mapping_id,
      },
      asJson,
      SECRET_NOTE,
    );
    return;
  }
  if (command === 'create-key') {
    for (const flag of ['rate-limit', 'page-length'] as const) {
      if (values[flag] !== undefined) usageError(TOOL, `create-key does not take --${flag}`);
    }
    const storeId = values.store;
    if (!storeId) usageError(TOOL, 'create-key needs --store STORE_ID');
    const name = values.name ?? 'Admin key';
    if (name.length < 1 || name.length > 255) usageError(TOOL, '--name must be 1-255 characters');
    useToolDatabase(TOOL);
    if (!(await storeRepository.get(storeId, true))) fail(TOOL, `no store with id ${storeId}`);
    const { key, clientSecret } = await applicationKeyRepository.create(storeId, {
      name,
      reserved_rate_limit: 0,
    });
    print(
      { store_id: storeId, key_id: key.id, client_id: key.client_id, client_secret: clientSecret },
      asJson,
      SECRET_NOTE,
    );
    return;
  }
  if (command === 'reset-demo') {
    for (const flag of Object.keys(values))
      if (flag !== 'help') usageError(TOOL, `reset-demo does not take --${flag}`);
    if (process.env.DYNAMODB_ENDPOINT === 'aws')
      usageError(TOOL, 'reset-demo empties the tables: it never runs against AWS (DYNAMODB_ENDPOINT=aws)');
    // The demo catalog is published again through the workflow, which reads its document from the bucket.
    useToolObjectStore(TOOL);
    const where = useToolDatabase(TOOL);
    const deleted = await resetDemo((line) => process.stderr.write(`reset-demo: ${line}\n`));
    process.stdout.write(
      `demo reset at ${where}: ${count(deleted, 'item')} deleted, demo store ${DEMO.storeId} seeded again\n`,
    );
    return;
  }
  usageError(TOOL, command === undefined ? 'a command is required' : `unknown command '${command}'`);
}

main().catch((error: unknown) => {
  const unreachable =
    databaseUnreachableMessage(error, process.env.DYNAMODB_ENDPOINT) ??
    objectStoreUnreachableMessage(error, process.env.S3_ENDPOINT);
  if (unreachable) fail(TOOL, unreachable);
  fail(TOOL, `failed: ${(error as Error).message}`);
});
