import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { clientKey } from '../../src/edge/client-key.ts';
import { RUNS, fuzzParams } from './harness.ts';

/**
 * The one key every per-address budget, slot and cap counts by (src/edge/client-key.ts): every address
 * of an IPv6 prefix of the configured length is one client, whatever its spelling; addresses that
 * differ within the prefix are different clients; an IPv4 address, also written IPv4-mapped, is itself.
 * A pure function: many more runs than the HTTP fuzz files.
 */
const params = () => ({ ...fuzzParams(), numRuns: RUNS * 40 });

const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Array.from(b));
// ::ffff:0:0/96 is an IPv4 client by definition, not an IPv6 one.
const isMapped = (b: number[]) => b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
const prefixLength = fc.integer({ min: 32, max: 128 });

/** The ways one IPv6 address is written: compressed, in full, zero-padded, upper case. */
const spelling = fc.constantFrom(
  (b: number[]) => ipaddr.fromByteArray(b).toString(),
  (b: number[]) => ipaddr.fromByteArray(b).toNormalizedString(),
  (b: number[]) => (ipaddr.fromByteArray(b) as ipaddr.IPv6).parts.map((x) => x.toString(16).padStart(4, '0')).join(':'),
  (b: number[]) => ipaddr.fromByteArray(b).toString().toUpperCase(),
);

/** `b` with bit `i` flipped. */
const flip = (b: number[], i: number) => b.map((x, j) => (j === i >> 3 ? x ^ (0x80 >> (i & 7)) : x));
/** The first `bits` bits of `head`, the rest of `tail`. */
const splice = (head: number[], tail: number[], bits: number) =>
  tail.map((t, j) => {
    if (8 * (j + 1) <= bits) return head[j]!;
    if (8 * j >= bits) return t;
    const keep = (0xff << (8 - (bits - 8 * j))) & 0xff;
    return (head[j]! & keep) | (t & ~keep & 0xff);
  });

describe('fuzz: the client key of an address', () => {
  it('every address of one prefix maps to one key, however each is written', () => {
    fc.assert(
      fc.property(bytes16, bytes16, prefixLength, spelling, spelling, (a, rest, bits, show1, show2) => {
        const b = splice(a, rest, bits);
        fc.pre(!isMapped(a) && !isMapped(b));
        expect(clientKey(show1(a), bits)).toBe(clientKey(show2(b), bits));
      }),
      params(),
    );
  });

  it('addresses that differ within the prefix map to different keys', () => {
    fc.assert(
      fc.property(bytes16, prefixLength, fc.nat(), (a, bits, pick) => {
        const b = flip(a, pick % bits);
        fc.pre(!isMapped(a) && !isMapped(b));
        expect(clientKey(ipaddr.fromByteArray(a).toString(), bits)).not.toBe(clientKey(ipaddr.fromByteArray(b).toString(), bits));
      }),
      params(),
    );
  });

  it('at the default /64, distinct /64s are distinct clients and the key names the /64', () => {
    fc.assert(
      fc.property(bytes16, bytes16, (a, b) => {
        fc.pre(!isMapped(a) && !isMapped(b));
        const key = clientKey(ipaddr.fromByteArray(a).toString(), 64);
        expect(key).toBe(`${ipaddr.fromByteArray([...a.slice(0, 8), 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`);
        const same = a.slice(0, 8).every((x, i) => x === b[i]);
        expect(key === clientKey(ipaddr.fromByteArray(b).toString(), 64)).toBe(same);
      }),
      params(),
    );
  });

  it('an IPv4 address is its own key, written plain or IPv4-mapped, at any prefix length', () => {
    fc.assert(
      fc.property(fc.ipV4(), prefixLength, fc.constantFrom('::ffff:', '::FFFF:', '0:0:0:0:0:ffff:'), (v4, bits, mapped) => {
        expect(clientKey(v4, bits)).toBe(v4);
        expect(clientKey(`${mapped}${v4}`, bits)).toBe(v4);
      }),
      params(),
    );
  });
});
