import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, webhookEnv, waitFor, type Receiver, type WebhookTestEnv } from './helpers.ts';

const FIELDS = 'uuid name description url events sources payload status hasSecret consecutiveFailures disabledReason disabledAt createdAt updatedAt collections { id uuid name slug }';

describe('webhooks over GraphQL: same operations, same errors', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  const gql = (query: string, variables?: Record<string, unknown>, headers = env.p.headers) => env.t.graphql(query, variables, headers);
  beforeAll(async () => {
    env = await webhookEnv();
    rx = await startReceiver();
  });
  afterAll(async () => {
    await env.close();
    await rx.close();
  });

  it('creates, reads, lists, updates and deletes', async () => {
    const created = await gql(
      `mutation ($input: WebhookInput!) { createWebhook(input: $input) { ${FIELDS} } }`,
      { input: { name: 'G', url: rx.url, secret: 'gql-secret', events: ['content.published'], sources: ['api'], collectionIds: [env.collection.id] } },
    );
    expect(created.body.errors).toBeUndefined();
    const hook = created.body.data.createWebhook;
    expect(hook).toMatchObject({ name: 'G', payload: true, status: true, hasSecret: true, consecutiveFailures: 0, collections: [{ ...env.collection, name: 'posts' }] });

    const rest = await env.t.request({ method: 'GET', url: `/api/webhooks/${hook.uuid}`, headers: env.p.headers });
    expect(rest.body.collections).toEqual(hook.collections);

    const one = await gql(`query ($uuid: String!) { webhook(uuid: $uuid) { uuid name } }`, { uuid: hook.uuid });
    expect(one.body.data.webhook).toEqual({ uuid: hook.uuid, name: 'G' });
    const list = await gql(`{ webhooks { uuid } }`);
    expect(list.body.data.webhooks).toEqual([{ uuid: hook.uuid }]);

    const updated = await gql(
      `mutation ($uuid: String!, $input: WebhookInput!) { updateWebhook(uuid: $uuid, input: $input) { name events hasSecret collections { id } } }`,
      { uuid: hook.uuid, input: { name: 'G2', url: rx.url, events: ['content.updated'], sources: ['cms'] } },
    );
    // secret and collections omitted: kept
    expect(updated.body.data.updateWebhook).toEqual({ name: 'G2', events: ['content.updated'], hasSecret: true, collections: [{ id: env.collection.id }] });

    const deleted = await gql(`mutation ($uuid: String!) { deleteWebhook(uuid: $uuid) }`, { uuid: hook.uuid });
    expect(deleted.body.data.deleteWebhook).toBe(true);
    const gone = await gql(`query ($uuid: String!) { webhook(uuid: $uuid) { uuid } }`, { uuid: hook.uuid });
    expect(gone.body.errors[0]).toMatchObject({ message: 'Webhook not found.', extensions: { code: 'NOT_FOUND', status: 404 } });
  });

  it('reports validation (422 field map), ability (403) and other-project (404) errors like REST', async () => {
    const invalid = await gql(`mutation ($input: WebhookInput!) { createWebhook(input: $input) { uuid } }`, {
      input: { name: 'x', url: 'ftp://nope', events: ['content.nope'], sources: ['api'] },
    });
    expect(invalid.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 422,
      errors: { url: ['The url must use HTTPS (ftp: URLs are never called).'], 'events.0': [expect.stringMatching(/^The selected events\.0 is invalid\. Valid events: content\.created, .*auth\.email_verification\.verified, release\.published, release\.failed, release\.scheduled, schedule\.failed\.$/)] },
    });
    const reader = await env.p.tokenWith(['read']);
    const forbidden = await gql(`{ webhooks { uuid } }`, undefined, reader);
    expect(forbidden.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });

    const other = await env.t.project({ name: 'other' });
    const theirs = await env.t.request({
      method: 'POST',
      url: '/api/webhooks',
      headers: other.headers,
      body: { name: 'theirs', url: rx.url, events: ['content.created'], sources: ['api'] },
    });
    for (const q of [
      `query ($uuid: String!) { webhook(uuid: $uuid) { uuid } }`,
      `query ($uuid: String!) { webhookLogs(uuid: $uuid) { total } }`,
      `mutation ($uuid: String!) { pingWebhook(uuid: $uuid) { deliveryId } }`,
      `mutation ($uuid: String!) { deleteWebhook(uuid: $uuid) }`,
    ]) {
      const res = await gql(q, { uuid: theirs.body.uuid });
      expect(res.body.errors[0], q).toMatchObject({ message: 'Webhook not found.', extensions: { code: 'NOT_FOUND' } });
    }
  });

  it('pings, pages logs and redelivers', async () => {
    const hook = (await gql(`mutation ($input: WebhookInput!) { createWebhook(input: $input) { uuid } }`, {
      input: { name: 'P', url: rx.url, events: ['content.created'], sources: ['api'] },
    })).body.data.createWebhook;
    const ping = await gql(`mutation ($uuid: String!) { pingWebhook(uuid: $uuid) { message deliveryId attempt } }`, { uuid: hook.uuid });
    expect(ping.body.data.pingWebhook).toMatchObject({ message: 'Ping queued.', attempt: 1 });
    const deliveryId = ping.body.data.pingWebhook.deliveryId;
    await rx.until((r) => r.some((x) => x.json.delivery_id === deliveryId));

    const logsQuery = `query ($uuid: String!, $page: Int, $perPage: Int) { webhookLogs(uuid: $uuid, page: $page, perPage: $perPage) {
      currentPage perPage total lastPage from to data { id deliveryId attempt action url status request response durationMs createdAt } } }`;
    await waitFor(async () => (await gql(logsQuery, { uuid: hook.uuid })).body.data.webhookLogs.total === 1);
    const page = (await gql(logsQuery, { uuid: hook.uuid, perPage: 500 })).body.data.webhookLogs;
    expect(page).toMatchObject({ currentPage: 1, perPage: 100, total: 1, lastPage: 1, from: 1, to: 1 });
    expect(page.data[0]).toMatchObject({ deliveryId, attempt: 1, action: 'webhook.ping', status: '200' });

    const again = await gql(`mutation ($uuid: String!, $logId: ID!) { redeliverWebhookLog(uuid: $uuid, logId: $logId) { deliveryId attempt } }`, {
      uuid: hook.uuid,
      logId: String(page.data[0].id),
    });
    expect(again.body.data.redeliverWebhookLog).toEqual({ deliveryId, attempt: 2 });
    await rx.until((r) => r.filter((x) => x.json.delivery_id === deliveryId).length === 2);
    const bad = await gql(logsQuery, { uuid: hook.uuid, page: 0 });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
