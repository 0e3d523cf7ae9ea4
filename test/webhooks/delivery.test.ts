import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startReceiver, webhookEnv, waitFor, type Receiver, type WebhookTestEnv } from './helpers.ts';
import { standardWebhooksSecret } from '../../src/delivery/signing.ts';

const SECRET = 'topsecret-Ä-123';

describe.each([
  { mode: 'BullMQ worker', redis: true },
  { mode: 'in-process runner (no Redis)', redis: false },
])('delivery through the $mode', ({ redis }) => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  afterEach(async () => {
    await env?.close();
    await rx?.close();
  });

  it('POSTs a signed body that receivers verify over the raw bytes, and logs the attempt', async () => {
    env = await webhookEnv({ redis });
    rx = await startReceiver();
    const hook = await env.hook({ name: 'h', url: rx.url, secret: SECRET, events: ['content.created'], sources: ['api'] });
    const entryUuid = crypto.randomUUID();
    await env.emit([{ event: 'content.created', entryUuid, entry: { uuid: entryUuid, fields: { title: 'Hello' } } }]);
    const [req] = await rx.until((r) => r.length === 1);

    // docs/webhooks.md: hex HMAC-SHA256 of the exact body, keyed with the secret
    expect(req.headers['x-webhook-signature']).toBe(createHmac('sha256', SECRET).update(req.raw).digest('hex'));
    // Standard Webhooks: an off-the-shelf verifier accepts it (and checks the timestamp window)
    const verified = new Webhook(standardWebhooksSecret(SECRET)).verify(req.raw, {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    });
    expect(verified).toEqual(req.json);
    // A tampered body fails both.
    expect(() =>
      new Webhook(standardWebhooksSecret(SECRET)).verify(req.raw.replace('Hello', 'Hellp'), {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      }),
    ).toThrow();

    expect(Object.keys(req.json)).toEqual(['event', 'project_uuid', 'timestamp', 'delivery_id', 'source', 'collection', 'entry_uuid', 'locale', 'content_entry']);
    expect(req.json).toMatchObject({
      event: 'content.created',
      project_uuid: env.p.uuid,
      source: 'api',
      collection: env.collection,
      entry_uuid: entryUuid,
      locale: 'en',
      content_entry: { uuid: entryUuid, fields: { title: 'Hello' } },
    });
    expect(new Date(req.json.timestamp).toISOString()).toBe(req.json.timestamp);
    expect(req.headers['webhook-id']).toBe(req.json.delivery_id);
    expect(Number(req.headers['webhook-timestamp'])).toBe(Math.floor(Date.parse(req.json.timestamp) / 1000));

    await waitFor(async () => (await env.logs(hook.uuid)).total === 1);
    const logs = await env.logs(hook.uuid);
    expect(logs).toMatchObject({ current_page: 1, per_page: 25, total: 1, last_page: 1 });
    const row = logs.data[0];
    expect(row).toMatchObject({
      action: 'content.created',
      url: rx.url,
      status: '200',
      attempt: 1,
      delivery_id: req.json.delivery_id,
      response: { status: 200, body: 'ok', body_truncated: false },
    });
    expect(row.request.body).toEqual(req.json);
    expect(row.request.body_truncated).toBe(false);
    // Sanitized: signatures are not stored.
    expect(row.request.headers['x-webhook-signature']).toBe('[redacted]');
    expect(row.request.headers['webhook-signature']).toBe('[redacted]');
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(JSON.stringify(row)).not.toContain(String(req.headers['x-webhook-signature']));
  });

  it('leaves content_entry out when payload is false and for content.deleted; no signature without a secret', async () => {
    env = await webhookEnv({ redis });
    rx = await startReceiver();
    await env.hook({ name: 'full', url: `${rx.url}?full`, events: ['content.updated', 'content.deleted'], sources: ['api'] });
    await env.hook({ name: 'thin', url: `${rx.url}?thin`, payload: false, events: ['content.updated'], sources: ['api'] });
    await env.emit([{ event: 'content.updated' }, { event: 'content.deleted' }]);
    const got = await rx.until((r) => r.length === 3);
    const at = (path: string, event: string) => got.find((r) => r.path === `/hook?${path}` && r.json.event === event)!;
    expect(at('full', 'content.updated').json.content_entry).toBeDefined();
    expect(at('thin', 'content.updated').json).not.toHaveProperty('content_entry');
    const deleted = got.find((r) => r.json.event === 'content.deleted')!;
    expect(deleted.json).not.toHaveProperty('content_entry');
    expect(deleted.json.entry_uuid).toBeTypeOf('string');
    for (const r of got) {
      expect(r.headers).not.toHaveProperty('x-webhook-signature');
      expect(r.headers).not.toHaveProperty('webhook-signature');
    }
  });
});
