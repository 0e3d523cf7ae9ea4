import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

/**
 * Every per-address budget counts an IPv6 client by its /64 (RATE_LIMIT_IPV6_PREFIX) and an IPv4
 * client by its address, however it reaches the listener (src/edge/client-key.ts): rotating through
 * the addresses of one /64 buys no extra attempts.
 */

/** A /64 of the documentation range of its own per call, so runs and tests never share a budget. */
const slash64 = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
/** An IPv4 address of the documentation range of its own per call. */
const ipv4 = () => `203.0.113.${1 + (randomBytes(1)[0]! % 254)}`;

describe('the end-user login budget per client', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp({ env: { AUTH_RATE_PER_MINUTE_ADDRESS: '2', AUTH_RATE_PER_MINUTE_ACCOUNT: '100', AUTH_LOCKOUT_ATTEMPTS: '100' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  const login = (remoteAddress: string) =>
    t.request({ method: 'POST', url: '/api/auth/login', headers: { 'project-id': p.uuid }, body: { email: 'nobody@example.com', password: 'a guess' }, remoteAddress });

  it('two addresses of one /64 share it: the second is refused once the first spent it; another /64 is not', async () => {
    const net = slash64();
    expect((await login(`${net}::1`)).status).toBe(401);
    expect((await login(`${net}:1:2:3:4`)).status).toBe(401);
    const rotated = await login(`${net}:ffff:ffff:ffff:fffe`);
    expect(rotated.status).toBe(429);
    expect(rotated.body.message).toBe('Too Many Attempts.');
    expect(Number(rotated.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(`${slash64()}::1`)).status).toBe(401);
  });

  it('an IPv4 client reached as an IPv4-mapped IPv6 address draws on its IPv4 budget', async () => {
    const v4 = ipv4();
    expect((await login(v4)).status).toBe(401);
    expect((await login(`::ffff:${v4}`)).status).toBe(401);
    expect((await login(v4)).status).toBe(429);
    expect((await login(`::ffff:${v4}`)).status).toBe(429);
  });
});

describe('the budget of requests without valid credentials per client (GraphQL and REST)', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    // The address budget is a tenth of RATE_LIMIT_PER_MINUTE: 2 requests.
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '20' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  const bad = () => ({ 'project-id': p.uuid, authorization: 'Bearer not-a-token' });
  const graphql = (remoteAddress: string) => t.request({ method: 'POST', url: '/graphql', headers: bad(), body: { query: '{ __typename }' }, remoteAddress });
  const rest = (remoteAddress: string) => t.request({ method: 'GET', url: '/api/project', headers: bad(), remoteAddress });

  it('bad credentials from two addresses of one /64 spend one budget, on both surfaces; another /64 keeps its own', async () => {
    const net = slash64();
    expect((await graphql(`${net}::a`)).status).toBe(401);
    expect((await graphql(`${net}::b`)).status).toBe(401);
    const rotated = await graphql(`${net}:9:9:9:9`);
    expect(rotated.status).toBe(429);
    expect(rotated.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect((await rest(`${net}::c`)).status).toBe(429);
    const other = slash64();
    expect((await graphql(`${other}::a`)).status).toBe(401);
    expect((await rest(`${other}::b`)).status).toBe(401);
  });

  it('an IPv4-mapped address and its IPv4 address are one client', async () => {
    const v4 = ipv4();
    expect((await graphql(`::ffff:${v4}`)).status).toBe(401);
    expect((await rest(v4)).status).toBe(401);
    expect((await graphql(v4)).status).toBe(429);
    expect((await rest(`::ffff:${v4}`)).status).toBe(429);
  });
});

describe('RATE_LIMIT_IPV6_PREFIX', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_IPV6_PREFIX: '128', AUTH_RATE_PER_MINUTE_ADDRESS: '1', AUTH_RATE_PER_MINUTE_ACCOUNT: '100', AUTH_LOCKOUT_ATTEMPTS: '100' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('is 64 by default, and refused at start outside 32-128', () => {
    expect(loadConfig({}).RATE_LIMIT_IPV6_PREFIX).toBe(64);
    expect(() => loadConfig({ RATE_LIMIT_IPV6_PREFIX: '31' })).toThrow(/RATE_LIMIT_IPV6_PREFIX must be a whole number from 32 to 128/);
    expect(() => loadConfig({ RATE_LIMIT_IPV6_PREFIX: '129' })).toThrow(/RATE_LIMIT_IPV6_PREFIX must be a whole number from 32 to 128/);
  });

  it('128 counts every IPv6 address on its own', async () => {
    const net = slash64();
    const login = (remoteAddress: string) =>
      t.request({ method: 'POST', url: '/api/auth/login', headers: { 'project-id': p.uuid }, body: { email: 'nobody@example.com', password: 'a guess' }, remoteAddress });
    expect((await login(`${net}::1`)).status).toBe(401);
    expect((await login(`${net}::1`)).status).toBe(429);
    expect((await login(`${net}::2`)).status).toBe(401);
  });
});
