import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, webhookEnv, waitFor, type Receiver, type WebhookTestEnv } from './helpers.ts';
import { systemCtx } from '../../src/context.ts';
import { createEntry } from '../../src/entries/operations/entry.ts';
import { emitContentEvent } from '../../src/events/outbox.ts';
import { passwordNamesSql } from '../../src/entries/store/snapshot.ts';

const ALL_CONTENT = ['content.created', 'content.updated', 'content.published', 'content.unpublished', 'content.deleted', 'content.trashed', 'content.restored'];

/** Each content operation, through the public API, emits its event in its own transaction. */
describe('content operations emit their events', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  beforeAll(async () => {
    env = await webhookEnv({ redis: true });
    rx = await startReceiver();
    await env.hook({ name: 'all', url: rx.url, events: ALL_CONTENT, sources: ['api'] });
  });
  afterAll(async () => {
    await env.close();
    await rx.close();
  });

  const call = async (method: string, url: string, body?: unknown, expected = [200, 201]) => {
    const res = await env.t.request({ method, url, headers: env.p.headers, body });
    expect(expected, `${method} ${url}: ${res.text}`).toContain(res.status);
    return res.body;
  };
  /** Waits for `count` deliveries about one entry and returns their event names, sorted. */
  const eventsFor = async (uuid: string, count: number) => {
    const got = await rx.until((r) => r.filter((x) => x.json.entry_uuid === uuid).length >= count);
    return got.filter((x) => x.json.entry_uuid === uuid).map((x) => x.json.event).sort();
  };
  const deliveriesFor = (uuid: string) => rx.received.filter((x) => x.json.entry_uuid === uuid);

  it('create (draft) → content.created with the entry resource', async () => {
    const entry = await call('POST', '/api/posts', { data: { title: 'Draft' } });
    expect(await eventsFor(entry.uuid, 1)).toEqual(['content.created']);
    const [d] = deliveriesFor(entry.uuid);
    expect(d.json).toMatchObject({ source: 'api', collection: env.collection, locale: 'en', content_entry: { uuid: entry.uuid } });
    // The outbox row also holds the stored row the commit wrote, for live subscriptions: never sent.
    const [row] = await env.t.database.query<{ committed: unknown }>(`SELECT payload->'committed' AS committed FROM outbox_events WHERE entry_uuid = $1`, [entry.uuid]);
    expect(row.committed).toMatchObject({ uuid: entry.uuid, data: { title: 'Draft' } });
    expect(d.json).not.toHaveProperty('committed');
  });

  it('create published → content.created + content.published', async () => {
    const entry = await call('POST', '/api/posts', { data: { title: 'Live' }, state: 'published' });
    expect(await eventsFor(entry.uuid, 2)).toEqual(['content.created', 'content.published']);
  });

  it('PUT and PATCH → content.updated; publish → content.published; unpublish → content.unpublished; revert → content.published', async () => {
    const { uuid } = await call('POST', '/api/posts', { data: { title: 'v0' } });
    await call('PUT', `/api/posts/${uuid}`, { data: { title: 'v1' } });
    await call('PATCH', `/api/posts/${uuid}`, { data: { title: 'v2' } });
    await call('POST', `/api/posts/${uuid}/publish`);
    await call('POST', `/api/posts/${uuid}/unpublish`);
    await call('POST', `/api/posts/${uuid}/versions/1/revert`);
    expect(await eventsFor(uuid, 6)).toEqual([
      'content.created',
      'content.published',
      'content.published',
      'content.unpublished',
      'content.updated',
      'content.updated',
    ]);
    const patched = deliveriesFor(uuid).filter((d) => d.json.event === 'content.updated').map((d) => d.json.content_entry.fields?.title ?? d.json.content_entry.title);
    expect(patched.sort()).toEqual(['v1', 'v2']);
  });

  it('soft delete → content.trashed (with the entry); force delete → content.deleted (ids only)', async () => {
    const soft = await call('POST', '/api/posts', { data: { title: 'soft' } });
    await call('DELETE', `/api/posts/${soft.uuid}`);
    expect(await eventsFor(soft.uuid, 2)).toEqual(['content.created', 'content.trashed']);
    expect(deliveriesFor(soft.uuid).find((d) => d.json.event === 'content.trashed')!.json.content_entry).toBeDefined();

    const hard = await call('POST', '/api/posts', { data: { title: 'hard' } });
    await call('DELETE', `/api/posts/${hard.uuid}?force=1`);
    expect(await eventsFor(hard.uuid, 2)).toEqual(['content.created', 'content.deleted']);
    const deleted = deliveriesFor(hard.uuid).find((d) => d.json.event === 'content.deleted')!;
    expect(deleted.json).not.toHaveProperty('content_entry');
    expect(deleted.json).toMatchObject({ entry_uuid: hard.uuid, collection: env.collection });
  });

  it('a transaction that rolls back after emitting leaves no event behind', async () => {
    const project = await env.t.database.prisma.project.findUniqueOrThrow({ where: { uuid: env.p.uuid } });
    const ctx = { ...systemCtx(env.t.services, project), source: 'api' as const };
    const entryUuid = crypto.randomUUID();
    await expect(
      env.t.database.prisma.$transaction(async (tx) => {
        await emitContentEvent(tx, ctx, { event: 'content.updated', collection: env.collection, entryUuid, locale: 'en', entry: {} }, passwordNamesSql);
        throw new Error('the change failed after its event was written');
      }),
    ).rejects.toThrow('the change failed');
    // A later event in the same collection is delivered; the rolled-back one never exists.
    const probe = await call('POST', '/api/posts', { data: { title: 'probe' } });
    await eventsFor(probe.uuid, 1);
    expect(await env.t.database.prisma.outboxEvent.count({ where: { entryUuid } })).toBe(0);
    expect(deliveriesFor(entryUuid)).toHaveLength(0);
  });

  it('changes made by the project\'s own tools carry source cms', async () => {
    const cmsRx = await startReceiver();
    try {
      await env.hook({ name: 'cms', url: cmsRx.url, events: ['content.created'], sources: ['cms'] });
      const project = await env.t.database.prisma.project.findUniqueOrThrow({ where: { uuid: env.p.uuid } });
      const entry = await createEntry(systemCtx(env.t.services, project), 'posts', { data: { title: 'from the CLI' } });
      const [d] = await cmsRx.until((r) => r.length === 1);
      expect(d.json).toMatchObject({ event: 'content.created', source: 'cms', entry_uuid: entry.uuid });
      // The api-only webhook does not get it.
      await waitFor(async () => (await env.t.database.prisma.outboxEvent.count({ where: { dispatchedAt: null } })) === 0);
      await waitFor(async () => (await env.t.database.prisma.webhookDelivery.count({ where: { status: 'pending' } })) === 0);
      expect(deliveriesFor(entry.uuid)).toHaveLength(0);
    } finally {
      await cmsRx.close();
    }
  });
});
