import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { retryDelayMs } from '../../src/delivery/options.ts';
import { mergeCounters } from '../../src/delivery/processor.ts';
import { buildRequest, sanitizeHeaders, standardWebhooksSecret } from '../../src/delivery/signing.ts';

describe('retry schedule', () => {
  const opts = { retryBaseMs: 10_000, retryMaxMs: 6 * 3_600_000 };
  it('grows 4× per attempt from the base, within ±20 % jitter, capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(opts, n, () => 0.5))).toEqual([10_000, 40_000, 160_000, 640_000, 2_560_000]);
    expect(retryDelayMs(opts, 20, () => 0.5)).toBe(opts.retryMaxMs);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
        const nominal = Math.min(opts.retryMaxMs, opts.retryBaseMs * 4 ** (attempt - 1));
        const d = retryDelayMs(opts, attempt, () => r);
        return d >= Math.floor(nominal * 0.8) && d <= Math.ceil(nominal * 1.2);
      }),
    );
  });
});

describe('failure counter folding', () => {
  it('adds failures, and a success restarts the count from the failures after it', () => {
    const f = (webhook_id: number) => ({ webhook_id, reset: false, failures: 1 });
    const ok = (webhook_id: number) => ({ webhook_id, reset: true, failures: 0 });
    expect(mergeCounters([f(1), null, f(1), f(2)])).toEqual([
      { webhook_id: 1, reset: false, failures: 2 },
      { webhook_id: 2, reset: false, failures: 1 },
    ]);
    expect(mergeCounters([f(1), ok(1), f(1)])).toEqual([{ webhook_id: 1, reset: true, failures: 1 }]);
    expect(mergeCounters([f(1), f(1), ok(1)])).toEqual([{ webhook_id: 1, reset: true, failures: 0 }]);
  });
});

describe('request building', () => {
  const stored = { locale: 'en', content_entry: { a: 1 }, entry_uuid: 'e', collection: { id: 1, uuid: 'c', slug: 's' }, source: 'api', project_uuid: 'p' };
  it('orders the body keys and signs the exact bytes both ways', () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    const r = buildRequest({ deliveryId: 'd-1', event: 'content.updated', stored, secret: 'sëcret', now });
    expect(Object.keys(JSON.parse(r.body.toString()))).toEqual(['event', 'project_uuid', 'timestamp', 'delivery_id', 'source', 'collection', 'entry_uuid', 'locale', 'content_entry']);
    expect(r.headers['webhook-timestamp']).toBe(String(now.getTime() / 1000));
    const wh = new Webhook(standardWebhooksSecret('sëcret'));
    expect(wh.sign('d-1', now, r.body.toString())).toBe(r.headers['webhook-signature']);
  });
  it('sends no signature headers without a secret and never stores signature values', () => {
    const r = buildRequest({ deliveryId: 'd', event: 'content.updated', stored, secret: null, now: new Date() });
    expect(r.headers).not.toHaveProperty('x-webhook-signature');
    expect(r.headers).not.toHaveProperty('webhook-signature');
    const signed = buildRequest({ deliveryId: 'd', event: 'content.updated', stored, secret: 'secret!', now: new Date() });
    const clean = sanitizeHeaders(signed.headers);
    expect(clean['x-webhook-signature']).toBe('[redacted]');
    expect(clean['webhook-signature']).toBe('[redacted]');
    expect(clean['webhook-id']).toBe('d');
  });
});
