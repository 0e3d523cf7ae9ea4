import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import {
  childEnv,
  freePort,
  killed,
  spawnTs,
  startReceiver,
  startRedis,
  waitFor,
  webhookEnv,
  type Receiver,
  type WebhookTestEnv,
} from './helpers.ts';

/** Every event reached the receiver at least once, and every duplicate carries the first copy's delivery_id. */
function expectAtLeastOnce(rx: Receiver, entryUuids: string[]): void {
  const ids = new Map<string, Set<string>>();
  for (const r of rx.received) {
    const set = ids.get(r.json.entry_uuid) ?? new Set<string>();
    set.add(r.json.delivery_id);
    ids.set(r.json.entry_uuid, set);
  }
  for (const u of entryUuids) {
    expect(ids.get(u)?.size, `entry ${u}`).toBe(1);
  }
}

describe('nothing is lost', () => {
  let env: WebhookTestEnv | undefined;
  let rx: Receiver | undefined;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await env?.close();
    await rx?.close();
    for (const c of children.splice(0)) {
      c.kill('SIGKILL');
      await killed(c);
    }
    env = rx = undefined;
  });

  it('a worker killed (SIGKILL) in the middle of deliveries: every event is delivered at least once, duplicates share the delivery_id', { timeout: 300_000 }, async () => {
    env = await webhookEnv({ redis: true, start: false });
    rx = await startReceiver(() => ({ status: 200, delayMs: 20 }));
    await env.hook({ name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'] });
    const uuids = Array.from({ length: 300 }, () => crypto.randomUUID());
    for (let i = 0; i < uuids.length; i += 50) await env.emit(uuids.slice(i, i + 50).map((entryUuid) => ({ event: 'content.updated', entryUuid })));

    const worker = spawnTs('src/worker/main.ts', childEnv(env, { WEBHOOK_CONCURRENCY: '8' }));
    children.push(worker);
    await rx.until((r) => r.length >= 40, 180_000).catch((err) => {
      throw new Error(`${err.message}\n${worker.output()}`);
    });
    worker.kill('SIGKILL');
    await killed(worker);
    const atKill = rx.received.length;
    expect(atKill).toBeLessThan(uuids.length);

    // Another deliverer takes over: crashed claims expire, the sweeper re-enqueues.
    await env.t.services.webhooks.start();
    await waitFor(async () => (await env!.t.database.prisma.webhookDelivery.count({ where: { status: 'delivered' } })) === uuids.length, 60_000);
    expectAtLeastOnce(rx, uuids);
    expect(await env.t.database.prisma.webhookDelivery.count()).toBe(uuids.length);
  });

  it('Redis stopped for 10 seconds while content is written: writes succeed and every event is delivered after Redis returns', { timeout: 120_000 }, async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    children.push(redis);
    env = await webhookEnv({ redis: true, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    rx = await startReceiver();
    await env.hook({ name: 'h', url: rx.url, events: ['content.created'], sources: ['api'] });
    const write = async (title: string) => {
      const res = await env!.t.request({ method: 'POST', url: '/api/posts', headers: env!.p.headers, body: { data: { title } } });
      expect(res.status, res.text).toBe(201);
      return res.body.uuid as string;
    };
    const created = [await write('before')];
    await rx.until((r) => r.length === 1);

    redis.kill('SIGKILL');
    await killed(redis);
    const downUntil = Date.now() + 10_000;
    while (Date.now() < downUntil) {
      created.push(await write(`during ${created.length}`));
      await new Promise((ok) => setTimeout(ok, 400));
    }
    expect(created.length).toBeGreaterThan(10);
    redis = await startRedis(port);
    children.push(redis);
    created.push(await write('after'));

    await rx.until((r) => new Set(r.map((x) => x.json.entry_uuid)).size === created.length, 60_000);
    expectAtLeastOnce(rx, created);
  });

  it('the API process killed right after a commit: the event is still delivered', { timeout: 300_000 }, async () => {
    env = await webhookEnv({ redis: true, start: false });
    // Requests made by the doomed API process never get an answer, so it cannot record anything as
    // delivered: whatever it managed before dying, the events must come from the other deliverer.
    let release!: () => void;
    const apiDead = new Promise<void>((ok) => (release = ok));
    rx = await startReceiver(async () => {
      await apiDead;
      return { status: 200 };
    });
    await env.hook({ name: 'h', url: rx.url, events: ['content.created', 'content.published'], sources: ['api'] });
    const port = await freePort();
    const api = spawnTs('src/main.ts', childEnv(env, { PORT: String(port), HOST: '127.0.0.1', WORKER_IN_PROCESS: 'true' }));
    children.push(api);
    await waitFor(async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch {
        return false;
      }
    }, 180_000, () => api.output());
    const res = await fetch(`http://127.0.0.1:${port}/api/posts`, {
      method: 'POST',
      headers: { ...env.p.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { title: 'last words' }, state: 'published' }),
    });
    // The commit happened; kill before the process can do anything more.
    api.kill('SIGKILL');
    expect(res.status, api.output()).toBe(201);
    const created = [((await res.json()) as { uuid: string }).uuid];
    await killed(api);
    const killedAt = Date.now();
    release();

    await env.t.services.webhooks.start();
    const afterKill = (r: Receiver["received"]) => r.filter((x) => x.at >= killedAt && created.includes(x.json.entry_uuid));
    await rx.until((r) => new Set(afterKill(r).map((x) => x.json.event)).size === 2, 60_000);
    expect([...new Set(afterKill(rx!.received).map((x) => x.json.event))].sort()).toEqual(['content.created', 'content.published']);
    await waitFor(async () => (await env!.t.database.prisma.webhookDelivery.count({ where: { status: 'delivered' } })) === 2);
    expect(await env.t.database.prisma.outboxEvent.count({ where: { dispatchedAt: null } })).toBe(0);
  });
});
