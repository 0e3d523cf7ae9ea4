import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, webhookEnv, type Received, type Receiver, type WebhookTestEnv } from '../webhooks/helpers.ts';
import { authors, world } from '../helpers/world.ts';
import { publishRelease } from '../../src/releases/operations/publish.ts';

/**
 * A release's events: `content.published` / `content.unpublished` per entry it changed and
 * `release.published`, all written by the release's one transaction (a subscriber sees all of it or
 * none); the scheduler's entry point marks a failing release `failed` and emits `release.failed`.
 */
describe('release events', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  const api = async (method: string, url: string, body?: unknown) => env.t.request({ method, url, headers: env.p.headers, body });
  const create = async (slug: string, data: Record<string, unknown>, state = 'draft') => (await api('POST', `/api/${slug}`, { data, state })).body.uuid as string;
  const releaseOf = async (items: unknown[]) => {
    const r = (await api('POST', '/api/releases', { title: 'events' })).body.data;
    const added = await api('POST', `/api/releases/${r.id}/items`, { items });
    expect(added.status, added.text).toBe(200);
    return r.id as string;
  };
  beforeAll(async () => {
    env = await webhookEnv();
    await world({ app: env.t, project: env.p, collections: [authors()] });
    rx = await startReceiver();
    await env.hook({ name: 'releases', url: rx.url, events: ['content.published', 'content.unpublished', 'release.published', 'release.failed'], sources: ['api'] });
  });
  afterAll(async () => {
    await env.close();
    await rx.close();
  });

  it('writes every event of a publish in the release\'s one commit and delivers them', async () => {
    const post = await create('posts', { title: 'p' });
    const page = await create('pages', { title: 'g' }, 'published');
    const author = await create('authors', { name: 'a' });
    const id = await releaseOf([
      { collection: 'posts', uuid: post, action: 'publish' },
      { collection: 'pages', uuid: page, action: 'unpublish' },
      { collection: 'authors', uuid: author, action: 'publish' },
    ]);
    const after = (await env.t.database.prisma.outboxEvent.aggregate({ _max: { id: true } }))._max.id ?? 0n;
    expect((await api('POST', `/api/releases/${id}/publish`)).status).toBe(200);

    const rows = await env.t.database.prisma.$queryRaw<Array<{ event: string; entry_uuid: string | null; tx: string }>>`
      SELECT event, entry_uuid::text, xmin::text AS tx FROM outbox_events WHERE id > ${after} ORDER BY id`;
    expect(rows.map((r) => [r.event, r.entry_uuid])).toEqual([
      ['content.published', post],
      ['content.unpublished', page],
      ['content.published', author],
      ['release.published', null],
    ]);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);

    const got = await rx.until((rs) => rs.some((r) => r.json.event === 'release.published'));
    const release = got.find((r) => r.json.event === 'release.published')!.json;
    expect(release.release).toMatchObject({ id, status: 'published', items: [{ uuid: post, version: 1 }, { uuid: page, version: null }, { uuid: author, version: 1 }] });
    // The page's own publish on create is delivered too, in no set order relative to these.
    const expected = [`${post} content.published`, `${page} content.unpublished`, `${author} content.published`];
    const delivered = (rs: Received[]) => new Set(rs.map((r) => `${r.json.entry_uuid} ${r.json.event}`));
    const content = await rx.until((rs) => expected.every((e) => delivered(rs).has(e)));
    expect([...delivered(content)]).toEqual(expect.arrayContaining(expected));
  });

  it('marks a release failed with its errors when the scheduler publishes it, changes nothing else, and emits release.failed', async () => {
    const post = await create('posts', { title: 'stays draft' });
    const gone = await create('pages', { title: 'trashed' });
    const id = await releaseOf([
      { collection: 'posts', uuid: post, action: 'publish' },
      { collection: 'pages', uuid: gone, action: 'publish' },
    ]);
    await api('DELETE', `/api/pages/${gone}`);
    const versions = await env.t.database.prisma.entryVersion.count();
    const actor = { kind: 'system', name: 'scheduler' } as const;

    const outcome = await publishRelease(env.t.services, { projectId: env.p.id, releaseId: id, actor });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? null : Object.keys(outcome.errors)).toEqual(['items.1.uuid']);
    const failed = (await api('GET', `/api/releases/${id}`)).body.data;
    expect(failed).toMatchObject({ status: 'failed', errors: { 'items.1.uuid': [expect.any(String)] }, published_at: null });
    expect(await env.t.database.prisma.entryVersion.count()).toBe(versions);
    expect((await api('GET', `/api/posts/${post}`)).status).toBe(404);
    const delivered = await rx.until((rs) => rs.some((r) => r.json.event === 'release.failed' && r.json.release.id === id));
    expect(delivered.find((r) => r.json.event === 'release.failed')!.json.release.errors).toEqual(failed.errors);

    // Fixing the release reopens it; the scheduler's next run publishes it.
    const reopened = await api('DELETE', `/api/releases/${id}/items/${failed.items[1].id}`);
    expect(reopened.body.data).toMatchObject({ status: 'open', errors: null });
    const ok = await publishRelease(env.t.services, { projectId: env.p.id, releaseId: id, actor });
    expect(ok).toMatchObject({ ok: true, release: { status: 'published' } });
    expect((await api('GET', `/api/posts/${post}`)).status).toBe(200);
  });
});
