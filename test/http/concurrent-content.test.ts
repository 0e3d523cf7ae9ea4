import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRace, N, raceWorld, type Hold, type Race, type RaceWorld } from './race-world.ts';

/**
 * N identical concurrent writes on one entry (entries, trash, versions) answer as the same requests
 * sent one after another would: one success and 404/409/422 for the rest where a request changes
 * the entry once, every one where each is a change of its own or idempotent; one event per change.
 */

let w: RaceWorld;
beforeAll(async () => {
  w = await raceWorld();
});
afterAll(() => w?.t.close());

const races: Race[] = [
  {
    family: 'entries',
    name: 'DELETE /api/{collection}/{uuid}?force=1',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await w.entry();
      return { fire: () => w.c.del('posts', uuid, '?force=1'), hold: w.entryRow(uuid), events: () => w.eventCount(uuid, 'content.deleted') };
    },
  },
  {
    family: 'entries',
    name: 'DELETE /api/{collection}/{uuid} (to the trash)',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await w.entry();
      return {
        fire: () => w.c.del('posts', uuid),
        hold: w.entryRow(uuid),
        events: () => w.eventCount(uuid, 'content.trashed'),
        // deleted_at is written once: the time the event carries is the row's.
        after: async () => {
          const [row] = await w.t.database.query<{ deleted_at: Date }>('SELECT deleted_at FROM entries WHERE uuid = $1', [uuid]);
          const [event] = await w.t.database.query<{ created_at: Date }>("SELECT created_at FROM outbox_events WHERE entry_uuid = $1 AND event = 'content.trashed'", [uuid]);
          expect(Math.abs(row.deleted_at.getTime() - event.created_at.getTime())).toBeLessThan(1000);
        },
      };
    },
  },
  {
    family: 'entries',
    name: 'POST /api/{collection} with a unique value',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const code = `code-${Math.random().toString(36).slice(2)}`;
      const events = async () =>
        (await w.t.database.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox_events WHERE event = 'content.created' AND payload -> 'content_entry' -> 'fields' ->> 'code' = $1", [code]))[0].n;
      return { fire: () => w.req('POST', '/api/codes', { data: { code } }), hold: w.writeScope('codes'), events };
    },
  },
  {
    family: 'entries',
    name: 'POST /api/{collection} of a singleton',
    outcome: 'one',
    setup: async () => ({
      fire: () => w.req('POST', '/api/home', { data: { headline: 'only one' } }),
      hold: w.writeScope('home'),
      after: async () => expect((await w.t.database.query("SELECT 1 FROM entries e JOIN collections k ON k.id = e.collection_id WHERE k.slug = 'home' AND k.project_id = $1", [w.c.p.id])).length).toBe(1),
    }),
  },
  {
    family: 'entries',
    name: 'DELETE /api/bulk/{collection}/entries (each entry trashed once)',
    outcome: 'all',
    events: 2,
    setup: async () => {
      const uuids = [await w.entry(), await w.entry()];
      const events = async () => (await w.eventCount(uuids[0], 'content.trashed')) + (await w.eventCount(uuids[1], 'content.trashed'));
      return { fire: () => w.req('DELETE', '/api/bulk/posts/entries', { uuids }), hold: w.entryRows(uuids), events };
    },
  },
  {
    family: 'entries',
    name: 'POST /api/{collection}/{uuid}/link-translation',
    outcome: 'all',
    setup: async () => {
      const en = await w.entry();
      const fr = await w.entry({ locale: 'fr' });
      return { fire: () => w.req('POST', `/api/posts/${en}/link-translation`, { translation_entry_uuid: fr }), hold: w.entryRow(en) };
    },
  },
  {
    family: 'trash',
    name: 'POST /api/{collection}/{uuid}/restore',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await w.trashed();
      return { fire: () => w.req('POST', `/api/posts/${uuid}/restore`), hold: w.entryRow(uuid), events: () => w.eventCount(uuid, 'content.restored') };
    },
  },
  {
    family: 'trash',
    name: 'DELETE /api/{collection}/{uuid}?force=1 of a trashed entry',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await w.trashed();
      return { fire: () => w.c.del('posts', uuid, '?force=1'), hold: w.entryRow(uuid), events: () => w.eventCount(uuid, 'content.deleted') };
    },
  },
  {
    family: 'trash',
    name: 'DELETE /api/{collection}/trash (emptying is idempotent; each entry deleted once)',
    outcome: 'all',
    events: 2,
    setup: async () => {
      const slug = await w.collection();
      const uuids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const made = await w.req('POST', `/api/${slug}`, { data: { title: `t${i}` } });
        uuids.push(made.body.uuid);
        expect((await w.req('DELETE', `/api/${slug}/${made.body.uuid}`)).status).toBe(200);
      }
      const events = async () => (await w.eventCount(uuids[0], 'content.deleted')) + (await w.eventCount(uuids[1], 'content.deleted'));
      return { fire: () => w.req('DELETE', `/api/${slug}/trash`), hold: w.entryRows(uuids), events };
    },
  },
  {
    family: 'versions',
    name: 'POST /api/{collection}/{uuid}/unpublish (idempotent; one change)',
    outcome: 'all',
    events: 1,
    setup: async () => {
      const uuid = await w.entry({ state: 'published' });
      return { fire: () => w.req('POST', `/api/posts/${uuid}/unpublish`), hold: w.entryRow(uuid), events: () => w.eventCount(uuid, 'content.unpublished') };
    },
  },
  {
    family: 'versions',
    name: 'POST /api/{collection}/{uuid}/publish (a version each)',
    outcome: 'all',
    events: N,
    setup: async () => {
      const uuid = await w.entry();
      return { fire: () => w.req('POST', `/api/posts/${uuid}/publish`), hold: w.entryRow(uuid), events: () => w.eventCount(uuid, 'content.published') };
    },
  },
  {
    family: 'versions',
    name: 'POST /api/{collection}/{uuid}/versions/1/revert (a version each)',
    outcome: 'all',
    events: N + 1,
    setup: async () => {
      const uuid = await w.entry({ state: 'published' });
      return { fire: () => w.req('POST', `/api/posts/${uuid}/versions/1/revert`), hold: w.entryRow(uuid), events: () => w.eventCount(uuid, 'content.published') };
    },
  },
  {
    family: 'versions',
    name: 'PATCH /api/{collection}/{uuid}/versions/1',
    outcome: 'all',
    setup: async () => {
      const uuid = await w.entry({ state: 'published' });
      const hold: Hold = ['SELECT 1 FROM entry_versions v JOIN entries e ON e.id = v.entry_id WHERE e.uuid = $1 FOR UPDATE OF v', [uuid]];
      return { fire: () => w.req('PATCH', `/api/posts/${uuid}/versions/1`, { label: 'race' }), hold };
    },
  },
];

describe('N identical concurrent entry writes answer as if sent one after another', () => {
  it.each(races.map((r) => [`${r.family}: ${r.name}`, r] as const))('%s', (_label, r) => expectRace(w, r));
});
