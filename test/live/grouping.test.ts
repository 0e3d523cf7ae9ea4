import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts, field } from '../helpers/world.ts';
import { openSse, payloadOf, type SseStream } from './sse-client.ts';

/**
 * Subscribers of the same shape share one rendering of each change (src/live/group.ts): these pin
 * that sharing never crosses what makes two subscribers' events differ, and that one slow member
 * does not hold up, or grow the heap for, the others of its group.
 */
describe('live fan-out by subscription shape', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  const open: Array<{ close(): void }> = [];
  const sse = async (query: string, headers = p.headers, variables?: Record<string, unknown>) => {
    const s = await openSse(base, query, { headers, variables });
    expect(s.headers.get('content-type')).toMatch(/event-stream/);
    open.push(s);
    return s;
  };
  const create = async (data: Record<string, unknown>) => {
    const r = await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { data } });
    expect(r.status).toBe(201);
    return r.body.uuid as string;
  };
  const settle = async (groups: number) => {
    for (let i = 0; i < 100 && t.services.live.groups !== groups; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.services.live.groups).toBe(groups);
  };

  beforeAll(async () => {
    ({ t, p } = await world({
      app: { env: { LIVE_POLL_MS: '200', LIVE_MAX_QUEUE_BYTES: String(3 * 1_048_576) } },
      collections: [posts(field.text('body'), field.hidden('note'))],
    }));
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await t.close();
  });

  it('shares a group only between identical operations of tokens with the same abilities; variables select their own matches', async () => {
    const q = `subscription($like: String!) { postChanged(where: { title: { like: $like } }, state: draft) { event matches entry { title } } }`;
    const readerA = await p.tokenWith(['read']);
    const readerB = await p.tokenWith(['read']);
    const a = await sse(q, readerA, { like: 'alpha' });
    const b = await sse(q, readerB, { like: 'alpha' });
    const wildcard = await sse(q, p.headers, { like: 'alpha' });
    const bravo = await sse(q, readerA, { like: 'bravo' });
    await settle(3);
    expect(t.services.live.size).toBe(4);
    await create({ title: 'alpha one' });
    await create({ title: 'bravo one' });
    await create({ title: 'alpha two' });
    for (const s of [a, b, wildcard]) {
      const got = [payloadOf(await s.next()).data!.postChanged, payloadOf(await s.next()).data!.postChanged];
      expect(got).toEqual([
        { event: 'CREATED', matches: true, entry: { title: 'alpha one' } },
        { event: 'CREATED', matches: true, entry: { title: 'alpha two' } },
      ]);
      await expect(s.next(300)).rejects.toThrow(/timed out/);
    }
    expect(payloadOf(await bravo.next()).data!.postChanged).toEqual({ event: 'CREATED', matches: true, entry: { title: 'bravo one' } });
    await expect(bravo.next(300)).rejects.toThrow(/timed out/);
    for (const s of [a, b, wildcard, bravo]) s.close();
    await settle(0);
  });

  it('a commit of several changes reaches every member once each, in outbox order, and a field-scoped member on the same document only in its scope', async () => {
    const q = `subscription { entryChanged(collection: "posts") { event entry { fields } } }`;
    const issued = await t.request({ method: 'POST', url: '/api/project/tokens', headers: p.headers, body: { name: 'titles', abilities: ['read'], collections: ['posts'], fields: { posts: ['title'] } } });
    expect(issued.status).toBe(201);
    const scoped = { 'project-id': p.uuid, authorization: `Bearer ${issued.body.data.token as string}` };
    const a = await sse(q, await p.tokenWith(['read']));
    const b = await sse(q, await p.tokenWith(['read']));
    const titles = await sse(q, scoped);
    await settle(2);
    // One commit, five outbox rows: one pass of the change stream, handed to a group as one batch.
    const items = [1, 2, 3, 4, 5].map((i) => ({ data: { title: `batch ${i}`, body: `body ${i}` } }));
    const r = await t.request({ method: 'POST', url: '/api/bulk/posts/entries', headers: p.headers, body: { items } });
    expect(r.status).toBe(201);
    for (const s of [a, b, titles]) {
      const events = [];
      for (let i = 0; i < 5; i++) events.push(await s.next());
      const ids = events.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(ids).size).toBe(5);
      const fields = events.map((e) => payloadOf(e).data!.entryChanged.entry.fields);
      expect(fields).toEqual(items.map((i) => (s === titles ? { title: i.data.title } : i.data)));
      await expect(s.next(300)).rejects.toThrow(/timed out/);
    }
    for (const s of [a, b, titles]) s.close();
    await settle(0);
  });

  it('a member that leaves does not take its group with it: the others keep receiving, rendered with their own context', async () => {
    const q = `subscription { entryChanged(collection: "posts") { event entry { fields } } }`;
    const first = await p.tokenWith(['read']);
    const second = await p.tokenWith(['read']);
    const a = await sse(q, first);
    const b = await sse(q, second);
    await settle(1);
    await create({ title: 'before' });
    expect(payloadOf(await a.next()).data!.entryChanged.entry.fields.title).toBe('before');
    expect(payloadOf(await b.next()).data!.entryChanged.entry.fields.title).toBe('before');
    // The oldest member (whose renderer the group runs) loses its token.
    const { hashToken } = await import('../../src/auth/tokens.ts');
    await t.database.query(`UPDATE api_tokens SET revoked_at = now() WHERE token_hash = $1`, [hashToken(first.authorization.slice(7))]);
    const end = await a.until('complete', 2000);
    expect(payloadOf(end[0]).errors![0].extensions!.code).toBe('UNAUTHENTICATED');
    await create({ title: 'after' });
    expect(payloadOf(await b.next()).data!.entryChanged.entry.fields.title).toBe('after');
    b.close();
    await settle(0);
  });

  it('a grouped member whose token loses read ends within a second under steady writes; its group keeps receiving', async () => {
    const q = `subscription { entryChanged(collection: "posts", events: [CREATED]) { entry { fields } } }`;
    const losing = await p.tokenWith(['read']);
    const staying = await p.tokenWith(['read']);
    const a = await sse(q, losing);
    const b = await sse(q, staying);
    await settle(1);
    // Every write notifies cms_changes, as a token change does: re-check passes are spaced under
    // such a stream (src/live/hub.ts), and the revocation must still be seen within the second.
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        await create({ title: `steady ${i}` });
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const { hashToken } = await import('../../src/auth/tokens.ts');
    const revokedAt = Date.now();
    await t.database.query(`UPDATE api_tokens SET abilities = ARRAY['create'] WHERE token_hash = $1`, [hashToken(losing.authorization.slice(7))]);
    // The events before it keep the stream busy, so `until`'s own per-event timeout bounds nothing.
    const end = await a.until('complete', 1000);
    const took = Date.now() - revokedAt;
    writing = false;
    await writer;
    const error = end.find((e) => e.data.includes('"errors"'));
    expect(error && payloadOf(error).errors![0].extensions!.code).toBe('FORBIDDEN');
    expect(took).toBeLessThan(1000);
    await create({ title: 'after' });
    let title: unknown;
    for (let i = 0; i < 500 && title !== 'after'; i++) title = payloadOf(await b.next()).data!.entryChanged.entry.fields.title;
    expect(title).toBe('after');
    b.close();
    await settle(0);
  });

  it('a field made visible closes the subscriptions shaped without it; a new one shows it', async () => {
    const q = `subscription { entryChanged(collection: "posts") { entry { fields } } }`;
    const before = await sse(q);
    await settle(1);
    // `note` becomes visible: the project's schema revision moves.
    const collection = await t.request({ method: 'GET', url: '/api/collections/posts', headers: p.headers });
    const note = (collection.body.fields as Array<{ uuid: string; name: string; type: string; label: string }>).find((f) => f.name === 'note')!;
    const put = await t.request({ method: 'PUT', url: `/api/collections/posts/fields/${note.uuid}`, headers: p.headers, body: { type: 'text', name: 'note', label: 'Note', options: { hiddenInAPI: false } } });
    expect(put.status).toBe(200);
    // The subscription validated and shaped under the old model ends; its client reconnects.
    expect((await before.until('complete', 3000)).map((e) => e.event)).toEqual(['complete']);
    await settle(0);
    const after = await sse(q);
    await settle(1);
    await create({ title: 'shown', note: 'now visible' });
    expect(payloadOf(await after.next()).data!.entryChanged.entry.fields).toEqual({ title: 'shown', body: null, note: 'now visible' });
    after.close();
    await settle(0);
  });

  it('a subscriber that stops reading is reset past LIVE_MAX_QUEUE_BYTES while its group keeps receiving', async () => {
    const q = `subscription { entryChanged(collection: "posts", events: [CREATED]) { id entry { fields } } }`;
    const fast = await sse(q);
    const slow = pausedSubscriber(base, q, p.headers);
    open.push(slow);
    await slow.opened;
    await settle(1);
    expect(t.services.live.size).toBe(2);
    // Enough to fill the paused one's socket buffers (a few MB on loopback), then its queue's 3 MB
    // (LIVE_MAX_QUEUE_BYTES), twice over; the reading one never holds that much unread.
    const big = 'x'.repeat(700_000);
    const writes = 30;
    for (let i = 0; i < writes; i++) await create({ title: `big ${i}`, body: big });
    for (let i = 0; i < writes; i++) {
      const e = await fast.next(10_000);
      expect(payloadOf(e).data?.entryChanged.entry.fields.title, e.data.slice(0, 300)).toBe(`big ${i}`);
    }
    // The slow one was ended server-side: it reads what its socket held, then the reset.
    for (let i = 0; i < 100 && t.services.live.size !== 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(t.services.live.size).toBe(1);
    const events = await slow.readAll();
    const kinds = events.map((e) => e.event);
    expect(kinds.slice(-2)).toEqual(['reset', 'complete']);
    const received = events.filter((e) => e.event === 'next').map((e) => Number(e.id));
    expect(received.length).toBeLessThan(writes);
    // What it did receive is in order, without gaps: a prefix of the stream.
    received.forEach((id, i) => i > 0 && expect(id).toBeGreaterThan(received[i - 1]));
    fast.close();
  });
});

/** An SSE client that reads nothing until `readAll`, so the server's writes to it back up. */
function pausedSubscriber(base: string, query: string, headers: Record<string, string>) {
  const body = JSON.stringify({ query });
  let res: http.IncomingMessage | undefined;
  const req = http.request(`${base}/graphql`, {
    method: 'POST',
    agent: false,
    headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': String(Buffer.byteLength(body)) },
  });
  const opened = new Promise<void>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (r) => {
      res = r;
      r.pause();
      resolve();
    });
  });
  req.end(body);
  return {
    opened,
    close: () => req.destroy(),
    async readAll(): Promise<Array<{ id?: string; event: string }>> {
      const r = res!;
      r.setEncoding('utf8');
      let text = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the stream did not end')), 20_000);
        r.on('data', (c: string) => (text += c));
        r.on('end', () => {
          clearTimeout(timer);
          resolve();
        });
        r.resume();
      });
      return text
        .split('\n\n')
        .filter((block) => block.trim() && !block.startsWith(':'))
        .map((block) => {
          const lines = block.split('\n').filter((l) => !l.startsWith(':'));
          return { id: lines.find((l) => l.startsWith('id: '))?.slice(4), event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message' };
        });
    },
  };
}
