import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorld, waitFor, type ScheduleWorld } from './helpers.ts';
import { systemCtx } from '../../src/context.ts';
import { scheduleRelease } from '../../src/releases/operations/schedule.ts';

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
    // The time it was scheduled for stays on record beside the time it published.
    expect(done.publish_at).toBe(at);
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

  it('a scheduled publish writes its events with the source of whoever scheduled it (cms tools or an API token)', { timeout: 30_000 }, async () => {
    const byCms = await w.entry('scheduled by the cms');
    const byApi = await w.entry('scheduled by a token');
    const cmsRelease = await release([{ uuid: byCms, action: 'publish' }]);
    const apiRelease = await release([{ uuid: byApi, action: 'publish' }]);
    const after = (await w.t.database.prisma.outboxEvent.aggregate({ _max: { id: true } }))._max.id ?? 0n;
    const at = new Date(Date.now() + 1200).toISOString();
    const project = await w.t.database.prisma.project.findUniqueOrThrow({ where: { id: w.p.id } });
    await scheduleRelease(systemCtx(w.t.services, project, 'dashboard'), cmsRelease, { publish_at: at });
    expect((await w.api('POST', `/api/releases/${apiRelease}/schedule`, { publish_at: at })).status).toBe(200);

    await waitFor(async () => (await statusOf(cmsRelease)).status === 'published' && (await statusOf(apiRelease)).status === 'published', 15_000);
    const rows = await w.t.database.prisma.$queryRaw<Array<{ event: string; source: string; entry: string | null; release: string | null }>>`
      SELECT event, source, entry_uuid::text AS entry, payload->'release'->>'id' AS release FROM outbox_events
      WHERE id > ${after} AND project_id = ${w.p.id} AND event IN ('content.published', 'release.published') ORDER BY id`;
    const sourceOf = (event: string, match: (r: (typeof rows)[number]) => boolean) => rows.filter((r) => r.event === event && match(r)).map((r) => r.source);
    expect(sourceOf('content.published', (r) => r.entry === byCms)).toEqual(['cms']);
    expect(sourceOf('release.published', (r) => r.release === cmsRelease)).toEqual(['cms']);
    expect(sourceOf('content.published', (r) => r.entry === byApi)).toEqual(['api']);
    expect(sourceOf('release.published', (r) => r.release === apiRelease)).toEqual(['api']);
  });
});
