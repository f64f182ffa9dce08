import { issueAccessToken } from '../../lib/auth/issue-token';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { storeRepository } from '../../lib/store/store-repository';
import { runCli } from '../support/cli';

// Each case spawns the CLI (tsx compiles it first): seconds on a loaded 2-core machine.
jest.setTimeout(60_000);

const adminCli = (...args: string[]) => runCli('admin', ...args);

// Each case starts the CLI (tsx, then the library) at least once: seconds on a loaded machine, where
// the default 5 s failed.
jest.setTimeout(60_000);

describe('npm run admin -- create-store', () => {
  it('prints one JSON object with working credentials and creates the store and its mapping', async () => {
    const run = adminCli('create-store', '--name', 'CLI store', '--json');
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const output = JSON.parse(run.stdout);
    expect(Object.keys(output)).toEqual(['store_id', 'client_id', 'client_secret', 'mapping_id']);
    const store = await storeRepository.get(output.store_id, true);
    expect(store).toMatchObject({ name: 'CLI store', key_count: 1, mapping_id: output.mapping_id });
    expect(await mappingRepository.get(output.mapping_id)).toMatchObject({
      store_id: output.store_id,
      prefix: null,
    });
    const token = await issueAccessToken({
      grant_type: 'client_credentials',
      client_id: output.client_id,
      client_secret: output.client_secret,
    });
    expect(token.identifier).toBe('client_credentials');
  });

  it('prints name: value lines without --json, with the note on stderr', () => {
    const run = adminCli('create-store', '--name', 'Plain store', '--page-length', '10');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^store_id: +\S+\nclient_id: +[0-9a-f]{40}\nclient_secret: +\S{43}\nmapping_id: +\S+\n$/,
    );
    expect(run.stderr).toContain('The client secret is shown only now');
  });

  it.each([
    [['create-store'], 2, 'create-store needs --name'],
    [
      ['create-store', '--name', 'x', '--page-length', '101'],
      2,
      '--page-length must be an integer from 1 to 100',
    ],
    [['create-store', '--name', 'x', '--bogus'], 2, "Unknown option '--bogus'"],
    [['create-store', '--name'], 2, "Option '--name <value>' argument missing"],
    [['create-store', '--name', 'x', '--store', 'y'], 2, 'create-store does not take --store'],
    [
      ['create-key', '--store', '00000000-0000-7000-8000-000000000000'],
      1,
      'no store with id 00000000-0000-7000-8000-000000000000',
    ],
    [['rotate-everything'], 2, "unknown command 'rotate-everything'"],
  ])('fails for %p with exit %p and a one-line message', (args, status, message) => {
    const run = adminCli(...(args as string[]));
    expect(run.status).toBe(status);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('npm run admin -- create-key', () => {
  it('adds a key to a store that lost all of its keys', async () => {
    const created = JSON.parse(adminCli('create-store', '--name', 'Keyless', '--json').stdout);
    const run = adminCli('create-key', '--store', created.store_id, '--name', 'Recovery', '--json');
    expect(run.status).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(Object.keys(output)).toEqual(['store_id', 'key_id', 'client_id', 'client_secret']);
    expect((await storeRepository.get(created.store_id, true))?.key_count).toBe(2);
  });
});
