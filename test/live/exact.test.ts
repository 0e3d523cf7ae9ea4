import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts, collection, field } from '../helpers/world.ts';
import { openSse, payloadOf, type SseStream } from './sse-client.ts';

/**
 * Events carry the committed state: each shows what its own commit wrote, however late it is
 * rendered, and a published view hears of published content only.
 */
describe('live events show what each commit wrote', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  const open: SseStream[] = [];
  const sse = async (query: string) => {
    const s = await openSse(base, query, { headers: p.headers });
    open.push(s);
    return s;
  };
  const write = async (method: string, url: string, body?: unknown) => {
    const r = await t.request({ method, url, headers: p.headers, body });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body;
  };
  const nextOf = (s: SseStream, name: string) => async () => payloadOf(await s.next(10_000)).data![name];

  beforeAll(async () => {
    ({ t, p } = await world({ app: { env: { LIVE_POLL_MS: '200' } }, collections: [posts(), collection('accounts', [field.text('name'), { name: 'secret', type: 'password' }])] }));
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await t.close();
  });

  it('20 concurrent updates of one entry: each committed value once, in commit order', async () => {
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'v0' } });
    const typed = await sse(`subscription { postChanged(state: draft, events: [UPDATED]) { id uuid revision entry { title } } }`);
    // The core subscription's entry is the resource each writer rendered inside its own commit: the
    // commit order of the values, to compare the typed one against.
    const core = await sse(`subscription { entryChanged(collection: "posts", events: [UPDATED]) { id entry { fields } } }`);
    const values = Array.from({ length: 20 }, (_, i) => `v${i + 1}`);
    await Promise.all(values.map((title) => write('PUT', `/api/posts/${uuid}`, { data: { title } })));
    const nextTyped = nextOf(typed, 'postChanged');
    const nextCore = nextOf(core, 'entryChanged');
    const got: Array<{ id: string; title: string }> = [];
    const committed: Array<{ id: string; title: string }> = [];
    const revisions: number[] = [];
    for (let i = 0; i < values.length; i++) {
      const e = await nextTyped();
      expect(e.uuid).toBe(uuid);
      got.push({ id: e.id, title: e.entry.title });
      revisions.push(e.revision);
      const c = await nextCore();
      committed.push({ id: c.id, title: c.entry.fields.title });
    }
    expect(got).toEqual(committed);
    expect(new Set(got.map((g) => g.title))).toEqual(new Set(values));
    // Commit order as the database recorded it: each update's own row (written by its commit), in outbox id order.
    const rows = await t.database.query<{ id: string; title: string; revision: number }>(
      `SELECT id::text AS id, payload->'committed'->'data'->>'title' AS title, (payload->'committed'->>'revision')::int AS revision
         FROM outbox_events WHERE entry_uuid = $1::uuid AND event = 'content.updated' ORDER BY outbox_events.id`,
      [uuid],
    );
    expect(got).toEqual(rows.map((r) => ({ id: r.id, title: r.title })));
    expect(revisions).toEqual(rows.map((r) => r.revision));
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    const final = await write('GET', `/api/posts/${uuid}?state=draft`);
    expect(got[got.length - 1].title).toBe(final.fields.title);
    await expect(typed.next(300)).rejects.toThrow(/timed out/);
  });

  it('a published view gets publishes, unpublishes, deletions and restores of published content, never a draft save', async () => {
    const q = (state: string) => `subscription { postChanged(state: ${state}) { event uuid matches entry { title } } }`;
    const published = await sse(q('published'));
    const draft = await sse(q('draft'));
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'One' } });
    await write('POST', `/api/posts/${uuid}/publish`);
    await write('PUT', `/api/posts/${uuid}`, { data: { title: 'Two' } });
    await write('POST', `/api/posts/${uuid}/unpublish`);
    await write('POST', `/api/posts/${uuid}/publish`);
    await write('PUT', `/api/posts/${uuid}`, { data: { title: 'Three' } });
    await write('DELETE', `/api/posts/${uuid}`);
    await write('POST', `/api/posts/${uuid}/restore`);
    await write('DELETE', `/api/posts/${uuid}?force=1`);
    // A draft-only entry trashed and deleted: nothing a published view ever showed.
    const other = await write('POST', '/api/posts', { data: { title: 'Never published' } });
    await write('DELETE', `/api/posts/${other.uuid}`);
    // ... and one deleted for good, straight away and from the trash.
    const gone = await write('POST', '/api/posts', { data: { title: 'Never published either' } });
    await write('DELETE', `/api/posts/${gone.uuid}?force=1`);
    await write('DELETE', `/api/posts/${other.uuid}?force=1`);
    await write('POST', '/api/posts', { data: { title: 'Fence' }, state: 'published' });

    const nextPublished = nextOf(published, 'postChanged');
    const seen = [];
    for (;;) {
      const e = await nextPublished();
      if (e.entry?.title === 'Fence') break;
      seen.push(e);
    }
    const at = (event: string, matches: boolean, title?: string) => ({ event, uuid, matches, entry: title ? { title } : null });
    expect(seen).toEqual([
      at('PUBLISHED', true, 'One'),
      at('UNPUBLISHED', false),
      at('PUBLISHED', true, 'Two'),
      at('TRASHED', false),
      at('RESTORED', true, 'Two'),
      at('DELETED', false),
    ]);

    // The draft view sees every save, each with its own values.
    const nextDraft = nextOf(draft, 'postChanged');
    const drafts = [];
    for (let i = 0; i < 9; i++) {
      const e = await nextDraft();
      drafts.push([e.event, e.entry?.title ?? null]);
    }
    expect(drafts).toEqual([
      ['CREATED', 'One'],
      ['PUBLISHED', 'One'],
      ['UPDATED', 'Two'],
      ['UNPUBLISHED', 'Two'],
      ['PUBLISHED', 'Two'],
      ['UPDATED', 'Three'],
      ['TRASHED', null],
      ['RESTORED', 'Three'],
      ['DELETED', null],
    ]);
  });

  it('the committed row an event records leaves password hashes out', async () => {
    const { uuid } = await write('POST', '/api/accounts', { data: { name: 'Ann', secret: 'correct horse battery' } });
    const rows = await t.database.query<{ committed: { data: Record<string, unknown> } }>(`SELECT payload->'committed' AS committed FROM outbox_events WHERE entry_uuid = $1`, [uuid]);
    expect(rows).toHaveLength(1);
    expect(rows[0].committed.data).toEqual({ name: 'Ann' });
  });
});
