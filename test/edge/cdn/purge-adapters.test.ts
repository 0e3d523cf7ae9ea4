import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudflareAdapter, fastlyAdapter, varnishAdapter } from '../../../src/edge/cdn/purge-adapters.ts';
import { bullPurgeQueue } from '../../../src/edge/cdn/purge-queue.ts';
import { createLogger } from '../../../src/logger.ts';

interface Call {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A stub of the CDNs' purge APIs: records every call and answers what `answer` says. */
function stub(answer: (call: Call) => { status: number; body: unknown }) {
  const calls: Call[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const call = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      calls.push(call);
      const a = answer(call);
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
      waiters.splice(0).forEach((w) => w());
    });
  });
  return {
    calls,
    server,
    /** Resolves once `n` calls arrived. */
    until: (n: number) =>
      new Promise<void>((ok) => {
        const check = () => (calls.length >= n ? ok() : waiters.push(check));
        check();
      }),
    base: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  };
}

describe('CDN purge adapters against a local stub of each API', () => {
  let failNext = 0;
  const s = stub((call) => {
    if (failNext > 0) {
      failNext--;
      return { status: 503, body: { msg: 'try later' } };
    }
    if (call.url.startsWith('/client/v4/zones/')) return { status: 200, body: { success: true, errors: [], messages: [], result: { id: 'x' } } };
    return { status: 200, body: { status: 'ok' } };
  });
  beforeAll(() => new Promise<void>((ok) => s.server.listen(0, '127.0.0.1', ok)));
  afterAll(() => new Promise<void>((ok) => s.server.close(() => ok())));

  it('fastly: POST /service/{id}/purge, Fastly-Key, soft purge, keys in the JSON body (256 a call)', async () => {
    const before = s.calls.length;
    const tags = Array.from({ length: 300 }, (_, i) => `e:${i}`);
    await fastlyAdapter(s.base(), 'SVC1', 'fastly-secret').purge(tags);
    const calls = s.calls.slice(before);
    expect(calls.map((c) => [c.method, c.url])).toEqual([
      ['POST', '/service/SVC1/purge'],
      ['POST', '/service/SVC1/purge'],
    ]);
    expect(calls[0].headers['fastly-key']).toBe('fastly-secret');
    expect(calls[0].headers['fastly-soft-purge']).toBe('1');
    expect(JSON.parse(calls[0].body).surrogate_keys).toEqual(tags.slice(0, 256));
    expect(JSON.parse(calls[1].body).surrogate_keys).toEqual(tags.slice(256));
  });

  it('cloudflare: POST /zones/{zone}/purge_cache with {"tags"} and a bearer token (30 a call); success:false is a failure', async () => {
    const before = s.calls.length;
    const tags = Array.from({ length: 31 }, (_, i) => `e:${i}`);
    await cloudflareAdapter(`${s.base()}/client/v4`, 'ZONE9', 'cf-secret').purge(tags);
    const calls = s.calls.slice(before);
    expect(calls.map((c) => [c.method, c.url])).toEqual([
      ['POST', '/client/v4/zones/ZONE9/purge_cache'],
      ['POST', '/client/v4/zones/ZONE9/purge_cache'],
    ]);
    expect(calls[0].headers.authorization).toBe('Bearer cf-secret');
    expect(JSON.parse(calls[0].body)).toEqual({ tags: tags.slice(0, 30) });
    expect(JSON.parse(calls[1].body)).toEqual({ tags: tags.slice(30) });
    failNext = 1;
    await expect(cloudflareAdapter(`${s.base()}/client/v4`, 'ZONE9', 'cf-secret').purge(['e:1'])).rejects.toThrow(/cloudflare purge answered 503/);
  });

  it('varnish: PURGE / with the tags in xkey-softpurge, to every instance', async () => {
    const before = s.calls.length;
    await varnishAdapter([s.base(), `${s.base()}/`]).purge(['p:1', 'e:2']);
    const calls = s.calls.slice(before);
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      expect([c.method, c.url]).toEqual(['PURGE', '/']);
      expect(c.headers['xkey-softpurge']).toBe('p:1 e:2');
    }
  });

  it('through BullMQ: the same change enqueued by two replicas is sent once; a failed call is retried', async () => {
    const prefix = `cms-purge-test-${process.pid}-${Date.now()}`;
    const log = createLogger('silent');
    const adapter = fastlyAdapter(s.base(), 'SVC2', 'k');
    const opts = { prefix, delayMs: 0, backoffMs: 10 };
    const redis = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const replicaA = bullPurgeQueue(redis, adapter, log, opts);
    const replicaB = bullPurgeQueue(redis, adapter, log, opts);
    try {
      const before = s.calls.length;
      failNext = 1;
      await Promise.all([replicaA.enqueue('o41', ['e:41', 'l:c']), replicaB.enqueue('o41', ['e:41', 'l:c'])]);
      await replicaB.enqueue('o41', ['e:41', 'l:c']);
      await s.until(before + 2); // the refused call and its retry
      await replicaA.enqueue('o42', ['e:42']);
      await s.until(before + 3);
      const calls = s.calls.slice(before).filter((c) => c.url === '/service/SVC2/purge');
      expect(calls.map((c) => JSON.parse(c.body).surrogate_keys)).toEqual([['e:41', 'l:c'], ['e:41', 'l:c'], ['e:42']]);
    } finally {
      await replicaA.close();
      await replicaB.close();
    }
  });
});
