import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/client.ts';
import { startReceiver, webhookEnv, type Receiver, type WebhookTestEnv } from './helpers.ts';

/**
 * The trash's events, each delivered by a real operation over the public API: soft delete
 * (`content.trashed`), restore (`content.restored`, REST and GraphQL), emptying the trash and the
 * retention purge (`content.deleted`, ids only; the purge's source is `cms`).
 */
describe('trash operations emit their events', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  beforeAll(async () => {
    env = await webhookEnv({ redis: true, env: { TRASH_RETENTION_DAYS: '30' } });
    rx = await startReceiver();
    await env.hook({ name: 'trash', url: rx.url, events: ['content.trashed', 'content.restored', 'content.deleted'], sources: ['api', 'cms'] });
  });
  afterAll(async () => {
    await env?.close();
    await rx?.close();
  });

  const call = async (method: string, url: string, body?: unknown) => {
    const res = await env.t.request({ method, url, headers: env.p.headers, body });
    expect([200, 201], `${method} ${url}: ${res.text}`).toContain(res.status);
    return res.body;
  };
  const deliveriesFor = async (uuid: string, count: number) => {
    const got = await rx.until((r) => r.filter((x) => x.json.entry_uuid === uuid).length >= count);
    return got.filter((x) => x.json.entry_uuid === uuid);
  };

  it('trash → content.trashed; restore → content.restored with the entry as restored', async () => {
    const { uuid } = await call('POST', '/api/posts', { data: { title: 'comes back' } });
    await call('DELETE', `/api/posts/${uuid}`);
    await call('POST', `/api/posts/${uuid}/restore`);
    const got = await deliveriesFor(uuid, 2);
    expect(got.map((d) => d.json.event).sort()).toEqual(['content.restored', 'content.trashed']);
    const restored = got.find((d) => d.json.event === 'content.restored')!.json;
    expect(restored).toMatchObject({ source: 'api', collection: env.collection, entry_uuid: uuid, locale: 'en' });
    expect(restored.content_entry).toMatchObject({ uuid, fields: { title: 'comes back' } });
  });

  it('restore over GraphQL emits content.restored too', async () => {
    const { uuid } = await call('POST', '/api/posts', { data: { title: 'graphql' } });
    await call('DELETE', `/api/posts/${uuid}`);
    const res = await env.t.graphql(`mutation($u: ID!) { restorePost(uuid: $u) { uuid } }`, { u: uuid }, env.p.headers);
    expect(res.body.errors).toBeUndefined();
    expect((await deliveriesFor(uuid, 2)).map((d) => d.json.event).sort()).toEqual(['content.restored', 'content.trashed']);
  });

  it('a refused restore (409: not in the trash) emits nothing', async () => {
    const { uuid } = await call('POST', '/api/posts', { data: { title: 'never trashed' } });
    const res = await env.t.request({ method: 'POST', url: `/api/posts/${uuid}/restore`, headers: env.p.headers });
    expect(res.status).toBe(409);
    await call('DELETE', `/api/posts/${uuid}`);
    // The trash event arrives after the refused restore; nothing came before it.
    await deliveriesFor(uuid, 1);
    await new Promise((ok) => setTimeout(ok, 300));
    expect(rx.received.filter((x) => x.json.entry_uuid === uuid).map((d) => d.json.event)).toEqual(['content.trashed']);
  });

  it('emptying the trash → content.deleted per entry (ids only)', async () => {
    const a = (await call('POST', '/api/pages', { data: { title: 'a' } })).uuid as string;
    const b = (await call('POST', '/api/pages', { data: { title: 'b' } })).uuid as string;
    await call('DELETE', `/api/pages/${a}`);
    await call('DELETE', `/api/pages/${b}`);
    expect((await call('DELETE', '/api/pages/trash')).deleted).toBe(2);
    for (const uuid of [a, b]) {
      const got = await deliveriesFor(uuid, 2);
      const deleted = got.find((d) => d.json.event === 'content.deleted')!;
      expect(deleted.json).toMatchObject({ source: 'api', collection: env.other, entry_uuid: uuid });
      expect(deleted.json).not.toHaveProperty('content_entry');
    }
  });

  it('the retention purge → content.deleted with source cms', async () => {
    const { uuid } = await call('POST', '/api/posts', { data: { title: 'expires' } });
    await call('DELETE', `/api/posts/${uuid}`);
    await env.t.database.prisma.$executeRaw(Prisma.sql`UPDATE entries SET deleted_at = now() - interval '31 days' WHERE uuid = ${uuid}::uuid`);
    expect((await env.t.services.webhooks.cleanup()).trashed_entries).toBe(1);
    const got = await deliveriesFor(uuid, 2);
    expect(got.map((d) => d.json.event).sort()).toEqual(['content.deleted', 'content.trashed']);
    expect(got.find((d) => d.json.event === 'content.deleted')!.json).toMatchObject({ source: 'cms', collection: env.collection, entry_uuid: uuid, locale: 'en' });
  });
});
