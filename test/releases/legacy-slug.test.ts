import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { field, world, type World } from '../helpers/world.ts';

/**
 * `releases` became a reserved slug after projects could make a collection of that name. Such a
 * project keeps every route of its collection under /api/releases (the fixed release routes step
 * aside for it), and manages releases through GraphQL; other projects on the same server get the
 * release routes. New collections cannot take the slug; the old one may keep it when renamed.
 */
/**
 * The same holds for every reserved slug, through the one route-table hook: `schedules` (whose only
 * fixed route is the cancel) and `preview-tokens`.
 */
describe('a project with a collection named releases', () => {
  let w: World;
  let legacy: World;
  beforeAll(async () => {
    w = await world({ collections: [{ slug: 'posts', fields: [field.text('title')] }], tokens: { reader: ['read'] } });
    // Made straight in the database, as it was made before the slug was reserved.
    legacy = await world({ app: w.t, project: { name: 'Legacy' }, collections: [{ slug: 'releases', fields: [field.text('title')] }] });
  });
  afterAll(() => w.close());

  it('keeps the collection\'s list, create, get, update, publish, versions, trash and delete routes', async () => {
    const created = await legacy.api('POST', '/api/releases', { data: { title: 'v1' } });
    expect(created.status, created.text).toBe(201);
    const uuid = created.body.uuid;
    expect((await legacy.api('GET', '/api/releases?state=draft')).body.map((e: { uuid: string }) => e.uuid)).toEqual([uuid]);
    expect((await legacy.api('PATCH', `/api/releases/${uuid}`, { data: { title: 'v2' } })).body.fields.title).toBe('v2');
    const published = await legacy.api('POST', `/api/releases/${uuid}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.version_number).toBe(1);
    expect((await legacy.api('GET', `/api/releases/${uuid}`)).body.fields.title).toBe('v2');
    expect((await legacy.api('GET', '/api/releases')).body.map((e: { uuid: string }) => e.uuid)).toEqual([uuid]);
    expect((await legacy.api('GET', `/api/releases/${uuid}/versions`)).body.data).toHaveLength(1);
    expect((await legacy.api('DELETE', `/api/releases/${uuid}`)).status).toBe(200);
    expect((await legacy.api('GET', '/api/releases/trash')).body.data.map((e: { uuid: string }) => e.uuid)).toEqual([uuid]);
    // Paths only the release routes know are unknown here.
    expect((await legacy.api('POST', `/api/releases/${uuid}/items`, { items: [] })).status).toBe(404);
  });

  it('leaves the release routes to every other project, and GraphQL to this one', async () => {
    const made = await w.api('POST', '/api/releases', { title: 'Launch' });
    expect(made.status).toBe(201);
    expect(made.body.data.status).toBe('open');
    const res = await legacy.t.graphql('mutation { createRelease(title: "via GraphQL") { id status } }', undefined, legacy.p.headers);
    expect(res.body.data.createRelease.status).toBe('OPEN');
    const list = await legacy.t.graphql('{ releases { data { title } } }', undefined, legacy.p.headers);
    expect(list.body.data.releases.data.map((r: { title: string }) => r.title)).toEqual(['via GraphQL']);
  });

  it('refuses the slug for new collections but lets the old one keep it', async () => {
    for (const slug of ['releases', 'schedules', 'preview-tokens']) {
      const res = await w.api('POST', '/api/collections', { name: 'X', slug });
      expect(res.status, slug).toBe(422);
    }
    const kept = await legacy.api('PUT', '/api/collections/releases', { name: 'Press releases', slug: 'releases' });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.name).toBe('Press releases');
    const moved = await w.api('PUT', '/api/collections/posts', { name: 'Posts', slug: 'releases' });
    expect(moved.status).toBe(422);
  });

  it('decides by the project, never by the asking token: a token that cannot reach the collection changes nothing for the others', async () => {
    expect((await legacy.api('POST', '/api/collections', { name: 'Notes', slug: 'notes', fields: [{ type: 'text', label: 'T', name: 't' }] })).status).toBe(201);
    const scoped = await legacy.api('POST', '/api/project/tokens', { name: 'notes only', abilities: ['read'], collections: ['notes'] });
    expect(scoped.status, scoped.text).toBe(201);
    const h = { 'project-id': legacy.p.uuid, authorization: `Bearer ${scoped.body.data.token}` };
    // Out of its scope the collection does not exist for it (404), and the fixed routes are not its either.
    expect((await legacy.api('GET', '/api/releases', undefined, h)).status).toBe(404);
    const list = await legacy.api('GET', '/api/releases?state=draft');
    expect(list.status, list.text).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
  });

  it('keeps a `schedules` collection\'s DELETE under /api/schedules, and cancels schedules through GraphQL', async () => {
    const old = await world({ app: w.t, project: { name: 'Old schedules' }, collections: [{ slug: 'schedules', fields: [field.text('title')] }, { slug: 'posts', fields: [field.text('title')] }] });
    const entry = (await old.api('POST', '/api/schedules', { data: { title: 'mine' } })).body.uuid as string;
    const post = (await old.api('POST', '/api/posts', { data: { title: 'p' } })).body.uuid as string;
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const made = await old.t.graphql(`mutation { scheduleEntry(collection: "posts", uuid: "${post}", action: PUBLISH, at: "${at}") { id status } }`, undefined, old.p.headers);
    const id = made.body.data?.scheduleEntry.id as string;
    expect(id, JSON.stringify(made.body)).toBeTruthy();
    // The collection answers: a schedule id is no entry of it, an entry UUID deletes the entry.
    expect((await old.api('DELETE', `/api/schedules/${id}`)).status).toBe(404);
    expect((await old.api('DELETE', `/api/schedules/${entry}`)).status).toBe(200);
    expect((await old.api('GET', `/api/schedules/${entry}?state=draft`)).status).toBe(404);
    const cancelled = await old.t.graphql(`mutation { cancelSchedule(id: "${id}") { status } }`, undefined, old.p.headers);
    expect(cancelled.body.data?.cancelSchedule.status, JSON.stringify(cancelled.body)).toBe('CANCELLED');
    // Every other project cancels over REST.
    const mine = (await w.api('POST', '/api/posts', { data: { title: 'q' } })).body.uuid as string;
    const s = await w.api('POST', `/api/posts/${mine}/schedule`, { action: 'publish', at });
    expect((await w.api('DELETE', `/api/schedules/${s.body.data.id}`)).body.data.status).toBe('cancelled');
  });

  it('keeps a `preview-tokens` collection\'s list and create under /api/preview-tokens', async () => {
    const old = await world({ app: w.t, project: { name: 'Old previews' }, collections: [{ slug: 'preview-tokens', fields: [field.text('title')] }] });
    const created = await old.api('POST', '/api/preview-tokens', { data: { title: 'an entry' } });
    expect(created.status, created.text).toBe(201);
    expect((await old.api('GET', '/api/preview-tokens?state=draft')).body.map((e: { uuid: string }) => e.uuid)).toEqual([created.body.uuid]);
    expect((await w.api('POST', '/api/preview-tokens', { expires_in: 60 })).status).toBe(201);
  });
});
