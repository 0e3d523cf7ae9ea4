import type { Collection, Webhook, WebhookLog } from '../db/generated/prisma/client.ts';

export type WebhookWithCollections = Webhook & { collections: Array<{ collection: Pick<Collection, 'id' | 'uuid' | 'name' | 'slug'> }> };

export interface WebhookView {
  uuid: string;
  name: string;
  description: string | null;
  url: string;
  events: string[];
  sources: string[];
  payload: boolean;
  status: boolean;
  collections: Array<{ id: number; uuid: string; name: string; slug: string }>;
  /** Whether requests are signed; the secret itself is write-only. */
  has_secret: boolean;
  /** Final delivery failures in a row; reaching WEBHOOK_DISABLE_AFTER_FAILURES disables the webhook. */
  consecutive_failures: number;
  /** Set when the service disabled the webhook itself; null when enabled or disabled by an admin. */
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** What `serializeWebhook` needs loaded with a webhook. */
export const WEBHOOK_COLLECTIONS = { collections: { include: { collection: { select: { id: true, uuid: true, name: true, slug: true } } } } } as const;

/** docs/webhooks.md plus the auto-disable state. */
export function serializeWebhook(w: WebhookWithCollections): WebhookView {
  return {
    uuid: w.uuid,
    name: w.name,
    description: w.description,
    url: w.url,
    events: w.events,
    sources: w.sources,
    payload: w.payload,
    status: w.status,
    collections: w.collections
      .map((c) => ({ id: c.collection.id, uuid: c.collection.uuid, name: c.collection.name, slug: c.collection.slug }))
      .sort((a, b) => a.id - b.id),
    has_secret: w.secret !== null && w.secret !== '',
    consecutive_failures: w.consecutiveFailures,
    disabled_reason: w.disabledReason,
    disabled_at: w.disabledAt?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

export interface WebhookLogView {
  id: number;
  delivery_id: string;
  attempt: number;
  action: string;
  url: string;
  status: string;
  request: unknown;
  response: unknown;
  duration_ms: number | null;
  created_at: string;
}

/** docs/webhooks.md plus id (for redelivery), delivery_id, attempt, duration_ms and created_at. */
export function serializeLog(l: WebhookLog): WebhookLogView {
  return {
    id: Number(l.id),
    delivery_id: l.deliveryId,
    attempt: l.attempt,
    action: l.action,
    url: l.url,
    status: l.status,
    request: l.request,
    response: l.response,
    duration_ms: l.durationMs,
    created_at: l.createdAt.toISOString(),
  };
}
