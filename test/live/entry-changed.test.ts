import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts, field } from '../helpers/world.ts';
import { openSse, payloadOf, type SseStream } from './sse-client.ts';

const SUB = `subscription { entryChanged(collection: "posts") { id event uuid locale entry { uuid fields } } }`;

describe('entryChanged over Server-Sent Events', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  const open: SseStream[] = [];
  const sse = async (query = SUB, opts: Parameters<typeof openSse>[2] = {}) => {
    const s = await openSse(base, query, { headers: p.headers, ...opts });
    open.push(s);
    return s;
  };
  const create = async (title: string, extra: Record<string, unknown> = {}) => {
    const r = await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { data: { title, internal: 'S3cretInternal', ...extra } } });
    expect(r.status).toBe(201);
    return r.body.uuid as string;
  };

  beforeAll(async () => {
    ({ t, p } = await world({ app: { env: { LIVE_HEARTBEAT_MS: '200', LIVE_POLL_MS: '200' } }, collections: [posts(field.hidden('internal'))] }));
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await t.close();
  });

  it('streams committed changes in commit order, with outbox ids and without hidden fields', async () => {
    const s = await sse();
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.headers.get('content-encoding')).toBeNull();
    const uuid = await create('First');
    await t.request({ method: 'PUT', url: `/api/posts/${uuid}`, headers: p.headers, body: { data: { title: 'Second' } } });
    const a = await s.next();
    const b = await s.next();
    expect(a.event).toBe('next');
    expect(payloadOf(a).data!.entryChanged).toMatchObject({ event: 'CREATED', uuid, entry: { fields: { title: 'First' } } });
    expect(payloadOf(b).data!.entryChanged).toMatchObject({ event: 'UPDATED', uuid, entry: { fields: { title: 'Second' } } });
    expect(Number(b.id)).toBeGreaterThan(Number(a.id));
    expect(payloadOf(a).data!.entryChanged.id).toBe(a.id);
    expect(a.data + b.data).not.toContain('S3cretInternal');
    expect(a.data).not.toContain('internal');
  });

  it('filters by event', async () => {
    const s = await sse(`subscription { entryChanged(collection: "posts", events: [PUBLISHED]) { event entry { fields } } }`);
    await create('Draft only');
    await create('Published', {});
    const uuid = await create('To publish');
    await t.request({ method: 'POST', url: `/api/posts/${uuid}/publish`, headers: p.headers });
    const e = await s.next();
    expect(payloadOf(e).data!.entryChanged).toMatchObject({ event: 'PUBLISHED', entry: { fields: { title: 'To publish' } } });
  });

  it('resumes from Last-Event-ID with exactly the missed changes', async () => {
    const s = await sse();
    await create('Seen');
    const seen = await s.next();
    s.close();
    const missed = [await create('Missed 1'), await create('Missed 2')];
    const again = await sse(SUB, { lastEventId: seen.id });
    const got = [await again.next(), await again.next()];
    expect(got.map((e) => payloadOf(e).data!.entryChanged.uuid)).toEqual(missed);
    const live = await create('Live after resume');
    const e = await again.next();
    expect(payloadOf(e).data!.entryChanged.uuid).toBe(live);
    await expect(again.next(300)).rejects.toThrow(/timed out/);
  });

  it('answers a reset when Last-Event-ID is past the resume window or unknown', async () => {
    const s = await sse();
    await create('Old');
    const old = await s.next();
    await t.database.query(`UPDATE outbox_events SET created_at = now() - interval '2 days' WHERE id = $1`, [Number(old.id)]);
    const late = await sse(SUB, { lastEventId: old.id });
    const events = await late.until('complete');
    expect(events.map((e) => e.event)).toEqual(['reset', 'complete']);
    expect(JSON.parse(events[0].data).reason).toMatch(/resume window/);
    const bogus = await sse(SUB, { lastEventId: 'nonsense' });
    expect((await bogus.until('complete')).map((e) => e.event)).toEqual(['reset', 'complete']);
  });

  it('sends heartbeats', async () => {
    const s = await sse();
    await new Promise((r) => setTimeout(r, 700));
    expect(s.comments).toBeGreaterThanOrEqual(3);
  });

  it('needs read; an unknown collection is a 404 only for readers', async () => {
    const writer = await p.tokenWith(['create']);
    const denied = await openSse(base, SUB, { headers: writer });
    const body = denied.ended() || denied.headers.get('content-type')?.startsWith('text/event-stream') ? payloadOf((await denied.until('complete'))[0]) : await denied.json();
    expect(JSON.stringify(body)).toContain('FORBIDDEN');
    const missing = await sse(`subscription { entryChanged(collection: "nope") { id } }`);
    const m = missing.headers.get('content-type')?.startsWith('text/event-stream') ? payloadOf((await missing.until('complete'))[0]) : await missing.json();
    expect(JSON.stringify(m)).toContain('NOT_FOUND');
  });

  it('ends a subscription within a second when its token is revoked or loses read', async () => {
    const revoked = await p.tokenWith(['read']);
    const narrowed = await p.tokenWith(['read', 'create']);
    const a = await openSse(base, SUB, { headers: revoked });
    const b = await openSse(base, SUB, { headers: narrowed });
    open.push(a, b);
    await new Promise((r) => setTimeout(r, 100));
    const hash = (h: Record<string, string>) => h.authorization.slice(7);
    const { hashToken } = await import('../../src/auth/tokens.ts');
    await t.database.query(`UPDATE api_tokens SET revoked_at = now() WHERE token_hash = $1`, [hashToken(hash(revoked))]);
    await t.database.query(`UPDATE api_tokens SET abilities = ARRAY['create'] WHERE token_hash = $1`, [hashToken(hash(narrowed))]);
    const endA = await a.until('complete', 1000);
    const endB = await b.until('complete', 1000);
    expect(payloadOf(endA[0]).errors![0].extensions!.code).toBe('UNAUTHENTICATED');
    expect(payloadOf(endB[0]).errors![0].extensions!.code).toBe('FORBIDDEN');
  });

  it('closes subscriptions when the content model changes, and a resumed one shows only what is visible now', async () => {
    const s = await sse();
    await create('Visible title');
    const first = await s.next();
    expect(payloadOf(first).data!.entryChanged.entry.fields).toMatchObject({ title: 'Visible title' });
    // Hide `title` through the API (it bumps the project's schema revision).
    const collection = await t.request({ method: 'GET', url: '/api/collections/posts', headers: p.headers });
    const title = (collection.body.fields as Array<{ uuid: string; name: string }>).find((f) => f.name === 'title')!;
    const hidden = await t.request({ method: 'PUT', url: `/api/collections/posts/fields/${title.uuid}`, headers: p.headers, body: { type: 'text', label: 'Title', name: 'title', options: { hiddenInAPI: true } } });
    expect(hidden.status).toBe(200);
    // Closed (not reset) within the token/schema check's delay: the client resumes and misses nothing.
    const ended = await s.until('complete', 3000);
    expect(ended.map((e) => e.event)).toEqual(['complete']);
    await create('After the change');
    const resumed = await sse(SUB, { lastEventId: first.id });
    const missed = await resumed.next();
    expect(payloadOf(missed).data!.entryChanged.event).toBe('CREATED');
    expect(missed.data).not.toContain('After the change');
    expect(payloadOf(missed).data!.entryChanged.entry.fields).not.toHaveProperty('title');
  });

  // Last: the drain closes this app's live hub.
  it('drain on shutdown completes open streams and refuses new subscriptions', async () => {
    const s = await sse();
    await new Promise((r) => setTimeout(r, 100));
    t.app.beginDrain();
    expect((await s.until('complete', 1000)).map((e) => e.event)).toEqual(['complete']);
    const late = await sse();
    const body = late.headers.get('content-type')?.startsWith('text/event-stream') ? payloadOf((await late.until('complete'))[0]) : await late.json();
    expect(JSON.stringify(body)).toContain('SERVICE_UNAVAILABLE');
  });
});
