import { MAX_ATTEMPTS, MAX_RETRY_DELAY_MS, retryDelayMs } from '../../lib/integrations/deliver';
import {
  checkWebhookTarget,
  isLoopbackAddress,
  isPublicAddress,
  parseWebhookUrl,
  TargetRefusedError,
} from '../../lib/integrations/target';

/**
 * Where a webhook may point (lib/integrations/target.ts): which addresses are public, the URL's form, and the
 * check of every resolved address; and the retry schedule of lib/integrations/deliver.ts.
 */

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
  ])('takes %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['10.0.0.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local: the metadata service'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'IETF'],
    ['192.0.2.1', 'documentation'],
    ['192.168.0.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, long form'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hexadecimal'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata service'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata service, hexadecimal'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::a00:1', 'NAT64 of a private address'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'Teredo'],
    ['not an address', 'not an address'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('tells loopback apart, in every spelling', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])
      expect(isLoopbackAddress(address)).toBe(true);
    for (const address of ['10.0.0.1', '8.8.8.8', 'fe80::1', '::'])
      expect(isLoopbackAddress(address)).toBe(false);
  });
});

describe('parseWebhookUrl', () => {
  it.each([
    ['ftp://hooks.example.com/', 'must be an http or https URL, not ftp'],
    ['gopher://hooks.example.com/', 'must be an http or https URL, not gopher'],
    ['https://user@hooks.example.com/', 'must not hold a user name or password'],
    ['https://:pw@hooks.example.com/', 'must not hold a user name or password'],
    ['/relative', 'must be an absolute http or https URL'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('refuses %s', (url, reason) => {
    expect(() => parseWebhookUrl(url)).toThrow(new TargetRefusedError(reason));
  });

  it('takes http and https URLs with a port, path and query', () => {
    expect(parseWebhookUrl('https://hooks.example.com:8443/a?b=c').port).toBe('8443');
    expect(parseWebhookUrl('http://hooks.example.com').protocol).toBe('http:');
  });
});

describe('checkWebhookTarget', () => {
  const resolving =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('connects to the first address when every address is public', async () => {
    const target = await checkWebhookTarget('https://hooks.example.com/x', {
      allowLoopback: false,
      resolve: resolving('93.184.216.34', '2606:2800:220:1::1'),
    });
    expect(target).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(target.url.hostname).toBe('hooks.example.com');
  });

  it('refuses a host with any non-public address among public ones (one rebinding answer is enough)', async () => {
    await expect(
      checkWebhookTarget('https://hooks.example.com/x', {
        allowLoopback: false,
        resolve: resolving('93.184.216.34', '10.0.0.5'),
      }),
    ).rejects.toThrow(/not public/);
  });

  it('takes loopback only when allowed, and never a private address', async () => {
    const loopback = { resolve: resolving('127.0.0.1') };
    await expect(
      checkWebhookTarget('http://localhost/x', { allowLoopback: false, ...loopback }),
    ).rejects.toThrow(TargetRefusedError);
    expect(
      (await checkWebhookTarget('http://localhost/x', { allowLoopback: true, ...loopback })).address,
    ).toBe('127.0.0.1');
    await expect(
      checkWebhookTarget('http://internal/x', { allowLoopback: true, resolve: resolving('192.168.1.1') }),
    ).rejects.toThrow(/not public/);
    await expect(checkWebhookTarget('http://[::1]:8080/x', { allowLoopback: true })).resolves.toMatchObject({
      address: '::1',
      family: 6,
    });
  });

  it('refuses a host that does not resolve, or resolves to nothing', async () => {
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(
      checkWebhookTarget('https://nowhere.invalid/', { allowLoopback: false, resolve: failing }),
    ).rejects.toThrow('has a host that could not be resolved (nowhere.invalid)');
    await expect(
      checkWebhookTarget('https://empty.example/', { allowLoopback: false, resolve: resolving() }),
    ).rejects.toThrow(/could not be resolved/);
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base, caps at MAX_RETRY_DELAY_MS and is 0 after the last attempt', () => {
    const base = 30_000;
    expect(Array.from({ length: MAX_ATTEMPTS }, (_, n) => retryDelayMs(n + 1, base))).toEqual([
      30_000,
      60_000,
      120_000,
      240_000,
      480_000,
      960_000,
      MAX_RETRY_DELAY_MS,
      0,
    ]);
  });
});
