import ipaddr from 'ipaddr.js';

/**
 * Who a per-address budget, slot or cap counts: the one rule every one of them keys by (end-user auth
 * budgets and hashing slots, the budget of requests without valid credentials, first image renders,
 * open connections per address).
 *
 * An IPv4 address is its own client, also when it reaches an IPv6 listener as `::ffff:a.b.c.d`. An
 * IPv6 address is counted by its first `ipv6Prefix` bits (RATE_LIMIT_IPV6_PREFIX, 64 by default):
 * a single subscriber usually holds a whole /64 and may pick any of its 2^64 addresses per request,
 * so keyed by the full address every budget would be as many budgets as the client cares to use.
 * Anything that is not an IP address (a Unix socket, no address at all) is kept as it came.
 */
export function clientKey(address: string | undefined, ipv6Prefix: number): string {
  if (!address) return 'unknown';
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const bytes = ip.toByteArray();
  for (let bit = ipv6Prefix; bit < 128; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
  // The prefix length is part of the key: one /64 and the /48 it starts never share a budget by accident.
  return `${ipaddr.fromByteArray(bytes).toString()}/${ipv6Prefix}`;
}
