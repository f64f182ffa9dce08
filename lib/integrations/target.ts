import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may point (docs/webhooks.md#where-a-webhook-may-point): an `http` or `https` URL of at
 * most MAX_URL_LENGTH characters, without user or password, whose host resolves only to public addresses.
 * A private, loopback, link-local (the instance metadata service at 169.254.169.254), shared, reserved,
 * multicast or unspecified address anywhere among the host's addresses refuses it, IPv4 and IPv6 alike
 * (an IPv4 address written as IPv6, `::ffff:127.0.0.1`, is judged as the IPv4 address). The check runs when
 * an integration is written and again before each delivery, which connects to the address it checked.
 */

/** Longest webhook URL, in characters. */
export const MAX_URL_LENGTH = 2048;

/** A URL the rules refuse: `reason` says which rule, as the end of a sentence about the URL. */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
}

/** What a delivery connects to: the URL and the one address of its host that was checked. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

const v4Blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network, the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local: the instance metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  v4Blocked.addSubnet(network, prefix, 'ipv4');
}

/** IPv6 is public only inside global unicast (2000::/3), and not in its special ranges. */
const v6GlobalUnicast = new BlockList();
v6GlobalUnicast.addSubnet('2000::', 3, 'ipv6');
const v6Blocked = new BlockList();
for (const [network, prefix] of [
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['3fff::', 20], // documentation
] as const) {
  v6Blocked.addSubnet(network, prefix, 'ipv6');
}
const v4Loopback = new BlockList();
v4Loopback.addSubnet('127.0.0.0', 8, 'ipv4');
const v6Loopback = new BlockList();
v6Loopback.addAddress('::1', 'ipv6');

/** The IPv4 address an IPv4-mapped or IPv4-compatible IPv6 address carries, else undefined. */
function embeddedV4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower.replace(/^::/, ''));
  if (lower.startsWith('::') && dotted?.[1] !== undefined && isIP(dotted[1]) === 4) return dotted[1];
  // ::ffff:7f00:1 (the hexadecimal spelling of ::ffff:127.0.0.1), and the NAT64 prefix 64:ff9b::/96.
  const hex = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] !== undefined && hex[2] !== undefined) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return undefined;
}

/** True when `address` is loopback: 127.0.0.0/8, ::1, or an IPv6 spelling of a 127.x address. */
export function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 4) return v4Loopback.check(address, 'ipv4');
  if (isIP(address) !== 6) return false;
  const v4 = embeddedV4(address);
  if (v4 !== undefined) return v4Loopback.check(v4, 'ipv4');
  return v6Loopback.check(address, 'ipv6');
}

/** True when `address` (IPv4 or IPv6 text) is a public unicast address a webhook may reach. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !v4Blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedV4(address);
  if (v4 !== undefined) return isPublicAddress(v4);
  return v6GlobalUnicast.check(address, 'ipv6') && !v6Blocked.check(address, 'ipv6');
}

/**
 * Checks the form of a webhook URL (scheme, no user information, length), without resolving its host: the
 * parsed URL, or TargetRefusedError.
 */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) {
    throw new TargetRefusedError(`must be at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TargetRefusedError(`must be an http or https URL, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new TargetRefusedError('must not hold a user name or password');
  }
  if (url.hostname === '') throw new TargetRefusedError('must name a host');
  return url;
}

/** Resolves a host to all its addresses (the system resolver, as connecting would). */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * A webhook URL checked in full: its form, then every address its host resolves to, each public (or, when
 * `allowLoopback`, loopback: the local harness's listeners). The first address is the one to connect to.
 * TargetRefusedError names the rule broken, never the addresses (which a caller could use to map a
 * network it cannot reach).
 */
export async function checkWebhookTarget(
  raw: string,
  options: { allowLoopback: boolean; resolve?: Resolver },
): Promise<CheckedTarget> {
  const url = parseWebhookUrl(raw);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch {
      throw new TargetRefusedError(`has a host that could not be resolved (${host})`);
    }
  }
  if (addresses.length === 0) throw new TargetRefusedError(`has a host that could not be resolved (${host})`);
  const allowed = (address: string) =>
    isPublicAddress(address) || (options.allowLoopback && isLoopbackAddress(address));
  if (!addresses.every(({ address }) => allowed(address))) {
    throw new TargetRefusedError(
      'resolves to an address that is not public (private, loopback, link-local, shared, reserved, multicast or unspecified)',
    );
  }
  const [first] = addresses as [{ address: string; family: number }];
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
