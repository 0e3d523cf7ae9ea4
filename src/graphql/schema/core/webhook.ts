import { builder } from '../common/builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { FLAT_PAGING_DEPRECATED, PageInfoType, RELAY_ARG_DESCRIPTIONS, edgeType, edgesOf, pageArgsFor } from '../common/page-info.ts';
import { DEFAULT_PER_PAGE } from '../../limits.ts';
import type { Ctx } from '../../../context.ts';
import { drawBudget } from '../../../edge/pipeline/stages.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookLogs,
  listWebhooks,
  pingWebhook,
  redeliverWebhookLog,
  updateWebhook,
  type LogPage,
  type QueuedSend,
} from '../../../webhooks/operations.ts';
import type { WebhookLogView, WebhookView } from '../../../webhooks/serialize.ts';

/** Webhook administration: the GraphQL twin of src/rest/webhook-routes.ts (same operations, same errors). */

type WebhookCollectionView = WebhookView['collections'][number];

const WebhookCollectionType = builder.objectRef<WebhookCollectionView>('WebhookCollection').implement({
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Internal collection id (what collectionIds takes).' }),
    uuid: t.exposeString('uuid'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
  }),
});

const WebhookType = builder.objectRef<WebhookView>('Webhook').implement({
  description: 'A webhook. The secret is write-only and never returned.',
  fields: (t) => ({
    uuid: t.exposeString('uuid'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    url: t.exposeString('url'),
    events: t.exposeStringList('events'),
    sources: t.exposeStringList('sources'),
    payload: t.exposeBoolean('payload', { description: 'Whether deliveries carry content_entry.' }),
    status: t.exposeBoolean('status', { description: 'Enabled.' }),
    collections: t.field({ type: [WebhookCollectionType], description: 'Empty means all collections.', resolve: (w) => w.collections }),
    hasSecret: t.boolean({ resolve: (w) => w.has_secret }),
    consecutiveFailures: t.int({ resolve: (w) => w.consecutive_failures }),
    disabledReason: t.string({ nullable: true, description: 'Set when the service disabled the webhook after failed deliveries.', resolve: (w) => w.disabled_reason }),
    disabledAt: t.field({ type: 'DateTime',  nullable: true, resolve: (w) => w.disabled_at }),
    createdAt: t.field({ type: 'DateTime',  resolve: (w) => w.created_at }),
    updatedAt: t.field({ type: 'DateTime',  resolve: (w) => w.updated_at }),
  }),
});

const WebhookLogType = builder.objectRef<WebhookLogView>('WebhookLog').implement({
  description: 'One delivery attempt.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    deliveryId: t.string({ resolve: (l) => l.delivery_id }),
    attempt: t.exposeInt('attempt'),
    action: t.exposeString('action', { description: 'Event name.' }),
    url: t.exposeString('url'),
    status: t.exposeString('status', { description: 'HTTP status code, or blocked / error / timeout.' }),
    request: t.field({ type: 'JSON', resolve: (l) => l.request }),
    response: t.field({ type: 'JSON', resolve: (l) => l.response }),
    durationMs: t.int({ nullable: true, resolve: (l) => l.duration_ms }),
    createdAt: t.field({ type: 'DateTime',  resolve: (l) => l.created_at }),
  }),
});

const WebhookLogEdgeType = edgeType('WebhookLogEdge', WebhookLogType);

const WebhookLogPageType = builder.objectRef<LogPage>('WebhookLogPage').implement({
  fields: (t) => ({
    data: t.field({ type: [WebhookLogType], resolve: (p) => p.data }),
    edges: t.field({ type: [WebhookLogEdgeType], resolve: (p) => edgesOf(p.data, p.current_page, p.per_page) }),
    pageInfo: t.field({ type: PageInfoType, resolve: (p) => ({ total: p.total, currentPage: p.current_page, perPage: p.per_page, lastPage: p.last_page, count: p.data.length }) }),
    currentPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.current_page }),
    perPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.per_page }),
    total: t.exposeInt('total', { deprecationReason: FLAT_PAGING_DEPRECATED }),
    lastPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.last_page }),
    from: t.exposeInt('from', { nullable: true, deprecationReason: FLAT_PAGING_DEPRECATED }),
    to: t.exposeInt('to', { nullable: true, deprecationReason: FLAT_PAGING_DEPRECATED }),
  }),
});

