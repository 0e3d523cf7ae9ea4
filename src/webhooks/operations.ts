import { randomUUID } from 'node:crypto';
import { authorize, readSource, type Ctx } from '../context.ts';
import { Prisma, withinTransaction } from '../db/client.ts';
import { conflict, ErrorBag, forbidden, notFound } from '../errors.ts';
import { limitedToContent } from '../admin-scope.ts';
import { isUuid } from '../uuid.ts';
import { PING_EVENT } from '../events/names.ts';
import { serializeLog, serializeWebhook, WEBHOOK_COLLECTIONS, type WebhookLogView, type WebhookView, type WebhookWithCollections } from './serialize.ts';
import { urlProblemOnSave } from '../delivery/url-safety.ts';
import { parsePaging, parseWebhookBody, type WebhookInput } from './validation.ts';
import { webhookWithinLimit } from './scope.ts';

const WEBHOOK_NOT_FOUND = 'Webhook not found.';
const withCollections = WEBHOOK_COLLECTIONS;

/**
 * Another project's webhook is as unknown as a missing one (docs/foundation.md), and so is one that
 * reaches past the caller's collection or field limit (./scope.ts).
 */
async function findWebhook(ctx: Ctx, uuid: string): Promise<WebhookWithCollections> {
  if (!isUuid(uuid)) throw notFound(WEBHOOK_NOT_FOUND);
  const w = await ctx.db.webhook.findFirst({ where: { uuid: uuid.toLowerCase(), projectId: ctx.project.id }, include: withCollections });
  if (!w || !webhookWithinLimit(ctx.scope, w)) throw notFound(WEBHOOK_NOT_FOUND);
  return w;
}

export async function listWebhooks(ctx: Ctx): Promise<WebhookView[]> {
  authorize(ctx, 'admin');
  const rows = await ctx.db.webhook.findMany({ where: { projectId: ctx.project.id }, include: withCollections, orderBy: { id: 'asc' } });
  return rows.filter((w) => webhookWithinLimit(ctx.scope, w)).map(serializeWebhook);
}

export async function getWebhook(ctx: Ctx, uuid: string): Promise<WebhookView> {
  authorize(ctx, 'admin');
  return serializeWebhook(await findWebhook(ctx, uuid));
}

/** Shape rules, then the checks that need I/O (URL safety, collection ownership), all reported together. */
async function validate(ctx: Ctx, body: unknown, current?: WebhookWithCollections): Promise<WebhookInput> {
  const bag = new ErrorBag();
  const input = parseWebhookBody(body, bag);
  const opts = ctx.services.webhooks.options;
  if (input && !bag.errors.url) {
    const problem = await urlProblemOnSave(input.url, opts, opts.resolveHost);
    if (problem) bag.add('url', problem);
  }
  let slugs: string[] = [];
  if (input?.collectionIds?.length) {
    const found = await ctx.db.collection.findMany({
      where: { projectId: ctx.project.id, id: { in: input.collectionIds } },
      select: { id: true, slug: true },
    });
    slugs = found.map((c) => c.slug);
    const known = new Set(found.map((c) => c.id));
    const raw = (body as { collection_ids: unknown[] }).collection_ids;
    raw.forEach((id, i) => {
      if (typeof id === 'number' && input.collectionIds?.includes(id) && !known.has(id)) bag.add(`collection_ids.${i}`, `The selected collection_ids.${i} is invalid.`);
    });
  }
  bag.throwIfAny();
  // After the shape rules, so a limited token learns of its limit only for an otherwise valid webhook.
  // An update that leaves `collection_ids` out keeps the current links.
  const links = input!.collectionIds === undefined && current ? current.collections : slugs.map((slug) => ({ collection: { slug } }));
  if (!webhookWithinLimit(ctx.scope, { events: input!.events, collections: links })) {
    throw forbidden('Forbidden. This webhook would reach past the collections or fields this token is limited to: name only its collections, whole, and content or schedule events.');
  }
  return input!;
}

export async function createWebhook(ctx: Ctx, body: unknown): Promise<WebhookView> {
  authorize(ctx, 'admin');
  const input = await validate(ctx, body);
  const status = input.status ?? true;
  const created = await ctx.db.webhook.create({
    data: {
      projectId: ctx.project.id,
      name: input.name,
      description: input.description ?? null,
      url: input.url,
      secret: input.secret ?? null,
      events: input.events,
      sources: input.sources,
      payload: input.payload ?? true,
      status,
      disabledAt: status ? null : new Date(),
      collections: { create: (input.collectionIds ?? []).map((collectionId) => ({ collectionId })) },
    },
    include: withCollections,
  });
  return serializeWebhook(created);
}

/**
 * PUT: the required fields must all be sent; optional ones that are omitted keep their stored
 * value (an omitted `secret` keeps the secret, `null` removes it). Re-enabling a webhook clears
 * its auto-disable state.
 */
