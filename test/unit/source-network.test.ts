import fc from 'fast-check';
import { sourceNetwork } from '../../lib/rate-limit/source-network';

describe('sourceNetwork: what the per-address limits count', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(sourceNetwork('203.0.113.66')).toBe('203.0.113.66');
  });

  it('counts an IPv6 address as its /64, whatever its spelling', () => {
    expect(sourceNetwork('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(sourceNetwork('2001:0DB8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(sourceNetwork('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(sourceNetwork('::1')).toBe('0:0:0:0::/64');
    expect(sourceNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceNetwork('2001:db8:1:3::1')).not.toBe(sourceNetwork('2001:db8:1:2::1'));
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(sourceNetwork('::ffff:203.0.113.66')).toBe('203.0.113.66');
    expect(sourceNetwork('::FFFF:198.51.100.23')).toBe('198.51.100.23');
  });

  it('keeps what is not an address (no sourceIp) as it is', () => {
    expect(sourceNetwork('unknown')).toBe('unknown');
  });

  it('maps every address of one /64 to one network, and addresses of different /64s to different ones', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    const groups = (n: number) => fc.array(group, { minLength: n, maxLength: n });
    fc.assert(
      fc.property(groups(4), groups(4), groups(4), (prefix, a, b) => {
        const one = sourceNetwork([...prefix, ...a].join(':'));
        expect(sourceNetwork([...prefix, ...b].join(':'))).toBe(one);
        const other = [...prefix];
        other[3] = ((Number.parseInt(prefix[3] as string, 16) + 1) % 0x10000).toString(16);
        expect(sourceNetwork([...other, ...a].join(':'))).not.toBe(one);
      }),
    );
  });
});
