import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorld, type ScheduleWorld } from './helpers.ts';

describe('schedules without Redis (embedded PGlite: the table is the queue)', () => {
  let w: ScheduleWorld;
  beforeAll(async () => {
    w = await scheduleWorld({ embedded: true });
  });
  afterAll(async () => {
    await w?.closeAll();
  });

  it('runs a schedule at its time and a cancelled one never', { timeout: 30_000 }, async () => {
    expect(w.t.services.schedules!.mode).toBe('local');
    const uuid = await w.entry('embedded');
    const other = await w.entry('cancelled');
    const s = await w.schedule(uuid, 'publish', 1500);
    const c = await w.schedule(other, 'publish', 1500);
    expect((await w.api('DELETE', `/api/schedules/${c.id}`)).status).toBe(200);
    const done = await w.settled(uuid, s.id);
    expect(done.status).toBe('done');
    expect(Date.parse(done.ran_at) - Date.parse(s.at)).toBeLessThan(5000);
    expect((await w.api('GET', `/api/posts/${uuid}`)).body.fields.title).toBe('embedded');
    expect((await w.api('GET', `/api/posts/${other}`)).status).toBe(404);
  });
});
