import { createHmac } from 'node:crypto';

/** Hex HMAC-SHA256 of the exact body bytes, keyed with the webhook secret (docs/webhooks.md). */
export function hexSignature(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Standard Webhooks signature (https://www.standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`. The key is the UTF-8 bytes of the webhook's secret, so a
 * receiver verifies with `new Webhook('whsec_' + base64(utf8(secret)))` (or, for ASCII secrets,
 * `new Webhook(secret, { format: 'raw' })`) from the `standardwebhooks` libraries.
 */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: Buffer): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(`${id}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The `whsec_` form of a secret, for receivers using Standard Webhooks libraries. */
export const standardWebhooksSecret = (secret: string): string => `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;

export const USER_AGENT = 'content-gateway-webhooks/1';

export interface SignedRequest {
  /** The JSON document the body bytes encode. */
  payload: Record<string, unknown>;
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * Builds the request for one attempt. The body keys come in a fixed order (event, project_uuid,
 * timestamp, delivery_id, source, then the event's own fields: a content event's collection, entry_uuid,
 * locale, revision, updated_at, ..., content_entry) whatever order they were stored in.
 */
export function buildRequest(input: {
  deliveryId: string;
  event: string;
  stored: Record<string, unknown>;
  secret: string | null;
  now: Date;
}): SignedRequest {
  const { project_uuid, source, collection, entry_uuid, locale, revision, updated_at, content_entry, ...rest } = input.stored;
  const payload = {
    event: input.event,
    project_uuid,
    timestamp: input.now.toISOString(),
    delivery_id: input.deliveryId,
    source,
    collection,
    entry_uuid,
    locale,
    // A content event's order among its entry's events (absent, so left out, for other events).
    revision,
    updated_at,
    ...rest,
    content_entry,
  };
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const seconds = Math.floor(input.now.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-webhook-event': input.event,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(seconds),
  };
  if (input.secret) {
    headers['x-webhook-signature'] = hexSignature(input.secret, body);
    headers['webhook-signature'] = standardSignature(input.secret, input.deliveryId, seconds, body);
  }
  return { payload, body, headers };
}

const SIGNATURE_HEADERS = new Set(['x-webhook-signature', 'webhook-signature']);

/** Headers as stored in a log row: signature values are replaced, everything else is kept. */
export function sanitizeHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = SIGNATURE_HEADERS.has(k) ? '[redacted]' : v;
  return out;
}
