import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorld, type ScheduleWorld } from './helpers.ts';

const SCHEDULE = `mutation ($uuid: ID!, $at: DateTime!, $action: ScheduleAction!) {
  scheduleEntry(collection: "posts", uuid: $uuid, action: $action, at: $at) { id action at status uuid }
}`;
const LIST = `query ($uuid: ID!) { entrySchedules(collection: "posts", uuid: $uuid) { id status action ranAt errors } }`;
const RESCHEDULE = `mutation ($id: ID!, $at: DateTime!) { rescheduleSchedule(id: $id, at: $at) { id status at } }`;
const CANCEL = `mutation ($id: ID!) { cancelSchedule(id: $id) { id status } }`;

describe('schedules through GraphQL', () => {
  let w: ScheduleWorld;
  beforeAll(async () => {
    w = await scheduleWorld();
  });
  afterAll(async () => {
    await w?.closeAll();
  });

  const gql = (query: string, variables: Record<string, unknown>, headers = w.p.headers) => w.t.graphql(query, variables, headers);

  it('scheduleEntry runs at its time; entrySchedules lists it; the same abilities as REST', { timeout: 30_000 }, async () => {
    const uuid = await w.entry('via graphql');
    const at = new Date(Date.now() + 2000).toISOString();
    const res = await gql(SCHEDULE, { uuid, at, action: 'PUBLISH' });
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    const s = res.body.data.scheduleEntry;
    expect(s).toMatchObject({ action: 'PUBLISH', status: 'SCHEDULED', uuid });
    expect(Date.parse(s.at)).toBe(Date.parse(at));

    const denied = await gql(SCHEDULE, { uuid, at, action: 'PUBLISH' }, w.tokens.reader);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const listed = await gql(LIST, { uuid }, w.tokens.reader);
    expect(listed.body.data.entrySchedules.map((x: { id: string }) => x.id)).toEqual([s.id]);

    const done = await w.settled(uuid, s.id);
    expect(done.status).toBe('done');
    expect((await gql(LIST, { uuid })).body.data.entrySchedules[0]).toMatchObject({ status: 'DONE', errors: null });
    expect((await w.api('GET', `/api/posts/${uuid}`)).body.fields.title).toBe('via graphql');
  });

  it('refuses a past time with the REST error class; rescheduleSchedule moves a pending one; cancelSchedule cancels once', { timeout: 30_000 }, async () => {
    const uuid = await w.entry('cancel me');
    const past = await gql(SCHEDULE, { uuid, at: new Date(Date.now() - 60_000).toISOString(), action: 'PUBLISH' });
    expect(past.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const s = (await gql(SCHEDULE, { uuid, at: new Date(Date.now() + 60_000).toISOString(), action: 'UNPUBLISH' })).body.data.scheduleEntry;
    expect((await gql(CANCEL, { id: s.id }, w.tokens.reader)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    const later = new Date(Date.now() + 120_000).toISOString();
    expect((await gql(RESCHEDULE, { id: s.id, at: later }, w.tokens.reader)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await gql(RESCHEDULE, { id: s.id, at: new Date(Date.now() - 1000).toISOString() })).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const moved = await gql(RESCHEDULE, { id: s.id, at: later });
    expect(moved.body.errors, JSON.stringify(moved.body)).toBeUndefined();
    expect(moved.body.data.rescheduleSchedule).toMatchObject({ id: s.id, status: 'SCHEDULED' });
    expect(Date.parse(moved.body.data.rescheduleSchedule.at)).toBe(Date.parse(later));
    expect((await gql(CANCEL, { id: s.id })).body.data.cancelSchedule).toEqual({ id: s.id, status: 'CANCELLED' });
    expect((await gql(RESCHEDULE, { id: s.id, at: later })).body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await gql(CANCEL, { id: s.id })).body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await w.job(s.id)).toBeUndefined();
  });
});
