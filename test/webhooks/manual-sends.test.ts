import { afterEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { startReceiver, webhookEnv, waitFor, type Receiver, type WebhookTestEnv } from './helpers.ts';

describe('ping and redeliver', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  afterEach(async () => {
    await env?.close();
    await rx?.close();
  });
  const post = (url: string) => env.t.request({ method: 'POST', url, headers: env.p.headers });

  it('ping sends a signed webhook.ping event, even to a disabled webhook subscribed to nothing like it', async () => {
    env = await webhookEnv({ redis: true });
    rx = await startReceiver();
    const hook = await env.hook({ name: 'Pinged', url: rx.url, secret: 'ping-secret', status: false, events: ['content.deleted'], sources: ['cms'] });
    const res = await post(`/api/webhooks/${hook.uuid}/ping`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: 'Ping queued.', delivery_id: expect.any(String), attempt: 1 });
    const [req] = await rx.until((r) => r.length === 1);
    expect(req.json).toEqual({
      event: 'webhook.ping',
      project_uuid: env.p.uuid,
      timestamp: expect.any(String),
      delivery_id: res.body.delivery_id,
      source: 'api',
      webhook: { uuid: hook.uuid, name: 'Pinged' },
    });
    expect(req.headers['x-webhook-signature']).toBe(createHmac('sha256', 'ping-secret').update(req.raw).digest('hex'));
    await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
    expect((await env.logs(hook.uuid)).data[0]).toMatchObject({ action: 'webhook.ping', status: '200', attempt: 1 });
  });

  it('a failed ping is tried once and does not count towards auto-disable', async () => {
    env = await webhookEnv({ redis: true, options: { disableAfterFailures: 1 } });
    rx = await startReceiver(() => ({ status: 500 }));
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.created'], sources: ['api'] });
    await post(`/api/webhooks/${hook.uuid}/ping`);
    await waitFor(async () => (await env.t.database.prisma.webhookDelivery.findFirst())?.status === 'failed');
    expect((await env.logs(hook.uuid)).data.map((l: { status: string }) => l.status)).toEqual(['500']);
    const after = (await env.t.request({ method: 'GET', url: `/api/webhooks/${hook.uuid}`, headers: env.p.headers })).body;
    expect(after).toMatchObject({ status: true, consecutive_failures: 0 });
  });

  it('redeliver re-sends a logged delivery with the same delivery_id and the next attempt number', async () => {
    env = await webhookEnv({ redis: true, options: { maxAttempts: 1 } });
    let answer = 500;
    rx = await startReceiver(() => ({ status: answer }));
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'] });
    await env.emit([{ event: 'content.updated' }]);
    await waitFor(async () => (await env.t.database.prisma.webhookDelivery.findFirst())?.status === 'failed');
    const [failed] = (await env.logs(hook.uuid)).data;
    expect(failed).toMatchObject({ status: '500', attempt: 1 });

    answer = 200;
    const res = await post(`/api/webhooks/${hook.uuid}/logs/${failed.id}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: 'Redelivery queued.', delivery_id: failed.delivery_id, attempt: 2 });
    const got = await rx.until((r) => r.length === 2);
    expect(got[1].json.delivery_id).toBe(failed.delivery_id);
    expect(got[1].json.content_entry).toEqual(got[0].json.content_entry);
    await waitFor(async () => (await env.logs(hook.uuid)).total === 2);
    expect((await env.logs(hook.uuid)).data.map((l: { attempt: number; status: string }) => [l.attempt, l.status])).toEqual([
      [2, '200'],
      [1, '500'],
    ]);
    // A delivered one can be sent again too.
    const again = await post(`/api/webhooks/${hook.uuid}/logs/${failed.id}/redeliver`);
    expect(again.body.attempt).toBe(3);
    await rx.until((r) => r.length === 3);
  });

  it('redeliver answers 404 for unknown logs or logs of another webhook, 409 while the delivery is queued', async () => {
    env = await webhookEnv({ redis: true, start: false });
    rx = await startReceiver();
    const a = await env.hook({ name: 'a', url: rx.url, events: ['content.updated'], sources: ['api'] });
    const b = await env.hook({ name: 'b', url: rx.url, events: ['content.updated'], sources: ['api'] });
    const rowA = await env.t.database.prisma.webhook.findUniqueOrThrow({ where: { uuid: a.uuid } });
    const deliveryId = crypto.randomUUID();
    await env.t.database.prisma.webhookDelivery.create({
      data: { id: deliveryId, webhookId: rowA.id, event: 'content.updated', body: {}, status: 'pending', nextAttemptAt: new Date() },
    });
    const log = await env.t.database.prisma.webhookLog.create({
      data: { webhookId: rowA.id, deliveryId, attempt: 1, action: 'content.updated', url: rx.url, status: '500', request: {}, response: {} },
    });
    expect((await post(`/api/webhooks/${a.uuid}/logs/${log.id}/redeliver`)).status).toBe(409);
    const otherHook = await post(`/api/webhooks/${b.uuid}/logs/${log.id}/redeliver`);
    expect(otherHook.status).toBe(404);
    expect(otherHook.body).toEqual({ message: 'Webhook log not found.' });
    expect((await post(`/api/webhooks/${a.uuid}/logs/999999/redeliver`)).status).toBe(404);
    expect((await post(`/api/webhooks/${a.uuid}/logs/abc/redeliver`)).status).toBe(404);
    // Retention removed the delivery: nothing left to send.
    await env.t.database.prisma.webhookDelivery.delete({ where: { id: deliveryId } });
    const purged = await post(`/api/webhooks/${a.uuid}/logs/${log.id}/redeliver`);
    expect(purged.status).toBe(404);
  });
});
