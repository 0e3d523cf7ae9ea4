import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorld, waitFor, type ScheduleWorld } from './helpers.ts';

/** Release schedules run through the same machinery as entry schedules (worker in this process). */
describe('release schedules (REST and GraphQL)', () => {
  let w: ScheduleWorld;
  beforeAll(async () => {
    w = await scheduleWorld();
  });
  afterAll(async () => {
    await w?.closeAll();
  });

  const release = async (items: Array<{ uuid: string; action: 'publish' | 'unpublish' }>) => {
    const created = await w.api('POST', '/api/releases', { title: `r ${Math.random()}` });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    const added = await w.api('POST', `/api/releases/${id}/items`, { items: items.map((i) => ({ collection: 'posts', ...i })) });
    expect(added.status, added.text).toBe(200);
    return id;
  };
  const statusOf = async (id: string) => (await w.api('GET', `/api/releases/${id}`)).body.data;

  it('publishes at publish_at the drafts as they are then, once; the release says scheduled until then', { timeout: 30_000 }, async () => {
    const a = await w.entry('a');
    const b = await w.entry('b live', true);
    const id = await release([{ uuid: a, action: 'publish' }, { uuid: b, action: 'unpublish' }]);
    const at = new Date(Date.now() + 1500).toISOString();
    const scheduled = await w.api('POST', `/api/releases/${id}/schedule`, { publish_at: at });
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(scheduled.body.data).toMatchObject({ status: 'scheduled', publish_at: at });
    expect((await w.api('PATCH', `/api/posts/${a}`, { data: { title: 'a edited' } })).status).toBe(200);

    await waitFor(async () => (await statusOf(id)).status === 'published', 15_000);
    const done = await statusOf(id);
    expect(Date.parse(done.published_at) - Date.parse(at)).toBeLessThan(5000);
    expect((await w.api('GET', `/api/posts/${a}`)).body.fields.title).toBe('a edited');
    expect((await w.api('GET', `/api/posts/${b}`)).status).toBe(404);
    const versions = await w.api('GET', `/api/posts/${a}/versions`);
    expect(versions.body.data).toHaveLength(1);
  });

  it('unschedule puts it back to open and nothing runs; a published release cannot be scheduled (409); a past time is 422', { timeout: 30_000 }, async () => {
    const a = await w.entry('stays draft');
    const id = await release([{ uuid: a, action: 'publish' }]);
    expect((await w.api('POST', `/api/releases/${id}/schedule`, { publish_at: new Date(Date.now() - 1000).toISOString() })).status).toBe(422);
    expect((await w.api('POST', `/api/releases/${id}/schedule`, { publish_at: new Date(Date.now() + 1200).toISOString() })).status).toBe(200);
    const back = await w.api('DELETE', `/api/releases/${id}/schedule`);
    expect(back.status, back.text).toBe(200);
    expect(back.body.data).toMatchObject({ status: 'open', publish_at: null });
    expect((await w.api('DELETE', `/api/releases/${id}/schedule`)).status).toBe(409);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await statusOf(id)).status).toBe('open');
    expect((await w.api('GET', `/api/posts/${a}`)).status).toBe(404);

    expect((await w.api('POST', `/api/releases/${id}/publish`)).status).toBe(200);
    expect((await w.api('POST', `/api/releases/${id}/schedule`, { publish_at: new Date(Date.now() + 60_000).toISOString() })).status).toBe(409);
  });

  it('a scheduled release whose entry is gone by then is marked failed with its errors, and nothing changes', { timeout: 30_000 }, async () => {
    const a = await w.entry('will publish');
    const gone = await w.entry('will be deleted');
    const id = await release([{ uuid: a, action: 'publish' }, { uuid: gone, action: 'publish' }]);
    const q = await w.t.graphql(
      `mutation($id: ID!, $at: DateTime!) { scheduleRelease(id: $id, publishAt: $at) { status } }`,
      { id, at: new Date(Date.now() + 1200).toISOString() },
      w.p.headers,
    );
    expect(q.body.errors, JSON.stringify(q.body)).toBeUndefined();
    expect(q.body.data.scheduleRelease.status).toBe('SCHEDULED');
    expect((await w.api('DELETE', `/api/posts/${gone}?force=true`)).status).toBeLessThan(300);
    await waitFor(async () => (await statusOf(id)).status === 'failed', 15_000);
    expect(Object.keys((await statusOf(id)).errors ?? {}).length).toBeGreaterThan(0);
    expect((await w.api('GET', `/api/posts/${a}`)).status).toBe(404);
  });
});