export async function updateWebhook(ctx: Ctx, uuid: string, body: unknown): Promise<WebhookView> {
  authorize(ctx, 'admin');
  const current = await findWebhook(ctx, uuid);
  const input = await validate(ctx, body, current);
  const status = input.status ?? current.status;
  const enabling = status && !current.status;
  const disabling = !status && current.status;
  const updated = await withinTransaction(ctx.db, async (tx) => {
    // The row first: it locks it, so concurrent updates of one webhook queue and each replaces the
    // links the previous one left (links first, two would insert the same pair: a 500).
    await tx.webhook.update({
      where: { id: current.id },
      data: {
        name: input.name,
        ...(input.description !== undefined ? { description: input.description } : {}),
        url: input.url,
        ...(input.secret !== undefined ? { secret: input.secret } : {}),
        events: input.events,
        sources: input.sources,
        ...(input.payload !== undefined ? { payload: input.payload } : {}),
        status,
        ...(enabling ? { consecutiveFailures: 0, disabledAt: null, disabledReason: null } : {}),
        ...(disabling ? { disabledAt: new Date(), disabledReason: null } : {}),
      },
    });
    if (input.collectionIds !== undefined) {
      await tx.webhookCollection.deleteMany({ where: { webhookId: current.id } });
      if (input.collectionIds.length) {
        await tx.webhookCollection.createMany({ data: input.collectionIds.map((collectionId) => ({ webhookId: current.id, collectionId })) });
      }
    }
    return tx.webhook.findUniqueOrThrow({ where: { id: current.id }, include: withCollections });
  });
  return serializeWebhook(updated);
}

/** Removes the webhook, its collection links and its pending deliveries; its log rows stay until retention. */
export async function deleteWebhook(ctx: Ctx, uuid: string): Promise<void> {
  authorize(ctx, 'admin');
  const w = await findWebhook(ctx, uuid);
  // A concurrent delete that got there first leaves this one a 404, as a later request would get.
  const deleted = await ctx.db.webhook.deleteMany({ where: { id: w.id } });
  if (deleted.count === 0) throw notFound(WEBHOOK_NOT_FOUND);
}

export interface LogPage {
  data: WebhookLogView[];
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
}

export async function listWebhookLogs(ctx: Ctx, uuid: string, query: { paginate?: unknown; page?: unknown }): Promise<LogPage> {
  authorize(ctx, 'admin');
  const bag = new ErrorBag();
  const { perPage, page } = parsePaging(query, bag);
  bag.throwIfAny();
  const w = await findWebhook(ctx, uuid);
  const { db } = await readSource(ctx);
  const where = { webhookId: w.id, ...logsWithinLimit(ctx, w) };
  const [total, rows] = await Promise.all([
    db.webhookLog.count({ where }),
    db.webhookLog.findMany({ where, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
  ]);
  const from = rows.length ? (page - 1) * perPage + 1 : null;
  return {
    data: rows.map(serializeLog),
    current_page: page,
    per_page: perPage,
    total,
    last_page: Math.max(1, Math.ceil(total / perPage)),
    from,
    to: from === null ? null : from + rows.length - 1,
  };
}

/**
 * The log rows a limited token may read: a webhook within its limit may have sent other collections'
 * entries before an unlimited admin narrowed it, so rows show only pings and events whose logged body
 * names one of the webhook's current collections (a body cut at the log limit names none, so it is left out).
 */
function logsWithinLimit(ctx: Ctx, w: WebhookWithCollections): Prisma.WebhookLogWhereInput {
  if (!limitedToContent(ctx.scope)) return {};
  const slugs = w.collections.map((c) => c.collection.slug);
  return {
    OR: [
      { action: PING_EVENT },
      ...slugs.map((slug) => ({ request: { path: ['body', 'collection', 'slug'], equals: slug } })),
    ],
  };
}

export interface QueuedSend {
  message: string;
  delivery_id: string;
  /** Attempt number the send will be logged with. */
  attempt: number;
}

/**
 * Sends a logged delivery again (same delivery_id, so receivers that already processed it can
 * dedupe; next attempt number). One attempt, no automatic retries, sent even when the webhook is
 * disabled; it does not move the auto-disable counter.
 */
export async function redeliverWebhookLog(ctx: Ctx, uuid: string, logId: string | number): Promise<QueuedSend> {
  authorize(ctx, 'admin');
  const w = await findWebhook(ctx, uuid);
  const idText = String(logId);
  if (!/^\d{1,18}$/.test(idText)) throw notFound('Webhook log not found.');
  const log = await ctx.db.webhookLog.findFirst({ where: { id: BigInt(idText), webhookId: w.id, ...logsWithinLimit(ctx, w) } });
  if (!log) throw notFound('Webhook log not found.');
  const requeued = await ctx.db.webhookDelivery.updateManyAndReturn({
    where: { id: log.deliveryId, webhookId: w.id, status: { in: ['delivered', 'failed', 'cancelled'] } },
    data: { status: 'pending', manual: true, nextAttemptAt: new Date(), completedAt: null },
    select: { attempts: true },
  });
  if (requeued.length === 0) {
    const exists = await ctx.db.webhookDelivery.findUnique({ where: { id: log.deliveryId }, select: { id: true } });
    if (!exists) throw notFound('The delivery of this log row is no longer kept and cannot be sent again.');
    throw conflict('This delivery is already queued or being sent.');
  }
  await ctx.services.webhooks.enqueue([log.deliveryId]);
  return { message: 'Redelivery queued.', delivery_id: log.deliveryId, attempt: requeued[0].attempts + 1 };
}

/**
 * Sends the `webhook.ping` test event to this webhook whatever its events, sources, collections or
 * status. The result shows up in the logs (action `webhook.ping`).
 */
export async function pingWebhook(ctx: Ctx, uuid: string): Promise<QueuedSend> {
  authorize(ctx, 'admin');
  const w = await findWebhook(ctx, uuid);
  const id = randomUUID();
  await ctx.db.webhookDelivery.create({
    data: {
      id,
      webhookId: w.id,
      outboxId: null,
      event: PING_EVENT,
      body: { project_uuid: ctx.project.uuid, source: ctx.source, webhook: { uuid: w.uuid, name: w.name } },
      status: 'pending',
      manual: true,
      nextAttemptAt: new Date(),
    },
  });
  await ctx.services.webhooks.enqueue([id]);
  return { message: 'Ping queued.', delivery_id: id, attempt: 1 };
}
