import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, collection, field } from '../helpers/world.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { COMMITTED_COLUMNS } from '../../src/events/outbox.ts';

/**
 * An outbox event's `committed` row (src/events/outbox.ts) names its columns one by one: a column added
 * to `entries` must join it (or be left out on purpose here), or live readers would render it as null.
 */
describe('committed rows of content events', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    ({ t, p } = await world({ collections: [collection('notes', [field.text('title'), { name: 'pin', type: 'password' }])] }));
  });
  afterAll(() => t.close());

  const LEFT_OUT = ['search_draft', 'search_published'];

  it('hold every column of entries but the full-text vectors, and data without password hashes', async () => {
    const columns = await t.database.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'entries'`,
    );
    expect(columns.map((c) => c.name).sort()).toEqual([...COMMITTED_COLUMNS, 'data', ...LEFT_OUT].sort());

    const res = await t.request({ method: 'POST', url: '/api/notes', headers: p.headers, body: { state: 'published', data: { title: 'T', pin: 'secret-pin' } } });
    expect(res.status, res.text).toBe(201);
    const events = await t.database.query<{ payload: { committed: Record<string, unknown> } }>(
      `SELECT payload FROM outbox_events WHERE entry_uuid = $1::uuid ORDER BY id`,
      [res.body.uuid],
    );
    expect(events).toHaveLength(2);
    for (const { payload } of events) {
      expect(Object.keys(payload.committed).sort()).toEqual([...COMMITTED_COLUMNS, 'data'].sort());
      expect(payload.committed).toMatchObject({ uuid: res.body.uuid, state: 'published', data: { title: 'T' }, published_data: { title: 'T' } });
      expect(payload.committed.data).not.toHaveProperty('pin');
    }
  });
});
