import { describe, expect, it } from 'vitest';
import { closedAfterEach, startReceiver, webhookEnv, waitFor } from './helpers.ts';

describe('embedded mode (PGlite, no Redis)', () => {
  const open = closedAfterEach();

  it('delivers, retries and logs through the in-process runner', { timeout: 180_000 }, async () => {
    const env = open(await webhookEnv({ embedded: true, options: { maxAttempts: 3 } }));
    expect(env.t.services.webhooks.mode).toBe('local');
    let calls = 0;
    const rx = open(await startReceiver(() => ({ status: ++calls === 1 ? 500 : 200 })));
    const hook = await env.hook({ name: 'h', url: rx.url, secret: 'embedded', events: ['content.created'], sources: ['api'] });
    const res = await env.t.request({ method: 'POST', url: '/api/posts', headers: env.p.headers, body: { data: { title: 'lite' } } });
    expect(res.status).toBe(201);
    const got = await rx.until((r) => r.length === 2);
    expect(got.map((r) => r.json.entry_uuid)).toEqual([res.body.uuid, res.body.uuid]);
    await waitFor(async () => (await env.logs(hook.uuid)).total === 2);
    expect((await env.logs(hook.uuid)).data.map((l: { status: string }) => l.status)).toEqual(['200', '500']);
  });
});

describe('retention', () => {
  const open = closedAfterEach();

  it('removes log rows and finished deliveries past WEBHOOK_LOG_RETENTION_DAYS and dispatched outbox rows past a day', async () => {
    const env = open(await webhookEnv({ start: false, env: { WEBHOOK_LOG_RETENTION_DAYS: '7' } }));
    const db = env.t.database.prisma;
    const hook = await env.hook({ name: 'h', url: 'http://127.0.0.1:9/', events: ['content.created'], sources: ['api'] });
    const webhookId = (await db.webhook.findUniqueOrThrow({ where: { uuid: hook.uuid } })).id;
    const day = 86_400_000;
    const ago = (days: number) => new Date(Date.now() - days * day);
    const log = (days: number) => ({ webhookId, deliveryId: crypto.randomUUID(), attempt: 1, action: 'content.created', url: 'x', status: '200', request: {}, response: {}, createdAt: ago(days) });
    await db.webhookLog.createMany({ data: [log(8), log(30), log(6), log(0)] });
    const delivery = (status: string, completedDays: number | null) => ({
      id: crypto.randomUUID(), webhookId, event: 'content.created', body: {}, status, completedAt: completedDays === null ? null : ago(completedDays), createdAt: ago(40),
    });
    await db.webhookDelivery.createMany({ data: [delivery('delivered', 8), delivery('failed', 10), delivery('delivered', 1), delivery('pending', null)] });
    await db.outboxEvent.createMany({
      data: [
        { projectId: env.p.id, event: 'content.created', source: 'api', payload: {}, createdAt: ago(3), dispatchedAt: ago(2) },
        { projectId: env.p.id, event: 'content.created', source: 'api', payload: {}, createdAt: ago(0), dispatchedAt: ago(0) },
        { projectId: env.p.id, event: 'content.created', source: 'api', payload: {}, createdAt: ago(5), dispatchedAt: null },
      ],
    });

    const deleted = await env.t.services.webhooks.cleanup();
    expect(deleted).toEqual({ webhook_logs: 2, webhook_deliveries: 2, outbox_events: 1, trashed_entries: 0 });
    expect(await db.webhookLog.count()).toBe(2);
    expect((await db.webhookDelivery.findMany()).map((d) => d.status).sort()).toEqual(['delivered', 'pending']);
    // Undispatched rows are never removed, however old.
    expect(await db.outboxEvent.count({ where: { dispatchedAt: null } })).toBe(1);
  });
});
