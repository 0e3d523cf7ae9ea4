import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { startReceiver, webhookEnv, waitFor, type Receiver, type WebhookTestEnv } from './helpers.ts';
import { isPublicAddress } from '../../src/delivery/url-safety.ts';

/** DNS as the tests want it; names not listed do not resolve. */
const dns: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'v6.example.com': ['2606:4700::1111'],
  'loop.test': ['127.0.0.1'],
  'localhost': ['127.0.0.1', '::1'],
  'ten.test': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'v6loop.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mixed.test': ['93.184.216.34', '10.0.0.1'],
  'ula.test': ['fd00::1'],
  'cgnat.test': ['100.64.0.1'],
};
const resolveHost = async (h: string) => {
  const found = dns[h];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
  return found;
};

describe('URL rules on save (HTTPS only, no private networks)', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    t.services.webhooks.options.resolveHost = resolveHost;
    p = await t.project();
  });
  afterAll(() => t.close());
  const save = (url: string) =>
    t.request({ method: 'POST', url: '/api/webhooks', headers: p.headers, body: { name: 'h', url, events: ['content.created'], sources: ['api'] } });

  it.each([
    ['https://loop.test/hook', 'private'],
    ['https://localhost/hook', 'private'],
    ['https://ten.test/hook', 'private'],
    ['https://metadata.test/latest/meta-data', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://10.0.0.8/', 'private'],
    ['https://[::1]/hook', 'private'],
    ['https://v6loop.test/hook', 'private'],
    ['https://mapped.test/hook', 'private'],
    ['https://[::ffff:127.0.0.1]/hook', 'private'],
    ['https://[::ffff:a00:1]/hook', 'private'],
    ['https://mixed.test/hook', 'private'],
    ['https://ula.test/hook', 'private'],
    ['https://cgnat.test/hook', 'private'],
    ['https://0x7f.1/hook', 'private'],
    ['https://2130706433/hook', 'private'],
    ['https://[fe80::1]/hook', 'private'],
    ['https://0.0.0.0/hook', 'private'],
    // IPv6 literals carrying a private IPv4 address (issue 14 §3): judged by the IPv4 address.
    ['https://[::127.0.0.1]/', 'private'],
    ['https://[::7f00:1]/', 'private'],
    ['https://[::a9fe:a9fe]/', 'private'],
    ['https://[::192.168.1.1]/', 'private'],
    ['https://[::c0a8:101]/', 'private'],
    ['https://[::a00:1]/', 'private'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'private'],
    ['https://[2002:7f00:1::1]/', 'private'],
    ['https://[2001:0:a00:1:8000:63bf:a247:27dd]/', 'private'],
    ['https://nowhere.test/hook', 'resolved'],
    ['http://hooks.example.com/hook', 'HTTPS'],
    ['ftp://hooks.example.com/hook', 'HTTPS'],
    ['https://user:pass@hooks.example.com/hook', 'credentials'],
    ['https://token@hooks.example.com/hook', 'credentials'],
  ])('refuses %s (422 on url)', async (url, words) => {
    const res = await save(url);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['url']);
    expect(res.body.errors.url[0]).toContain(words);
  });

  it('each refusal names the setting that lifts it, and only where one does', async () => {
    const http = await save('http://hooks.example.com/hook');
    expect(http.body.errors.url).toEqual([expect.stringContaining('WEBHOOK_ALLOW_HTTP=true')]);
    const loopback = await save('https://10.0.0.8/');
    expect(loopback.body.errors.url).toEqual([expect.stringContaining('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true')]);
    // No setting makes other schemes callable.
    const ftp = await save('ftp://hooks.example.com/hook');
    expect(ftp.body.errors.url[0]).toContain('ftp:');
    expect(ftp.body.errors.url[0]).not.toContain('WEBHOOK_ALLOW');
  });

  it('accepts public IPv4 and IPv6 destinations', async () => {
    expect((await save('https://hooks.example.com/hook')).status).toBe(201);
    expect((await save('https://v6.example.com/hook')).status).toBe(201);
    expect((await save('https://93.184.216.34:8443/hook')).status).toBe(201);
  });

  it('re-checks on update', async () => {
    const created = (await save('https://hooks.example.com/hook')).body;
    const res = await t.request({
      method: 'PUT',
      url: `/api/webhooks/${created.uuid}`,
      headers: p.headers,
      body: { name: 'h', url: 'https://metadata.test/', events: ['content.created'], sources: ['api'] },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.url).toHaveLength(1);
  });

  it('refuses the issue-14 IPv6 literals with HTTP allowed and private networks disallowed', async () => {
    const httpOnly = await startTestApp({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
    try {
      const hp = await httpOnly.project();
      for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[::a9fe:a9fe]', '[::192.168.1.1]', '[::c0a8:101]', '[::a00:1]']) {
        const res = await httpOnly.request({
          method: 'POST',
          url: '/api/webhooks',
          headers: hp.headers,
          body: { name: 'h', url: `http://${host}/`, events: ['content.created'], sources: ['api'] },
        });
        expect(res.status, host).toBe(422);
        expect(res.body.errors.url[0], host).toContain('private');
      }
    } finally {
      await httpOnly.close();
    }
  });

  it('allows HTTP and private addresses only when configured', async () => {
    const open = await startTestApp({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      open.services.webhooks.options.resolveHost = resolveHost;
      const op = await open.project();
      const res = await open.request({
        method: 'POST',
        url: '/api/webhooks',
        headers: op.headers,
        body: { name: 'h', url: 'http://loop.test:8080/hook', events: ['content.created'], sources: ['api'] },
      });
      expect(res.status).toBe(201);
      // Credentials and unresolvable names stay refused.
      const creds = await open.request({ method: 'POST', url: '/api/webhooks', headers: op.headers, body: { name: 'h', url: 'http://a:b@loop.test/', events: ['content.created'], sources: ['api'] } });
      expect(creds.status).toBe(422);
      const unresolved = await open.request({ method: 'POST', url: '/api/webhooks', headers: op.headers, body: { name: 'h', url: 'http://nowhere.test/', events: ['content.created'], sources: ['api'] } });
      expect(unresolved.status).toBe(422);
    } finally {
      await open.close();
    }
  });
});

describe('URL rules at send time, against the address actually connected to', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  afterEach(async () => {
    await env?.close();
    await rx?.close();
  });

  it('blocks a name re-pointed to 127.0.0.1 after save (DNS rebinding) and logs `blocked`; the receiver sees nothing', async () => {
    // HTTP allowed so the local receiver could be reached if the check failed; private networks are not.
    env = await webhookEnv({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
    rx = await startReceiver();
    const answers: Record<string, string[]> = { 'rebind.test': ['93.184.216.34'] };
    env.t.services.webhooks.options.resolveHost = async (h) => answers[h] ?? [];
    const hook = await env.hook({ name: 'h', url: `http://rebind.test:${rx.port}/hook`, events: ['content.created'], sources: ['api'] });
    answers['rebind.test'] = ['127.0.0.1'];
    await env.emit([{ event: 'content.created' }]);
    await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
    const log = (await env.logs(hook.uuid)).data[0];
    expect(log).toMatchObject({ status: 'blocked', attempt: 1, response: { status: null, body: null } });
    // Blocked is final: not retried.
    expect((await env.t.database.prisma.webhookDelivery.findFirstOrThrow()).status).toBe('failed');
    expect(rx.received).toHaveLength(0);
  });

  it.each([['127.0.0.1'], ['::1'], ['::ffff:127.0.0.1'], ['10.0.0.1'], ['169.254.169.254'], ['::7f00:1'], ['::a9fe:a9fe'], ['64:ff9b::7f00:1']])(
    'blocks a send when the name resolves to %s',
    async (address) => {
      env = await webhookEnv({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
      rx = await startReceiver();
      let answer = ['93.184.216.34'];
      env.t.services.webhooks.options.resolveHost = async () => answer;
      const hook = await env.hook({ name: 'h', url: `http://internal.test:${rx.port}/hook`, events: ['content.created'], sources: ['api'] });
      answer = [address];
      await env.emit([{ event: 'content.created' }]);
      await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
      expect((await env.logs(hook.uuid)).data[0].status).toBe('blocked');
      expect(rx.received).toHaveLength(0);
    },
  );

  it('blocks an IP-literal URL once private networks are switched off', async () => {
    env = await webhookEnv();
    rx = await startReceiver();
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.created'], sources: ['api'] });
    env.t.services.webhooks.options.allowPrivateNetworks = false;
    await env.emit([{ event: 'content.created' }]);
    await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
    expect((await env.logs(hook.uuid)).data[0].status).toBe('blocked');
    expect(rx.received).toHaveLength(0);
  });

  it('connects to the address it checked (the name exists only in the injected resolver), with the original Host header', async () => {
    env = await webhookEnv();
    rx = await startReceiver();
    env.t.services.webhooks.options.resolveHost = async (h) => (h === 'receiver.invalid' ? ['127.0.0.1'] : []);
    const hook = await env.hook({ name: 'h', url: `http://receiver.invalid:${rx.port}/hook`, events: ['content.created'], sources: ['api'] });
    await env.emit([{ event: 'content.created' }]);
    const [req] = await rx.until((r) => r.length === 1);
    expect(req.headers.host).toBe(`receiver.invalid:${rx.port}`);
    await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
    expect((await env.logs(hook.uuid)).data[0].status).toBe('200');
  });

  it('does not follow redirects', async () => {
    env = await webhookEnv({ options: { maxAttempts: 1 } });
    const target = await startReceiver();
    rx = await startReceiver(() => ({ status: 302 }));
    try {
      const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.created'], sources: ['api'] });
      await env.emit([{ event: 'content.created' }]);
      await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
      expect((await env.logs(hook.uuid)).data[0].status).toBe('302');
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });
});

describe('isPublicAddress', () => {
  // Every form an address can take; an IPv6 address that carries an IPv4 one is judged by it.
  it.each([
    // IPv4
    ['93.184.216.34', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['192.0.2.1', false],
    ['240.0.0.1', false],
    // Plain IPv6: only global unicast (2000::/3 outside the special ranges)
    ['2606:4700::1111', true],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fec0::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
    ['2001:2::1', false],
    ['100::1', false],
    ['4000::1', false],
    ['::1:0:0:1', false],
    ['5f00::1', false],
    // IPv4-mapped ::ffff:0:0/96
    ['::ffff:93.184.216.34', true],
    ['::ffff:5db8:d822', true],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:a9fe:a9fe', false],
    // IPv4-compatible ::/96 (the examples)
    ['::93.184.216.34', true],
    ['::5db8:d822', true],
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::a9fe:a9fe', false],
    ['::192.168.1.1', false],
    ['::c0a8:101', false],
    ['::a00:1', false],
    ['::0.0.0.2', false],
    // IPv4-translated ::ffff:0:0:0/96 (RFC 6145)
    ['::ffff:0:5db8:d822', true],
    ['::ffff:0:7f00:1', false],
    // NAT64 well-known prefix 64:ff9b::/96
    ['64:ff9b::5db8:d822', true],
    ['64:ff9b::93.184.216.34', true],
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::c0a8:101', false],
    // NAT64 local-use 64:ff9b:1::/48: every position an operator's prefix could put the IPv4 in is judged
    ['64:ff9b:1::7f00:1', false],
    ['64:ff9b:1:7f00:1::', false],
    ['64:ff9b:1:5db8:d8:2200::', false],
    // 6to4 2002::/16: the IPv4 address in bits 16–47
    ['2002:5db8:d822::1', true],
    ['2002:7f00:1::1', false],
    ['2002:a9fe:a9fe::1', false],
    ['2002:c0a8:101::1', false],
    // Teredo 2001::/32: server (bits 32–63) and client (last 32 bits, inverted) must both be public
    ['2001:0:4136:e378:8000:63bf:a247:27dd', true],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false],
    ['2001:0:a00:1:8000:63bf:a247:27dd', false],
    ['2001:0:7f00:1:8000:63bf:a247:27dd', false],
    ['not-an-ip', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
