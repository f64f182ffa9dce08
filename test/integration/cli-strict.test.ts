import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { storeRepository } from '../../lib/store/store-repository';
import { useToolDatabase } from '../../local/cli';
import { runCli, runCliWith } from '../support/cli';

// Each case spawns a CLI (tsx compiles it first): seconds on a loaded 2-core machine.
jest.setTimeout(60_000);

const ROOT = join(__dirname, '../..');
const TOOLS = ['admin', 'catalog', 'invoke', 'event', 'start', 'openapi', 'smoke'];

describe('every local CLI parses its arguments strictly', () => {
  it.each(
    TOOLS.flatMap((tool) => [
      [tool, '--help'],
      [tool, '-h'],
    ]),
  )('%s %s prints the usage and exits 0', (tool, flag) => {
    const run = runCli(tool, flag);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage:/);
    expect(run.stderr).toBe('');
  });

  it.each([
    ['admin', ['create-store', '--name', 'x', '--bogus'], "admin: Unknown option '--bogus'"],
    ['admin', ['create-store', '--name'], "admin: Option '--name <value>' argument missing"],
    ['catalog', ['publish', '--jsn', '--store', 'x', '--file', 'y'], "catalog: Unknown option '--jsn'"],
    ['catalog', ['publish', '--store'], "catalog: Option '--store <value>' argument missing"],
    ['catalog', ['generate', '--children', '1', '--store', 'x'], 'catalog: generate does not take --store'],
    // A negative number is the option's value, refused by its own check (not taken for an option).
    [
      'catalog',
      ['generate', '--children', '-5'],
      "catalog: --children must be an integer from 0 to 1000000, got '-5'",
    ],
    [
      'catalog',
      ['generate', '--children=-5'],
      "catalog: --children must be an integer from 0 to 1000000, got '-5'",
    ],
    [
      'admin',
      ['create-store', '--name', 'x', '--rate-limit', '-1'],
      "admin: --rate-limit must be an integer from 1 to 100000, got '-1'",
    ],
    [
      'catalog',
      ['validate'],
      'catalog: validate needs --file: npm run catalog -- validate --file release.json [--json]',
    ],
    ['catalog', [], 'catalog: a command is required: validate, publish, generate or cleanup'],
    [
      'invoke',
      ['create-access-token', '--event', 'e.json', '--verbose'],
      "invoke: Unknown option '--verbose'",
    ],
    [
      'event',
      ['GET', '/v2/application-keys', '--header'],
      "event: Option '--header <value>' argument missing",
    ],
    ['event', ['GET', '/x', 'extra'], "event: unexpected argument 'extra'"],
    ['start', ['--in-memroy'], "start: Unknown option '--in-memroy'"],
    [
      'start',
      ['--reload', '--from-template'],
      // --reload is npm run dev: its messages say dev:
      'dev: --reload and --from-template do not combine (the template serves built bundles)',
    ],
    [
      'invoke',
      ['create-access-token', '--event', 'e.json', '--from-templat'],
      "invoke: Unknown option '--from-templat'",
    ],
    ['openapi', ['--bogus'], "openapi: Unknown option '--bogus'"],
    ['openapi', ['extra'], "openapi: unexpected argument 'extra'"],
    ['admin', ['set-rate-limit', '--store', 'x', '5', '--bogus'], "admin: Unknown option '--bogus'"],
    // A value may start with `-`, but one of the tool's own flags after an option is its missing value.
    [
      'admin',
      ['create-store', '--name', '--rate-limit', '5'],
      "admin: Option '--name' argument is ambiguous. Did you forget to specify the option argument for '--name'?",
    ],
    [
      'smoke',
      ['--base', 'http://127.0.0.1:9', '--client-id', 'x', '--client-secret', '--json'],
      "smoke: Option '--client-secret' argument is ambiguous. Did you forget to specify the option argument for '--client-secret'?",
    ],
    ['smoke', ['--base', 'http://127.0.0.1:9', '--bogus'], "smoke: Unknown option '--bogus'"],
  ])('%s %p: one line on stderr, nothing done, exit 2', (tool, args, message) => {
    const run = runCli(tool, ...(args as string[]));
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([`${message} (see --help)`]);
  });

  it('keeps stdout to exactly one JSON object under `npm run -s` (the documented form)', () => {
    const run = spawnSync(
      'npm',
      ['run', '-s', 'admin', '--', 'create-store', '--name', 'Quiet store', '--json'],
      {
        cwd: ROOT,
        env: process.env,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(0);
    expect(Object.keys(JSON.parse(run.stdout))).toEqual([
      'store_id',
      'client_id',
      'client_secret',
      'mapping_id',
    ]);
  });
});

describe('npm run bench and npm run fuzz refuse wrong arguments before starting anything', () => {
  const tsx = (script: string, ...args: string[]) =>
    spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [script, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });

  it.each([['bench/run.ts'], ['fuzz/run.ts']])('%s', (script) => {
    const wrong = tsx(script, '--jsn');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr.trim().split('\n')).toEqual([expect.stringContaining("Unknown option '--jsn'")]);
    const help = tsx(script, '-h');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run (bench|fuzz)/);
  });

  it('bench/run.ts takes --setup api or batched, with the authored or delta stage only', () => {
    const wrong = tsx('bench/run.ts', '--stage', 'delta', '--setup', 'bulk');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("--setup must be api or batched, got 'bulk'");
    const alone = tsx('bench/run.ts', '--setup', 'batched');
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('--setup goes with --stage authored or delta');
  });
});

