import ipaddr from 'ipaddr.js';
import type { ResolveHost } from './options.ts';

export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

/**
 * True when an address may be called: only ipaddr.js's 'unicast' range (public addresses) passes.
 * Loopback, private, link-local (cloud metadata), unique-local, multicast, CGNAT, NAT64, 6to4,
 * documentation and other reserved ranges do not. IPv4-mapped/-compatible IPv6 is judged as the
 * IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
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

/** Static checks that need no DNS: scheme and credentials. */
export function checkUrlShape(raw: string, policy: UrlPolicy): { url: URL } | UrlProblem {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'invalid', message: 'The url field must be a valid URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { kind: 'invalid', message: 'The url must use HTTPS.' };
  }
  if (url.protocol === 'http:' && !policy.allowHttp) {
    return { kind: 'invalid', message: 'The url must use HTTPS.' };
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
    const bad = addresses.find((a) => !isPublicAddress(a));
    if (bad !== undefined) {
      return { kind: 'blocked', message: 'The url must not resolve to a private, loopback, link-local or reserved address.' };
    }
  }
  if (addresses.some((a) => !ipaddr.isValid(a))) return { kind: 'unresolvable', message: 'The url host could not be resolved.' };
  return { addresses };
}

/** Save-time validation (spec §6 rule 4): the first problem's message, or null when the URL is acceptable. */
export async function urlProblemOnSave(raw: string, policy: UrlPolicy, resolveHost: ResolveHost): Promise<string | null> {
  const shape = checkUrlShape(raw, policy);
  if (!('url' in shape)) return shape.message;
  const resolved = await resolveAndCheck(shape.url.hostname, policy, resolveHost);
  return 'addresses' in resolved ? null : resolved.message;
}
