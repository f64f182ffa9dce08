import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a request's source address stands for, as the limits count it: an IPv4 address is itself,
 * an IPv6 address its /64 (one subscriber's or one host's prefix: anyone holding one address holds the
 * other 2^64 of it, so counting addresses one by one would give a single attacker as many shares as it
 * cares to use), and an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) the IPv4 address. Anything else
 * (API Gateway always gives an address; tests and local tools may not) is kept as it is.
 */
export function sourceNetwork(address: string): string {
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1] as string)) return mapped[1] as string;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower case, without leading zeros. */
function ipv6Groups(address: string): string[] {
  const zone = address.indexOf('%');
  let text = (zone === -1 ? address : address.slice(0, zone)).toLowerCase();
  // A trailing dotted IPv4 part (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) is two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}