describe("the tools' DynamoDB and object store", () => {
  const endpoint = process.env.DYNAMODB_ENDPOINT as string;
  const withoutEndpoint = (extra: NodeJS.ProcessEnv) => {
    const env = { ...process.env, ...extra };
    delete env.DYNAMODB_ENDPOINT;
    return env;
  };

  it('is DynamoDB Local on DYNAMODB_PORT when DYNAMODB_ENDPOINT is unset', async () => {
    const port = new URL(endpoint).port;
    const run = runCliWith(
      withoutEndpoint({ DYNAMODB_PORT: port }),
      'admin',
      'create-store',
      '--name',
      'Port store',
      '--json',
    );
    expect(run.status).toBe(0);
    const { store_id } = JSON.parse(run.stdout);
    expect(await storeRepository.get(store_id, true)).toMatchObject({ name: 'Port store' });
  });

  it('refuses an empty DYNAMODB_ENDPOINT and names the way to reach AWS', () => {
    const run = runCliWith({ ...process.env, DYNAMODB_ENDPOINT: '' }, 'admin', 'create-store', '--name', 'x');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('or to aws for the deployed tables');
  });

  it('is AWS (no endpoint) for DYNAMODB_ENDPOINT=aws, and a given URL as it is', () => {
    const aws: NodeJS.ProcessEnv = { DYNAMODB_ENDPOINT: 'aws', DYNAMODB_PORT: '9' };
    expect(useToolDatabase('t', aws)).toBe('AWS');
    expect(aws.DYNAMODB_ENDPOINT).toBeUndefined();
    const given: NodeJS.ProcessEnv = { DYNAMODB_ENDPOINT: 'http://db:1234', DYNAMODB_PORT: '9' };
    expect(useToolDatabase('t', given)).toBe('http://db:1234');
    const local: NodeJS.ProcessEnv = { DYNAMODB_PORT: '8150' };
    expect(useToolDatabase('t', local)).toBe('http://127.0.0.1:8150');
    expect(useToolDatabase('t', {})).toBe('http://127.0.0.1:8000');
  });

  it("chooses the object store as it chooses DynamoDB: npm start's unless given, AWS S3 with the deployed tables", () => {
    const local: NodeJS.ProcessEnv = { S3_PORT: '9150' };
    useToolDatabase('t', local);
    expect(local.S3_ENDPOINT).toBe('http://127.0.0.1:9150');
    const byDefault: NodeJS.ProcessEnv = {};
    useToolDatabase('t', byDefault);
    expect(byDefault.S3_ENDPOINT).toBe('http://127.0.0.1:9000');
    // A DynamoDB given by URL is not the deployed one: the documents stay local too.
    const given: NodeJS.ProcessEnv = { DYNAMODB_ENDPOINT: 'http://db:1234' };
    useToolDatabase('t', given);
    expect(given.S3_ENDPOINT).toBe('http://127.0.0.1:9000');
    const aws: NodeJS.ProcessEnv = { DYNAMODB_ENDPOINT: 'aws', S3_PORT: '9150' };
    useToolDatabase('t', aws);
    expect(aws.S3_ENDPOINT).toBeUndefined();
    const chosen: NodeJS.ProcessEnv = { DYNAMODB_ENDPOINT: 'aws', S3_ENDPOINT: 'http://s3:4566' };
    useToolDatabase('t', chosen);
    expect(chosen.S3_ENDPOINT).toBe('http://s3:4566');
  });

  it('refuses an empty S3_ENDPOINT and a bad S3_PORT', () => {
    const empty = runCliWith({ ...process.env, S3_ENDPOINT: '' }, 'catalog', 'cleanup', '--store', 'x');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toBe(
      'catalog: S3_ENDPOINT is empty: set it to a URL, or unset it for the object store of npm start (AWS S3 with DYNAMODB_ENDPOINT=aws) (see --help)\n',
    );
    const env: NodeJS.ProcessEnv = { ...process.env, S3_PORT: 'x' };
    delete env.S3_ENDPOINT;
    const port = runCliWith(env, 'catalog', 'cleanup', '--store', 'x');
    expect(port.status).toBe(2);
    expect(port.stderr).toBe(
      "catalog: S3_PORT must be a port number from 1 to 65535, got 'x' (see --help)\n",
    );
  });
});

describe('npm run event: the Host header', () => {
  it('is 127.0.0.1:$PORT, or --host', () => {
    const fromPort = runCliWith({ ...process.env, PORT: '3999' }, 'event', 'GET', '/v2/application-keys');
    expect(JSON.parse(fromPort.stdout).headers.host).toBe('127.0.0.1:3999');
    const given = runCliWith(
      { ...process.env, PORT: '3999' },
      'event',
      'GET',
      '/v2/application-keys',
      '--host',
      'api.example.com',
    );
    expect(JSON.parse(given.stdout).headers.host).toBe('api.example.com');
  });
});