const QueuedSendType = builder.objectRef<QueuedSend>('QueuedWebhookSend').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    deliveryId: t.string({ resolve: (q) => q.delivery_id }),
    attempt: t.exposeInt('attempt'),
  }),
});

interface WebhookInputShape {
  name: string;
  description?: string | null;
  url: string;
  secret?: string | null;
  events: string[];
  sources: string[];
  payload?: boolean | null;
  status?: boolean | null;
  collectionIds?: number[] | null;
}

const WebhookInput = builder.inputRef<WebhookInputShape>('WebhookInput').implement({
  description: 'Same rules as the REST body. On update, omitted optional fields keep their value; secret: null removes the secret.',
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    url: t.string({ required: true }),
    secret: t.string(),
    events: t.stringList({ required: true }),
    sources: t.stringList({ required: true }),
    payload: t.boolean(),
    status: t.boolean(),
    collectionIds: t.intList(),
  }),
});

/** GraphQL input → the REST body shape the operations validate (absent keys stay absent). */
function toBody(input: WebhookInputShape): Record<string, unknown> {
  const body: Record<string, unknown> = { name: input.name, url: input.url, events: input.events, sources: input.sources };
  if (input.description !== undefined) body.description = input.description;
  if (input.secret !== undefined) body.secret = input.secret;
  if (input.payload !== undefined && input.payload !== null) body.payload = input.payload;
  if (input.status !== undefined && input.status !== null) body.status = input.status;
  if (input.collectionIds !== undefined && input.collectionIds !== null) body.collection_ids = input.collectionIds;
  return body;
}

/**
 * Authenticates, then draws from the same `webhooks` rate-limit budget as the REST webhook routes:
 * one budget per operation, whichever surface calls it.
 */
async function webhookCtx(context: GraphQLContext): Promise<Ctx> {
  const ctx = await context.auth();
  await drawBudget(context.services, ctx, 'webhooks');
  return ctx;
}

builder.queryFields((t) => ({
  webhooks: t.field({
    nullable: true,
    extensions: { ability: 'admin' },
    type: [WebhookType],
    description: 'Webhooks of the project (admin).',
    resolve: async (_root, _args, context) => listWebhooks(await webhookCtx(context)),
  }),
  webhook: t.field({
    nullable: true,
    extensions: { ability: 'admin' },
    type: WebhookType,
    args: { uuid: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => getWebhook(await webhookCtx(context), args.uuid),
  }),
  webhookLogs: t.field({
    nullable: true,
    extensions: { ability: 'admin' },
    type: WebhookLogPageType,
    description: 'Delivery log, newest first. perPage defaults to 25 and is capped at 100.',
    args: {
      uuid: t.arg.string({ required: true }),
      page: t.arg.int(),
      perPage: t.arg.int(),
      first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
      after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
    },
    resolve: async (_root, args, context) => {
      const paging = pageArgsFor(args, DEFAULT_PER_PAGE);
      return listWebhookLogs(await webhookCtx(context), args.uuid, { page: paging.page, paginate: paging.perPage });
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: WebhookType,
    args: { input: t.arg({ type: WebhookInput, required: true }) },
    resolve: async (_root, args, context) => createWebhook(await webhookCtx(context), toBody(args.input)),
  }),
  updateWebhook: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: WebhookType,
    args: { uuid: t.arg.string({ required: true }), input: t.arg({ type: WebhookInput, required: true }) },
    resolve: async (_root, args, context) => updateWebhook(await webhookCtx(context), args.uuid, toBody(args.input)),
  }),
  deleteWebhook: t.boolean({
    extensions: { ability: 'admin' },
    nullable: true,
    args: { uuid: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => {
      await deleteWebhook(await webhookCtx(context), args.uuid);
      return true;
    },
  }),
  redeliverWebhookLog: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: QueuedSendType,
    description: 'Sends a logged delivery again (same delivery id, next attempt number, no automatic retries).',
    args: { uuid: t.arg.string({ required: true }), logId: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => redeliverWebhookLog(await webhookCtx(context), args.uuid, String(args.logId)),
  }),
  pingWebhook: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: QueuedSendType,
    description: 'Sends a webhook.ping test event.',
    args: { uuid: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => pingWebhook(await webhookCtx(context), args.uuid),
  }),
}));
