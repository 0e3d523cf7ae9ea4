import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, webhookEnv, waitFor, freePort, type Receiver, type WebhookTestEnv } from './helpers.ts';

describe('failed deliveries: retries, log statuses, auto-disable', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  afterEach(async () => {
    await env?.close();
    await rx?.close();
  });
  const deliveryStatus = async () =>
    (await env.t.database.prisma.webhookDelivery.findMany({ orderBy: { createdAt: 'asc' } })).map((d) => d.status);

  it('retries non-2xx answers with the same delivery_id until one succeeds; every attempt is a log row', async () => {
    env = await webhookEnv({ redis: true, options: { maxAttempts: 5 } });
    let calls = 0;
    rx = await startReceiver(() => (++calls <= 2 ? { status: 503, body: 'busy' } : { status: 204 }));
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'] });
    await env.emit([{ event: 'content.updated' }]);
    const got = await rx.until((r) => r.length === 3);
    expect(new Set(got.map((r) => r.json.delivery_id)).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    await waitFor(async () => (await env.logs(hook.uuid)).total === 3);
    const logs = (await env.logs(hook.uuid)).data;
    expect(logs.map((l: { attempt: number; status: string }) => [l.attempt, l.status])).toEqual([
      [3, '204'],
      [2, '503'],
      [1, '503'],
    ]);
    expect(logs[2].response).toEqual({ status: 503, body: 'busy', body_truncated: false });
    expect(await deliveryStatus()).toEqual(['delivered']);
  });

  it('logs timeout and error attempts and retries them up to WEBHOOK_MAX_ATTEMPTS', async () => {
    env = await webhookEnv({ redis: true, options: { maxAttempts: 2, timeoutMs: 300 } });
    rx = await startReceiver(() => ({ status: 200, delayMs: 1500 }));
    const closedPort = await freePort();
    const slow = await env.hook({ name: 'slow', url: rx.url, events: ['content.created'], sources: ['api'] });
    const refused = await env.hook({ name: 'refused', url: `http://127.0.0.1:${closedPort}/x`, events: ['content.created'], sources: ['api'] });
    await env.emit([{ event: 'content.created' }]);

    await waitFor(async () => {
      const s = await deliveryStatus();
      return s.length === 2 && s.every((x) => x === 'failed');
    });
    const statuses = async (uuid: string) => (await env.logs(uuid)).data.map((l: { attempt: number; status: string }) => `${l.attempt}:${l.status}`);
    expect(await statuses(slow.uuid)).toEqual(['2:timeout', '1:timeout']);
    expect(await statuses(refused.uuid)).toEqual(['2:error', '1:error']);
    const timeoutLog = (await env.logs(slow.uuid)).data[0];
    expect(timeoutLog.response).toMatchObject({ status: null, body: null, error: expect.stringContaining('300 ms') });
    const refusedLog = (await env.logs(refused.uuid)).data[0];
    expect(refusedLog.response.error).toContain('ECONNREFUSED');
  });

  it('disables a webhook after WEBHOOK_DISABLE_AFTER_FAILURES failed deliveries in a row and says so; a success resets the count', async () => {
    env = await webhookEnv({ redis: true, options: { maxAttempts: 1, disableAfterFailures: 3 } });
    let mode: 'fail' | 'ok' = 'fail';
    rx = await startReceiver(() => ({ status: mode === 'fail' ? 500 : 200 }));
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'] });
    const get = async () => (await env.t.request({ method: 'GET', url: `/api/webhooks/${hook.uuid}`, headers: env.p.headers })).body;

    await env.emit([{ event: 'content.updated' }, { event: 'content.updated' }]);
    await waitFor(async () => (await get()).consecutive_failures === 2);
    mode = 'ok';
    await env.emit([{ event: 'content.updated' }]);
    await waitFor(async () => (await get()).consecutive_failures === 0);
    expect((await get()).status).toBe(true);

    mode = 'fail';
    for (let i = 0; i < 3; i++) {
      await env.emit([{ event: 'content.updated' }]);
      await waitFor(async () => (await get()).consecutive_failures === i + 1);
    }
    const disabled = await get();
    expect(disabled).toMatchObject({ status: false, consecutive_failures: 3, disabled_reason: 'Disabled automatically after 3 consecutive failed deliveries.' });
    expect(disabled.disabled_at).toEqual(expect.any(String));

    // Disabled: new events create no delivery at all.
    const before = await env.t.database.prisma.webhookDelivery.count();
    await env.emit([{ event: 'content.updated' }]);
    await waitFor(async () => (await env.t.database.prisma.outboxEvent.count({ where: { dispatchedAt: null } })) === 0);
    expect(await env.t.database.prisma.webhookDelivery.count()).toBe(before);

    // Re-enabling clears the auto-disable state.
    const put = await env.t.request({
      method: 'PUT',
      url: `/api/webhooks/${hook.uuid}`,
      headers: env.p.headers,
      body: { name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'], status: true },
    });
    expect(put.body).toMatchObject({ status: true, consecutive_failures: 0, disabled_reason: null, disabled_at: null });
  });

  it('cancels deliveries still pending when their webhook was disabled', async () => {
    env = await webhookEnv({ redis: true, start: false });
    rx = await startReceiver();
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'] });
    const row = await env.t.database.prisma.webhook.findUniqueOrThrow({ where: { uuid: hook.uuid } });
    const id = crypto.randomUUID();
    await env.t.database.prisma.webhookDelivery.create({
      data: { id, webhookId: row.id, outboxId: 1n, event: 'content.updated', body: { project_uuid: env.p.uuid, source: 'api' }, nextAttemptAt: new Date() },
    });
    await env.t.request({ method: 'PUT', url: `/api/webhooks/${hook.uuid}`, headers: env.p.headers, body: { name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'], status: false } });
    await env.t.services.webhooks.start();
    await env.t.services.webhooks.enqueue([id]);
    await waitFor(async () => (await env.t.database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } })).status === 'cancelled');
    expect(await env.t.database.prisma.webhookLog.count()).toBe(0);
    expect(rx.received).toHaveLength(0);
  });

  it('truncates stored bodies: request past 16 KiB, response past 8 KiB (the receiver still gets everything)', async () => {
    env = await webhookEnv({ redis: true });
    rx = await startReceiver(() => ({ status: 200, body: 'r'.repeat(20_000) }));
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.published'], sources: ['api'] });
    const big = 'b'.repeat(20_000);
    await env.emit([{ event: 'content.published', entry: { fields: { body: big } } }]);
    const [req] = await rx.until((r) => r.length === 1);
    expect(req.json.content_entry.fields.body).toBe(big);
    await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
    const log = (await env.logs(hook.uuid)).data[0];
    expect(log.request.body_truncated).toBe(true);
    expect(typeof log.request.body).toBe('string');
    expect(Buffer.byteLength(log.request.body)).toBe(16 * 1024);
    expect(req.raw.startsWith(log.request.body)).toBe(true);
    expect(log.response).toEqual({ status: 200, body: 'r'.repeat(8192), body_truncated: true });
  });
});
