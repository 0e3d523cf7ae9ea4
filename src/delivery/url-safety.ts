import ipaddr from 'ipaddr.js';
import type { ResolveHost } from './options.ts';

export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
  /** Loopback receivers (and plain http to them), for local development; off unless set. */
  allowLocalhost?: boolean;
}

/** A loopback address (127.0.0.0/8, ::1, or IPv4-mapped loopback): the packets never leave the machine. */
export function isLoopbackAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/** A host that names this machine: `localhost` or a loopback literal (never a name DNS could point elsewhere). */
const isLoopbackHost = (hostname: string): boolean => {
  const host = bareHost(hostname).toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || isLoopbackAddress(host);
};

/**
 * True when an address may be called: only global unicast passes. IPv4 must be in ipaddr.js's
 * 'unicast' range (loopback, private, link-local — cloud metadata —, CGNAT, multicast, broadcast,
 * documentation and other reserved ranges are not). IPv6 must be in 2000::/3 and outside every
 * special range — except that an IPv6 address carrying an IPv4 one is judged by that IPv4 address,
 * because that is where the packets end up (the host, a NAT64 gateway or a 6to4/Teredo relay
 * translates): `[::7f00:1]` is 127.0.0.1, `[64:ff9b::a9fe:a9fe]` is 169.254.169.254.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const carried = embeddedIPv4(v6);
  if (carried !== null) return carried.length > 0 && carried.every((v4) => v4.range() === 'unicast');
  const bytes = v6.toByteArray();
  // 2000::/3 is the only block IANA allocates for global unicast; ipaddr.js calls anything outside
  // its special list 'unicast', including unallocated space.
  return (bytes[0] & 0xe0) === 0x20 && v6.range() === 'unicast';
}

const ipv4At = (bytes: number[], at: readonly number[]): ipaddr.IPv4 =>
  new ipaddr.IPv4(at.map((i) => bytes[i]));

/**
 * Byte positions of the IPv4 address in an RFC 6052 address for each prefix length (/32 … /96);
 * bits 64–71 (byte 8) are the reserved "u" octet and never carry address bits.
 */
const RFC6052_POSITIONS: Record<32 | 40 | 48 | 56 | 64 | 96, readonly number[]> = {
  32: [4, 5, 6, 7],
  40: [5, 6, 7, 9],
  48: [6, 7, 9, 10],
  56: [7, 9, 10, 11],
  64: [9, 10, 11, 12],
  96: [12, 13, 14, 15],
};

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16') as [ipaddr.IPv6, number];
const TEREDO = ipaddr.parseCIDR('2001::/32') as [ipaddr.IPv6, number];

/**
 * The IPv4 addresses an IPv6 address carries, or null when it embeds none. Some forms name more
 * than one candidate; all must be public.
 */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const b = v6.toByteArray();
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  // IPv4-compatible ::/96 (deprecated, but stacks still route it to the IPv4 host), including :: and ::1.
  if (zero(0, 12)) return [ipv4At(b, RFC6052_POSITIONS[96])];
  // IPv4-mapped ::ffff:0:0/96.
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return [ipv4At(b, RFC6052_POSITIONS[96])];
  // IPv4-translated ::ffff:0:0:0/96 (RFC 6145).
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return [ipv4At(b, RFC6052_POSITIONS[96])];
  // NAT64 well-known prefix 64:ff9b::/96.
  if (v6.match(NAT64_WELL_KNOWN)) return [ipv4At(b, RFC6052_POSITIONS[96])];
  // NAT64 local-use 64:ff9b:1::/48 (RFC 8215): the operator picks a prefix length of /48 or longer,
  // so the IPv4 address may sit at any of those positions; judge every candidate.
  if (v6.match(NAT64_LOCAL_USE)) return ([48, 56, 64, 96] as const).map((len) => ipv4At(b, RFC6052_POSITIONS[len]));
  // 6to4 2002::/16: the relay's IPv4 address in bits 16–47.
  if (v6.match(SIX_TO_FOUR)) return [ipv4At(b, [2, 3, 4, 5])];
  // Teredo 2001::/32: server IPv4 in bits 32–63, client IPv4 (bit-inverted) in the last 32 bits.
  if (v6.match(TEREDO)) {
    const client = new ipaddr.IPv4([12, 13, 14, 15].map((i) => b[i] ^ 0xff));
    return [ipv4At(b, RFC6052_POSITIONS[32]), client];
  }
  return null;
}

/** The address to connect to: IPv4-mapped IPv6 becomes plain IPv4. */
export function normaliseAddress(address: string): { address: string; family: 4 | 6 } {
  const parsed = ipaddr.process(address);
  return { address: parsed.toString(), family: parsed.kind() === 'ipv4' ? 4 : 6 };
}

/** URL.hostname keeps IPv6 literals in brackets. */
export const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

export type UrlProblem =
  | { kind: 'invalid'; message: string }
  | { kind: 'unresolvable'; message: string }
  | { kind: 'blocked'; message: string };

/** What to do about each refusal: the settings that lift them are named (docs/webhooks.md). */
export const HTTP_REFUSED = 'The url must use HTTPS. Plain http:// URLs are accepted only when the server sets WEBHOOK_ALLOW_HTTP=true (for development).';
export const PRIVATE_REFUSED =
  'The url must not resolve to a private, loopback, link-local or reserved address. Such receivers are accepted only when the server sets WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (a receiver on your own network).';

/** Static checks that need no DNS: scheme and credentials. */
export function checkUrlShape(raw: string, policy: UrlPolicy): { url: URL } | UrlProblem {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'invalid', message: 'The url field must be a valid URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { kind: 'invalid', message: `The url must use HTTPS (${url.protocol.replace(/:$/, '')}: URLs are never called).` };
  }
  if (url.protocol === 'http:' && !policy.allowHttp && !(policy.allowLocalhost && isLoopbackHost(url.hostname))) {
    return { kind: 'invalid', message: HTTP_REFUSED };
  }
  if (url.username || url.password) {
    return { kind: 'invalid', message: 'The url must not contain credentials.' };
  }
  if (!url.hostname) return { kind: 'invalid', message: 'The url field must be a valid URL.' };
  return { url };
}

/**
 * Resolves the URL's host and checks every address (an attacker controlling DNS can return one
 * public and one private address and hope the client picks the second). Returns the addresses that
 * may be connected to, or the problem.
 */
export async function resolveAndCheck(
  hostname: string,
  policy: UrlPolicy,
  resolveHost: ResolveHost,
): Promise<{ addresses: string[] } | UrlProblem> {
  const host = bareHost(hostname);
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolveHost(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { kind: 'unresolvable', message: 'The url host could not be resolved.' };
  }
  if (!policy.allowPrivateNetworks) {
    const bad = addresses.find((a) => !isPublicAddress(a) && !(policy.allowLocalhost && isLoopbackAddress(a)));
    if (bad !== undefined) {
      return { kind: 'blocked', message: PRIVATE_REFUSED };
    }
  }
  if (addresses.some((a) => !ipaddr.isValid(a))) return { kind: 'unresolvable', message: 'The url host could not be resolved.' };
  return { addresses };
}

/** Save-time validation (docs/webhooks.md): the first problem's message, or null when the URL is acceptable. */
export async function urlProblemOnSave(raw: string, policy: UrlPolicy, resolveHost: ResolveHost): Promise<string | null> {
  const shape = checkUrlShape(raw, policy);
  if (!('url' in shape)) return shape.message;
  const resolved = await resolveAndCheck(shape.url.hostname, policy, resolveHost);
  return 'addresses' in resolved ? null : resolved.message;
}
