import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSecondReplica } from '../helpers/app.ts';
import { world, posts, type World } from '../helpers/world.ts';
import { openSse, payloadOf, type SseStream } from './sse-client.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Every content event carries the entry's revision (moved by every write of the row, so it follows
 * commit order per entry) and its updated_at, in webhook bodies and live events alike, so a receiver
 * can order an entry's events however they arrive; and the live rules hold across two API replicas
 * on one database.
 */
describe('events carry the entry revision and updated_at', () => {
  let w: World;
  let base: string;
  const open: SseStream[] = [];
  const closers: Array<() => Promise<void>> = [];
  const sse = async (query: string, url = base) => {
    const s = await openSse(url, query, { headers: w.p.headers });
    open.push(s);
    return s;
  };
  const write = async (method: string, url: string, body?: unknown) => {
    const r = await w.api(method, url, body);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body;
  };
  /** The outbox's own record of an entry's events, in commit order (id order), with what each commit wrote. */
  const outboxOf = (uuid: string) =>
    w.t.database.query<{ id: string; event: string; title: string | null; revision: number | null }>(
      `SELECT id::text AS id, event, payload->'committed'->'data'->>'title' AS title, (payload->>'revision')::int AS revision
         FROM outbox_events WHERE entry_uuid = $1::uuid ORDER BY outbox_events.id`,
      [uuid],
    );

  beforeAll(async () => {
    w = await world({
      app: { env: { LIVE_POLL_MS: '200', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } },
      collections: [posts()],
      receiver: true,
    });
    base = await w.t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    for (const c of closers.reverse()) await c();
    w.t.app.server.closeAllConnections();
    await w.close();
  });

  it('webhook bodies: revision and updated_at of the commit, ordering one entry\'s deliveries', async () => {
    const events = ['content.created', 'content.updated', 'content.published', 'content.unpublished', 'content.trashed', 'content.restored', 'content.deleted'];
    await write('POST', '/api/webhooks', { name: 'order', url: w.receiver.url, events, sources: ['api'] });
    // Delivery in this process (no Redis: the in-process runner).
    Object.assign(w.t.services.webhooks.options, { pollIntervalMs: 100 });
    await w.t.services.webhooks.start();
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'v0' } });
    await Promise.all(Array.from({ length: 8 }, (_, i) => write('PUT', `/api/posts/${uuid}`, { data: { title: `v${i + 1}` } })));
    await write('POST', `/api/posts/${uuid}/publish`);
    const [latest] = await w.t.database.query<{ updated_at: Date }>(`SELECT updated_at FROM entries WHERE uuid = $1::uuid`, [uuid]);
    await write('DELETE', `/api/posts/${uuid}`);
    await write('POST', `/api/posts/${uuid}/restore`);
    await write('DELETE', `/api/posts/${uuid}?force=1`);

    const mine = (await w.receiver.until((rs) => rs.filter((r) => r.json.entry_uuid === uuid).length === 13)).filter((r) => r.json.entry_uuid === uuid);
    for (const r of mine) {
      expect(Object.keys(r.json).slice(0, 10)).toEqual(['event', 'project_uuid', 'timestamp', 'delivery_id', 'source', 'collection', 'entry_uuid', 'locale', 'revision', 'updated_at']);
      expect(Number.isInteger(r.json.revision)).toBe(true);
      expect(r.json.updated_at).toMatch(ISO);
    }
    // Sorted by revision, the deliveries are the commits in order (deliveries themselves race).
    const byRevision = [...mine].sort((a, b) => a.json.revision - b.json.revision);
    const revisions = byRevision.map((r) => r.json.revision);
    expect(new Set(revisions).size).toBe(revisions.length);
    const committed = (await outboxOf(uuid)).map((o) => ({ event: o.event, title: o.title }));
    expect(byRevision.map((r) => ({ event: r.json.event, title: r.json.content_entry?.fields?.title ?? null }))).toEqual(committed);
    expect(committed.map((c) => c.event)).toEqual(['content.created', ...Array(8).fill('content.updated'), 'content.published', 'content.trashed', 'content.restored', 'content.deleted']);
    // The publish carries the row as it committed: the entry's updated_at then.
    expect(byRevision[9].json.updated_at).toBe(latest.updated_at.toISOString());
    // The deletion comes after the last write of the row it deleted.
    expect(revisions[12]).toBe(revisions[11] + 1);
  });

  it('subscriptions: each event its commit\'s revision and updated_at, in revision order', async () => {
    const typed = await sse(`subscription { postChanged(state: draft) { id event revision updatedAt entry { title updatedAt } } }`);
    const core = await sse(`subscription { entryChanged(collection: "posts") { id event revision updatedAt } }`);
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'a' } });
    await Promise.all(['b', 'c', 'd', 'e'].map((title) => write('PUT', `/api/posts/${uuid}`, { data: { title } })));
    await write('DELETE', `/api/posts/${uuid}?force=1`);
    const outbox = await outboxOf(uuid);
    const got = [];
    for (let i = 0; i < 6; i++) got.push(payloadOf(await typed.next()).data!.postChanged);
    expect(got.map((e) => e.id)).toEqual(outbox.map((o) => o.id));
    expect(got.map((e) => e.revision)).toEqual(outbox.map((o) => o.revision));
    expect(got.map((e) => e.revision)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(got.map((e) => e.entry?.title ?? null)).toEqual(outbox.map((o) => o.title));
    for (const e of got) expect(e.updatedAt).toMatch(ISO);
    // A live event's updatedAt is the one its entry shows.
    for (const e of got.slice(0, 5)) expect(e.updatedAt).toBe(e.entry.updatedAt);
    const coreGot = [];
    for (let i = 0; i < 6; i++) coreGot.push(payloadOf(await core.next()).data!.entryChanged);
    expect(coreGot.map((e) => [e.id, e.revision, e.updatedAt])).toEqual(got.map((e) => [e.id, e.revision, e.updatedAt]));
  });

  it('two replicas: writes through both, subscribers on both get each committed value once, in commit order', async () => {
    const b = await startSecondReplica(w.t, { env: { LIVE_POLL_MS: '200' } });
    closers.push(b.close);
    const otherBase = await b.server.listen({ port: 0, host: '127.0.0.1' });
    closers.push(async () => b.server.server.closeAllConnections());
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'r0' } });
    const q = `subscription { postChanged(state: draft, events: [UPDATED]) { id uuid revision entry { title } } }`;
    const onA = await sse(q);
    const onB = await sse(q, otherBase);
    // Both streams are in place before the writes (a subscriber sees what commits after it joined).
    await new Promise((r) => setTimeout(r, 300));
    const values = Array.from({ length: 20 }, (_, i) => `r${i + 1}`);
    await Promise.all(
      values.map(async (title, i) => {
        if (i % 2 === 0) return write('PUT', `/api/posts/${uuid}`, { data: { title } });
        const r = await b.server.inject({ method: 'PUT', url: `/api/posts/${uuid}`, headers: { ...w.p.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ data: { title } }) });
        expect(r.statusCode, r.body).toBe(200);
      }),
    );
    const committed = (await outboxOf(uuid)).filter((o) => o.event === 'content.updated');
    expect(committed).toHaveLength(20);
    expect(new Set(committed.map((c) => c.title))).toEqual(new Set(values));
    for (const s of [onA, onB]) {
      const got = [];
      for (let i = 0; i < 20; i++) {
        const e = payloadOf(await s.next(10_000)).data!.postChanged;
        expect(e.uuid).toBe(uuid);
        got.push({ id: e.id, revision: e.revision, title: e.entry.title });
      }
      expect(got).toEqual(committed.map((c) => ({ id: c.id, revision: c.revision, title: c.title })));
      for (let i = 1; i < got.length; i++) expect(got[i].revision).toBeGreaterThan(got[i - 1].revision);
      await expect(s.next(300)).rejects.toThrow(/timed out/);
    }
  });
});
