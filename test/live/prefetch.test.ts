import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';
import { openSse, payloadOf, type SseStream } from './sse-client.ts';

/**
 * The changed entries are read beside the outbox pass (src/live/prefetch.ts) or, for what that read
 * did not cover, after it: either way every subscriber gets exactly its filter's changes, once, in
 * outbox order, each with the values its own commit wrote.
 */
describe('live reads of changed entries beside the outbox pass', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  const open: SseStream[] = [];
  const sse = async (where: string) => {
    const s = await openSse(base, `subscription { postChanged(${where}state: draft, events: [CREATED, UPDATED]) { id event uuid entry { title } } }`, { headers: p.headers });
    open.push(s);
    return s;
  };
  const write = async (method: string, url: string, body?: unknown) => {
    const r = await t.request({ method, url, headers: p.headers, body });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body as { uuid: string };
  };
  /** `n` events of a stream, then nothing more within 300 ms. */
  const take = async (s: SseStream, n: number) => {
    const got: Array<{ id: number; event: string; uuid: string; title: string | null }> = [];
    for (let i = 0; i < n; i++) {
      const e = await s.next(10_000);
      const c = payloadOf(e).data!.postChanged;
      expect(e.id).toBe(c.id);
      got.push({ id: Number(c.id), event: c.event, uuid: c.uuid, title: c.entry?.title ?? null });
    }
    await expect(s.next(300)).rejects.toThrow(/timed out/);
    return got;
  };
  const ascending = (ids: number[]) => ids.every((id, i) => i === 0 || id > ids[i - 1]);

  beforeAll(async () => {
    ({ t, p } = await world({ app: { env: { LIVE_POLL_MS: '200' } }, collections: [posts()] }));
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await t.close();
  });

  it('concurrent writes over three filters: each subscriber gets exactly its own, in id order, with the committed values', async () => {
    const alpha = await sse('where: { title: { like: "alpha" } }, ');
    const bravo = await sse('where: { title: { like: "bravo" } }, ');
    const all = await sse('');
    const titles = Array.from({ length: 24 }, (_, i) => `${i % 2 ? 'alpha' : 'bravo'} ${i}`);
    const made = await Promise.all(titles.map((title) => write('POST', '/api/posts', { data: { title } })));
    const titleOf = new Map(made.map((m, i) => [m.uuid, titles[i]]));
    const everything = await take(all, titles.length);
    expect(ascending(everything.map((e) => e.id))).toBe(true);
    expect(everything.filter((e) => e.event !== 'CREATED' || e.title !== titleOf.get(e.uuid))).toEqual([]);
    for (const [s, word] of [[alpha, 'alpha'], [bravo, 'bravo']] as const) {
      const want = everything.filter((e) => e.title!.startsWith(word));
      expect(await take(s, want.length)).toEqual(want);
    }
  });

  it('an entry updated out of a filter and back: the filter shows only the matching commits, each with its own value', async () => {
    const charlie = await sse('where: { title: { like: "charlie" } }, ');
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'charlie 0' } });
    for (const title of ['delta 1', 'charlie 2', 'charlie 3']) await write('PUT', `/api/posts/${uuid}`, { data: { title } });
    const got = await take(charlie, 4);
    // The update that took it out of the filter is said once, without the entry (`matches: false`).
    expect(got.map((e) => [e.event, e.title])).toEqual([
      ['CREATED', 'charlie 0'],
      ['UPDATED', null],
      ['UPDATED', 'charlie 2'],
      ['UPDATED', 'charlie 3'],
    ]);
    expect(ascending(got.map((e) => e.id))).toBe(true);
  });

  it('a filter first asked for while changes stream in gets exactly what commits after it joined', async () => {
    const echo1 = await sse('where: { title: { like: "echo" } }, ');
    await Promise.all(['echo a', 'foxtrot a'].map((title) => write('POST', '/api/posts', { data: { title } })));
    expect((await take(echo1, 1)).map((e) => e.title)).toEqual(['echo a']);
    const foxtrot = await sse('where: { title: { like: "foxtrot" } }, ');
    await Promise.all(['echo b', 'foxtrot b', 'foxtrot c'].map((title) => write('POST', '/api/posts', { data: { title } })));
    expect((await take(foxtrot, 2)).map((e) => e.title).sort()).toEqual(['foxtrot b', 'foxtrot c']);
    expect((await take(echo1, 1)).map((e) => e.title)).toEqual(['echo b']);
  });
});
