import { issueAccessToken } from '../../lib/auth/issue-token';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { storeRepository } from '../../lib/store/store-repository';
import { runCli } from '../support/cli';

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
    [['create-store'], 'create-store needs --name'],
    [
      ['create-store', '--name', 'x', '--page-length', '101'],
      '--page-length must be an integer from 1 to 100',
    ],
    [
      ['create-key', '--store', '00000000-0000-7000-8000-000000000000'],
      'no store with id 00000000-0000-7000-8000-000000000000',
    ],
    [['rotate-everything'], 'Usage:'],
  ])('fails with exit 1 and a message for %p', (args, message) => {
    const run = adminCli(...args);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
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
