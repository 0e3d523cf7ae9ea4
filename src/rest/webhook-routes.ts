import { ref } from './openapi/components.ts';
import { defineRoutes, type RouteDef } from './route.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookLogs,
  listWebhooks,
  pingWebhook,
  redeliverWebhookLog,
  updateWebhook,
} from '../webhooks/operations.ts';

const common: Pick<RouteDef, 'ability' | 'bucket' | 'tags'> = { ability: 'admin', bucket: 'webhooks', tags: ['webhooks'] };

/** docs/webhooks.md; every route needs `admin` and draws from the `webhooks` rate budget. */
export const webhookRoutes = defineRoutes([
  {
    ...common,
    method: 'GET',
    url: '/api/webhooks',
    successStatus: 200,
    response: { schema: ref('WebhookList') },
    summary: 'List the project\'s webhooks',
    handler: async (ctx) => ({ body: await listWebhooks(ctx) }),
  },
  {
    ...common,
    method: 'POST',
    url: '/api/webhooks',
    successStatus: 201,
    response: { schema: ref('Webhook') },
    summary: 'Create a webhook',
    handler: async (ctx, { body }) => ({ status: 201, body: await createWebhook(ctx, body) }),
  },
  {
    ...common,
    method: 'GET',
    url: '/api/webhooks/:webhook',
    successStatus: 200,
    response: { schema: ref('Webhook') },
    summary: 'Get a webhook',
    handler: async (ctx, { params }) => ({ body: await getWebhook(ctx, params.webhook) }),
  },
  {
    ...common,
    method: 'PUT',
    url: '/api/webhooks/:webhook',
    successStatus: 200,
    response: { schema: ref('Webhook') },
    summary: 'Replace a webhook (omitting secret keeps it)',
    handler: async (ctx, { params, body }) => ({ body: await updateWebhook(ctx, params.webhook, body) }),
  },
  {
    ...common,
    method: 'DELETE',
    url: '/api/webhooks/:webhook',
    successStatus: 204,
    response: { description: 'Done; no body.' },
    summary: 'Delete a webhook and its collection links',
    handler: async (ctx, { params }) => {
      await deleteWebhook(ctx, params.webhook);
      return { status: 204 };
    },
  },
  {
    ...common,
    method: 'GET',
    url: '/api/webhooks/:webhook/logs',
    successStatus: 200,
    response: { schema: ref('WebhookLogPage') },
    summary: 'Delivery log of a webhook, newest first',
    handler: async (ctx, { params, query }) => ({ body: await listWebhookLogs(ctx, params.webhook, query) }),
  },
  {
    ...common,
    method: 'POST',
    url: '/api/webhooks/:webhook/logs/:log/redeliver',
    successStatus: 202,
    response: { schema: ref('QueuedSend') },
    summary: 'Send a logged delivery again',
    handler: async (ctx, { params }) => ({ status: 202, body: await redeliverWebhookLog(ctx, params.webhook, params.log) }),
  },
  {
    ...common,
    method: 'POST',
    url: '/api/webhooks/:webhook/ping',
    successStatus: 202,
    response: { schema: ref('QueuedSend') },
    summary: 'Send a webhook.ping test event',
    handler: async (ctx, { params }) => ({ status: 202, body: await pingWebhook(ctx, params.webhook) }),
  },
]);
