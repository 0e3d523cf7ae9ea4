import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client, type ExecutionResult } from 'graphql-sse';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';

/** Collects one subscription's results through a graphql-sse client until `count` arrived or it ends. */
function collect(client: Client<true>, query: string, count: number, extensions?: Record<string, unknown>): { results: ExecutionResult[]; done: Promise<unknown>; stop: () => void } {
  const results: ExecutionResult[] = [];
  let stop = () => {};
  const done = new Promise((resolve, reject) => {
    stop = client.subscribe({ query, extensions }, {
      next: (r) => {
        results.push(r as ExecutionResult);
        if (results.length >= count) resolve(results);
      },
      error: reject,
      complete: () => resolve(results),
    });
  });
  // A stopped subscription rejects with an abort nobody awaits.
  done.catch(() => {});
  return { results, done, stop: () => stop() };
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
}

describe('GraphQL over SSE, single-connection mode (/graphql/stream)', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  const clients: Array<Client<true>> = [];
  const client = (headers: Record<string, string>) => {
    // A copy: the client keeps its stream token in the headers object it is given.
    const c = createClient({ singleConnection: true, url: `${base}/graphql/stream`, headers: { ...headers }, retryAttempts: 0 });
    clients.push(c);
    return c;
  };
  const write = async (title: string) => {
    const r = await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { data: { title } } });
    expect(r.status).toBe(201);
    return (r.body as { uuid: string }).uuid;
  };

  beforeAll(async () => {
    ({ t, p } = await world({ app: { env: { LIVE_POLL_MS: '200', LIVE_MAX_PER_TOKEN: '2' } }, collections: [posts()] }));
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const c of clients) c.dispose();
    await t.close();
  });

  it('multiplexes typed and core subscriptions over one stream, filtered as in distinct mode', async () => {
    const c = client(p.headers);
    const typed = collect(c, `subscription { postChanged(where: { title: { like: "news" } }, state: draft) { event uuid entry { title } } }`, 1);
    const core = collect(c, `subscription { entryChanged(collection: "posts") { event entry { fields } } }`, 2);
    await until(() => t.services.live.size >= 2);
    await write('Other');
    const uuid = await write('Big news');
    await typed.done;
    await core.done;
    expect(typed.results[0].data).toEqual({ postChanged: { event: 'CREATED', uuid, entry: { title: 'Big news' } } });
    expect(core.results.map((r) => (r.data as { entryChanged: { entry: { fields: { title: string } } } }).entryChanged.entry.fields.title)).toEqual(['Other', 'Big news']);
    typed.stop();
    core.stop();
  });

  it('resumes with extensions.lastEventId: exactly the missed changes, then live ones', async () => {
    const q = `subscription { entryChanged(collection: "posts") { id entry { fields } } }`;
    await until(() => t.services.live.size === 0);
    const first = client(p.headers);
    const seen = collect(first, q, 1);
    await until(() => t.services.live.size >= 1);
    await write('Seen');
    await seen.done;
    seen.stop();
    first.dispose();
    await until(() => t.services.live.size === 0);
    const lastId = (seen.results[0].data as { entryChanged: { id: string } }).entryChanged.id;
    await write('Missed 1');
    await write('Missed 2');
    const again = collect(client(p.headers), q, 3, { lastEventId: lastId });
    await until(() => again.results.length >= 2);
    await write('Live');
    await again.done;
    const titles = again.results.map((r) => (r.data as { entryChanged: { entry: { fields: { title: string } } } }).entryChanged.entry.fields.title);
    expect(titles).toEqual(['Missed 1', 'Missed 2', 'Live']);
    again.stop();
    // Past the window (or not an id of this server), the operation's only result is the reset.
    const reset = collect(client(p.headers), q, 1, { lastEventId: 'nonsense' });
    await reset.done;
    expect(reset.results[0].errors?.[0]).toMatchObject({ extensions: { code: 'RESET' } });
    await until(() => t.services.live.size === 0);
  });

  it('refuses a client without valid credentials before reserving a stream', async () => {
    const res = await fetch(`${base}/graphql/stream`, { method: 'PUT', headers: { 'project-id': p.headers['project-id'], authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('needs read, and applies the per-token cap', async () => {
    const writer = await p.tokenWith(['create']);
    const denied = await fetch(`${base}/graphql/stream`, { method: 'PUT', headers: writer });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe('FORBIDDEN');

    const reader = await p.tokenWith(['read']);
    const c = client(reader);
    const q = `subscription { entryChanged(collection: "posts") { event } }`;
    const a = collect(c, q, 1);
    const b = collect(c, q, 1);
    await until(() => t.services.live.size >= 2);
    // Refused (the hub's LIVE_MAX_PER_TOKEN) with the status /graphql answers: 429, RATE_LIMITED.
    const third = collect(c, q, 1);
    await expect(third.done).rejects.toThrow(/429/);
    expect(t.services.live.size).toBe(2);
    a.stop();
    b.stop();
  });
});
