import { type ParseArgsConfig, parseArgs } from 'node:util';
import { PortSettingError, type PortVariable, portFrom } from './ports';

/**
 * The local CLIs' shared argument handling, on Node's `util.parseArgs` with `strict: true`:
 * an unknown flag, a missing value or a stray argument is a one-line error on stderr and exit 2;
 * `--help`/`-h` prints the usage on stdout and exits 0.
 */

/** Exit status of a usage error (unknown flag, missing value, wrong arguments). */
export const USAGE_EXIT = 2;

/** Raised for wrong arguments; `runCli`'s callers print it as one line and exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedCli<O extends Options> {
  values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>['values'];
  positionals: string[];
}

/**
 * Parses `argv` strictly. `--help`/`-h` anywhere prints `usage` and exits 0; any parse error exits 2 with
 * `<tool>: <message>` and a pointer to `--help`.
 */
export function parseCli<O extends Options>(
  tool: string,
  usage: string,
  options: O,
  argv: string[] = process.argv.slice(2),
  maxPositionals = 0,
): ParsedCli<O> {
  const all = { ...options, help: { type: 'boolean', short: 'h' } } as O;
  let parsed: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({
      args: dashValues(argv, options),
      options: all,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return usageError(tool, (error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  if (parsed.positionals.length > maxPositionals) {
    usageError(tool, `unexpected argument '${parsed.positionals[maxPositionals]}'`);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

/**
 * `--name -x` as `--name=-x` for an option that takes a value, unless `-x` is itself one of the tool's
 * flags. parseArgs refuses a value that starts with `-` as ambiguous, yet such values are real: a
 * negative number (the option's own check then words what is wrong with it), a name, or a client secret
 * (base64url: one secret in 64 starts with `-`). A following
 * `--known-flag` is still a missing value.
 */
export function dashValues(argv: readonly string[], options: Options): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      args.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      options[name]?.type === 'string' &&
      next?.startsWith('-') &&
      !isFlag(next, options)
    ) {
      args.push(`${arg}=${next}`);
      i += 1;
    } else args.push(arg);
  }
  return args;
}

/** Whether `arg` is one of `options` (`--name`, `--name=value`, `-x`), `--help`/`-h`, or `--`. */
function isFlag(arg: string, options: Options): boolean {
  if (arg === '--' || arg === '--help' || arg === '-h') return true;
  if (arg.startsWith('--')) return Object.hasOwn(options, arg.slice(2).split('=')[0] as string);
  // `-x` alone: a longer `-word` is a value (a secret that starts `-h…` is not a group of short flags).
  return arg.length === 2 && Object.values(options).some((option) => option.short === arg[1]);
}

/** Prints `<tool>: <message>` (one line) and exits 2. */
export function usageError(tool: string, message: string): never {
  // Node's messages add advice on positionals after the first sentence: one line, without it.
  const line = message
    .replace(/\s*\n\s*/g, ' ')
    .replace(/ To specify .*$/, '')
    .replace(/\.$/, '');
  process.stderr.write(`${tool}: ${line} (see --help)\n`);
  process.exit(USAGE_EXIT);
}

/** Prints `<tool>: <message>` on stderr and exits 1 (a failure that is not about the arguments). */
export function fail(tool: string, message: string): never {
  process.stderr.write(`${tool}: ${message}\n`);
  process.exit(1);
}

/** An integer option within bounds, or the fallback when not given. */
export function intOption(
  tool: string,
  raw: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    usageError(tool, `--${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return Number(raw);
}

/** The port a variable sets (local/ports.ts), or a usage error naming it (exit 2). */
export function toolPort(tool: string, name: PortVariable, env: NodeJS.ProcessEnv = process.env): number {
  try {
    return portFrom(name, env);
  } catch (error) {
    if (error instanceof PortSettingError) usageError(tool, error.message);
    throw error;
  }
}

/**
 * The local tools' DynamoDB: `DYNAMODB_ENDPOINT` when it is a URL, AWS (credential chain, `*_TABLE`
 * names) when it is `aws`, else the DynamoDB Local of `npm start` on `DYNAMODB_PORT` (default 8000).
 * Sets `DYNAMODB_ENDPOINT` accordingly (removed for AWS) and returns a label for messages. Chooses the
 * object store too (`useToolObjectStore`), which follows the DynamoDB.
 */
export function useToolDatabase(tool: string, env: NodeJS.ProcessEnv = process.env): string {
  useToolObjectStore(tool, env);
  const endpoint = env.DYNAMODB_ENDPOINT;
  if (endpoint === 'aws') {
    delete env.DYNAMODB_ENDPOINT;
    return 'AWS';
  }
  if (endpoint === '') {
    usageError(tool, 'DYNAMODB_ENDPOINT is empty: set it to a URL, or to aws for the deployed tables');
  }
  if (endpoint === undefined) {
    const port = toolPort(tool, 'DYNAMODB_PORT', env);
    env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${port}`;
  }
  return env.DYNAMODB_ENDPOINT as string;
}

/**
 * The local tools' object store (the documents bucket, which `catalog publish` streams documents into),
 * chosen as their DynamoDB is: `S3_ENDPOINT` when it is a URL; AWS S3 (the bucket DOCUMENTS_BUCKET) with
 * `DYNAMODB_ENDPOINT=aws`; else the local object store of `npm start` on `S3_PORT` (default 9000). Sets
 * `S3_ENDPOINT` accordingly (left unset for AWS) and returns a label for messages. Reads
 * `DYNAMODB_ENDPOINT` as given, so it runs before `useToolDatabase` changes it.
 */
export function useToolObjectStore(tool: string, env: NodeJS.ProcessEnv = process.env): string {
  const endpoint = env.S3_ENDPOINT;
  if (endpoint === '') {
    usageError(
      tool,
      'S3_ENDPOINT is empty: set it to a URL, or unset it for the object store of npm start (AWS S3 with DYNAMODB_ENDPOINT=aws)',
    );
  }
  if (endpoint !== undefined) return endpoint;
  if (env.DYNAMODB_ENDPOINT === 'aws') return 'AWS S3';
  const port = toolPort(tool, 'S3_PORT', env);
  env.S3_ENDPOINT = `http://127.0.0.1:${port}`;
  return env.S3_ENDPOINT;
}

/** Network failures that mean nothing answers at an endpoint (as against an error of the service). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
]);

/**
 * What a failed request to the object store means for a local tool: nothing answers at the endpoint (say
 * what to start), or undefined for any other error.
 */
export function objectStoreUnreachableMessage(
  error: unknown,
  endpoint: string | undefined,
): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !UNREACHABLE.has(code)) return undefined;
  return `cannot reach the object store at ${endpoint ?? 'AWS S3'}: is \`npm start\` running? (${code})`;
}

/** The paragraph every tool's usage ends with: where its data lives. */
export const DATABASE_HELP = `DynamoDB: DYNAMODB_ENDPOINT when set to a URL; DYNAMODB_ENDPOINT=aws for the deployed tables
(AWS credentials and region from the environment, table names from KEYS_TABLE, MAPPINGS_TABLE and
PRODUCTS_TABLE); otherwise the DynamoDB Local of \`npm start\` on 127.0.0.1:$DYNAMODB_PORT (default 8000).
Documents (object storage): S3_ENDPOINT when set to a URL; with DYNAMODB_ENDPOINT=aws, the deployed bucket
DOCUMENTS_BUCKET on AWS S3; otherwise the object store of \`npm start\` on 127.0.0.1:$S3_PORT (default 9000).`;
