import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorld, waitFor, type ScheduleWorld } from './helpers.ts';

describe('schedules for one entry (REST, worker in this process)', () => {
  let w: ScheduleWorld;
  beforeAll(async () => {
    w = await scheduleWorld({ receiver: true });
  });
  afterAll(async () => {
    await w?.closeAll();
  });

  it('publishes the draft as it is at run time, within 5 s of `at`, and drops the cached published read', { timeout: 30_000 }, async () => {
    const uuid = await w.entry('first', true);
    // A published read, cached by this replica.
    expect((await w.api('GET', `/api/posts/${uuid}`)).body.fields.title).toBe('first');
    expect((await w.api('GET', `/api/posts/${uuid}`)).body.fields.title).toBe('first');

    const created = await w.schedule(uuid, 'publish', 1500);
    expect(created).toMatchObject({ action: 'publish', status: 'scheduled' });
    expect(Object.keys(created)).toEqual(expect.arrayContaining(['id', 'action', 'at', 'status']));
    expect((await w.schedules(uuid)).map((s) => s.id)).toEqual([created.id]);

    // Edited after scheduling: the run publishes this, not what the draft was when scheduled.
    const saved = await w.api('PATCH', `/api/posts/${uuid}`, { data: { title: 'edited later' } });
    expect(saved.status, saved.text).toBe(200);
    expect((await w.api('GET', `/api/posts/${uuid}`)).body.fields.title).toBe('first');

    const done = await w.settled(uuid, created.id);
    expect(done.status).toBe('done');
    const delay = Date.parse(done.ran_at) - Date.parse(created.at);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(5000);
    const read = await w.api('GET', `/api/posts/${uuid}`);
    expect(read.body.fields.title).toBe('edited later');
    const versions = await w.api('GET', `/api/posts/${uuid}/versions`);
    expect(versions.body.data).toHaveLength(2);
  });

  it('unpublishes at its time', { timeout: 30_000 }, async () => {
    const uuid = await w.entry('live', true);
    const s = await w.schedule(uuid, 'unpublish', 1000);
    expect((await w.settled(uuid, s.id)).status).toBe('done');
    expect((await w.api('GET', `/api/posts/${uuid}`)).status).toBe(404);
    expect((await w.api('GET', `/api/posts/${uuid}?state=draft`)).body.state).toBe('draft');
  });

  it('refuses a time that is not a future ISO 8601 date and time (422), an unknown action (422), an unknown entry (404), a token without update (403)', async () => {
    const uuid = await w.entry('x');
    const post = (body: unknown, headers?: Record<string, string>, target = uuid) => w.api('POST', `/api/posts/${target}/schedule`, body, headers);
    const past = await post({ action: 'publish', at: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(422);
    expect(past.body.errors.at).toBeDefined();
    for (const at of ['tomorrow', '2030-01-01', 12345, null]) {
      const res = await post({ action: 'publish', at });
      expect(res.status, String(at)).toBe(422);
      expect(res.body.errors, String(at)).toHaveProperty('at');
    }
    const action = await post({ action: 'delete', at: new Date(Date.now() + 60_000).toISOString() });
    expect(action.status).toBe(422);
    expect(action.body.errors).toHaveProperty('action');
    expect((await post({ action: 'publish', at: new Date(Date.now() + 60_000).toISOString() }, undefined, crypto.randomUUID())).status).toBe(404);
    expect((await post({ action: 'publish', at: new Date(Date.now() + 60_000).toISOString() }, w.tokens.writer)).status).toBe(403);
    expect((await w.api('GET', `/api/posts/${uuid}/schedule`, undefined, w.tokens.reader)).status).toBe(200);
    expect(await w.schedules(uuid)).toEqual([]);
  });

  it('cancel: the schedule never runs, its BullMQ job is gone, a second cancel is 409', { timeout: 30_000 }, async () => {
    const uuid = await w.entry('draft only');
    const s = await w.schedule(uuid, 'publish', 1500);
    expect(await w.job(s.id)).toBeDefined();
    expect((await w.api('DELETE', `/api/schedules/${s.id}`, undefined, w.tokens.reader)).status).toBe(403);
    const res = await w.api('DELETE', `/api/schedules/${s.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.id, status: 'cancelled' });
    expect(await w.job(s.id)).toBeUndefined();
    await new Promise((ok) => setTimeout(ok, 2500));
    expect((await w.api('GET', `/api/posts/${uuid}`)).status).toBe(404);
    expect((await w.schedules(uuid))[0].status).toBe('cancelled');
    expect((await w.api('DELETE', `/api/schedules/${s.id}`)).status).toBe(409);
    expect((await w.api('DELETE', `/api/schedules/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it('reschedule: PATCH /api/schedules/{id} { at } moves the row and its BullMQ job; the same rules as scheduling; 409 once it ran', { timeout: 30_000 }, async () => {
    const uuid = await w.entry('moved earlier');
    const s = await w.schedule(uuid, 'publish', 60_000);
    const patch = (id: string, body: unknown, headers?: Record<string, string>) => w.api('PATCH', `/api/schedules/${id}`, body, headers);
    const soon = () => new Date(Date.now() + 1500).toISOString();
    expect((await patch(s.id, { at: soon() }, w.tokens.reader)).status).toBe(403);
    for (const at of [new Date(Date.now() - 1000).toISOString(), 'tomorrow', '2030-01-01', null, undefined]) {
      const res = await patch(s.id, { at });
      expect(res.status, String(at)).toBe(422);
      expect(res.body.errors, String(at)).toHaveProperty('at');
    }
    expect((await patch(crypto.randomUUID(), { at: soon() })).status).toBe(404);
    expect((await patch('not-a-uuid', { at: soon() })).status).toBe(404);

    const at = soon();
    const res = await patch(s.id, { at });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.id, status: 'scheduled' });
    expect(Date.parse(res.body.data.at)).toBe(Date.parse(at));
    // The delayed job moved with it: due at the new time, not a minute from now.
    const job = (await w.job(s.id)) as { timestamp: number; delay: number };
    expect(Math.abs(job.timestamp + job.delay - Date.parse(at))).toBeLessThan(1000);

    const done = await w.settled(uuid, s.id);
    expect(done.status).toBe('done');
    expect(Date.parse(done.ran_at) - Date.parse(at)).toBeGreaterThanOrEqual(0);
    expect((await w.api('GET', `/api/posts/${uuid}`)).body.fields.title).toBe('moved earlier');
    const again = await patch(s.id, { at: soon() });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/done/);
  });

  it('reschedule later: the old time passes without a run; a cancelled schedule cannot be rescheduled', { timeout: 30_000 }, async () => {
    const uuid = await w.entry('moved later');
    const s = await w.schedule(uuid, 'publish', 1000);
    const res = await w.api('PATCH', `/api/schedules/${s.id}`, { at: new Date(Date.now() + 60_000).toISOString() });
    expect(res.status, res.text).toBe(200);
    await new Promise((ok) => setTimeout(ok, 2500));
    expect((await w.schedules(uuid))[0].status).toBe('scheduled');
    expect((await w.api('GET', `/api/posts/${uuid}`)).status).toBe(404);
    expect((await w.api('DELETE', `/api/schedules/${s.id}`)).status).toBe(200);
    expect((await w.api('PATCH', `/api/schedules/${s.id}`, { at: new Date(Date.now() + 60_000).toISOString() })).status).toBe(409);
  });

  it('a failure (the entry is gone) marks the schedule failed with its errors, changes nothing and emits schedule.failed', { timeout: 30_000 }, async () => {
    const hook = await w.api('POST', '/api/webhooks', { name: 'failures', url: w.receiver.url, events: ['schedule.failed'], sources: ['api'] });
    expect(hook.status, hook.text).toBe(201);
    Object.assign(w.t.services.webhooks.options, { pollIntervalMs: 100, sweepIntervalMs: 300, sweepGraceMs: 300, queuePrefix: `${w.prefix}wh` });
    await w.t.services.webhooks.start();

    const uuid = await w.entry('doomed');
    const s = await w.schedule(uuid, 'publish', 1000);
    expect((await w.api('DELETE', `/api/posts/${uuid}`)).status).toBe(200); // to the trash
    const failed = await w.settled(uuid, s.id);
    expect(failed.status).toBe('failed');
    expect(failed.errors).toEqual({ schedule: ['Entry not found.'] });
    // Nothing changed: still trashed, never published, no version.
    const row = await w.t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } });
    expect(row.deletedAt).not.toBeNull();
    expect(row.publishedVersionId).toBeNull();
    expect(await w.t.database.prisma.entryVersion.count({ where: { entryId: row.id } })).toBe(0);

    await w.receiver.until((r) => r.length >= 1, 10_000);
    const body = w.receiver.received[0].json;
    expect(body.event).toBe('schedule.failed');
    expect(body.schedule).toMatchObject({ id: s.id, status: 'failed', action: 'publish', uuid });
    // The collection named as every entry event names it, and the entry, beside the schedule.
    expect(body.collection).toEqual({ id: w.c.posts.id, uuid: w.c.posts.uuid, slug: 'posts' });
    expect(body.entry_uuid).toBe(uuid);
    await waitFor(async () => (await w.t.database.prisma.webhookDelivery.count({ where: { status: 'delivered' } })) === 1, 5000);
  });
});
