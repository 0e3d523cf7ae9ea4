import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, webhookEnv, waitFor, type Receiver, type WebhookTestEnv } from './helpers.ts';
import { systemCtx } from '../../src/context.ts';
import { emitAuthEvent } from '../../src/events/outbox.ts';

describe('which webhooks receive an event', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  beforeAll(async () => {
    env = await webhookEnv({ redis: true });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await env.close();
    await rx.close();
  });

  it('matches on event name, source and linked collections; disabled webhooks get nothing; auth.* needs the api source', async () => {
    const { collection: posts, other: pages } = env;
    const at = (name: string) => `${rx.url}?${name}`;
    await env.hook({ name: 'A', url: at('A'), events: ['content.created'], sources: ['api'] });
    await env.hook({ name: 'B', url: at('B'), events: ['content.created', 'content.updated'], sources: ['cms'], collection_ids: [posts.id] });
    await env.hook({ name: 'C', url: at('C'), events: ['content.created'], sources: ['api', 'cms'], collection_ids: [pages.id] });
    await env.hook({ name: 'D', url: at('D'), status: false, events: ['content.created', 'content.updated', 'auth.login.success'], sources: ['api', 'cms'] });
    await env.hook({ name: 'E', url: at('E'), events: ['auth.login.success'], sources: ['cms'] });
    await env.hook({ name: 'F', url: at('F'), events: ['auth.login.success'], sources: ['api'], collection_ids: [posts.id] });

    const u = Array.from({ length: 4 }, () => crypto.randomUUID());
    await env.emit([{ event: 'content.created', entryUuid: u[0] }], { source: 'api', collection: posts });
    await env.emit([{ event: 'content.created', entryUuid: u[1] }], { source: 'cms', collection: posts });
    await env.emit([{ event: 'content.updated', entryUuid: u[2] }], { source: 'cms', collection: pages });
    await env.emit([{ event: 'content.created', entryUuid: u[3] }], { source: 'api', collection: pages });
    const project = await env.t.database.prisma.project.findUniqueOrThrow({ where: { uuid: env.p.uuid } });
    // An auth event reaches webhooks with `api` among their sources even when written by the cms
    // (the rule is about the webhook's sources), and ignores collection filters.
    await env.t.database.prisma.$transaction((tx) =>
      emitAuthEvent(tx, { ...systemCtx(env.t.services, project), source: 'cms' }, 'auth.login.success', { user: { uuid: 'u-1', email: 'a@example.com' } }),
    );

    // Once every outbox row is dispatched the set of deliveries is final; then wait for all of them.
    await waitFor(async () => (await env.t.database.prisma.outboxEvent.count({ where: { dispatchedAt: null } })) === 0);
    const expected = [`A:${u[0]}`, `B:${u[1]}`, `A:${u[3]}`, `C:${u[3]}`, 'F:auth.login.success'].sort();
    const deliveries = await env.t.database.prisma.webhookDelivery.count();
    expect(deliveries).toBe(expected.length);
    const got = await rx.until((r) => r.length >= expected.length);
    await waitFor(async () => (await env.t.database.prisma.webhookDelivery.count({ where: { status: 'delivered' } })) === expected.length);
    const seen = got.map((r) => `${r.path.split('?')[1]}:${r.json.entry_uuid ?? r.json.event}`).sort();
    expect(seen).toEqual(expected);

    const auth = got.find((r) => r.json.event === 'auth.login.success')!;
    expect(auth.json).toMatchObject({ event: 'auth.login.success', project_uuid: env.p.uuid, source: 'cms', user: { uuid: 'u-1', email: 'a@example.com' } });
    expect(auth.json).not.toHaveProperty('collection');
    const cmsEvent = got.find((r) => r.json.entry_uuid === u[1])!;
    expect(cmsEvent.json.source).toBe('cms');
  });
});
