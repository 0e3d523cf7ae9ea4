import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts, field } from '../helpers/world.ts';
import { openPostgres } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import { openSse, payloadOf, type SseStream } from './sse-client.ts';

/** The error a refused subscription answers with, whether as JSON or as a one-event stream. */
async function refusal(s: SseStream): Promise<{ status: number; code: unknown }> {
  const body = (s.headers.get('content-type') ?? '').startsWith('text/event-stream') ? payloadOf((await s.until('complete'))[0]) : ((await s.json()) as ReturnType<typeof payloadOf>);
  return { status: s.status, code: body.errors?.[0]?.extensions?.code };
}

describe('typed <type>Changed subscriptions, replicas and limits', () => {
  let t: TestApp;
  let p: TestProject;
  let base: string;
  const open: SseStream[] = [];
  const closers: Array<() => Promise<unknown>> = [];
  const sse = async (query: string, headers = p.headers, url = base) => {
    const s = await openSse(url, query, { headers });
    open.push(s);
    return s;
  };
  const write = async (method: string, url: string, body?: unknown) => {
    const r = await t.request({ method, url, headers: p.headers, body });
    expect(r.status).toBeLessThan(300);
    return r.body;
  };

  /** A second replica on the same database, closed after the file. */
  const startReplica = async (): Promise<string> => {
    const config = loadConfig({ LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', WORKER_IN_PROCESS: 'false', AUTH_CACHE_MS: '0' }, { DATABASE_URL: t.databaseUrl });
    const database = openPostgres(t.databaseUrl!, 3);
    const services = await createServices(config, createLogger('silent'), { database, authCache: true });
    const other = await buildServer(services);
    closers.push(() => services.close(), () => other.close());
    return other.listen({ port: 0, host: '127.0.0.1' });
  };

  beforeAll(async () => {
    ({ t, p } = await world({
      app: { env: { LIVE_POLL_MS: '200', LIVE_MAX_PER_TOKEN: '3', LIVE_MAX_SUBSCRIPTIONS: '5' } },
      collections: [posts(field.hidden('internal'))],
    }));
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    for (const c of closers.reverse()) await c();
    // Every stream of this file was aborted above; a socket whose abort has not reached the server
    // yet kept Fastify's close waiting for its keep-alive timeout (the file took 80 s instead of 15).
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('filters by where against the entry after the change, and says when an entry leaves the filter', async () => {
    const s = await sse(`subscription { postChanged(where: { title: { like: "news" } }, state: draft) { event uuid matches entry { title } } }`);
    await write('POST', '/api/posts', { data: { title: 'Other' } });
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'Big news' } });
    const a = payloadOf(await s.next()).data!.postChanged;
    expect(a).toEqual({ event: 'CREATED', uuid, matches: true, entry: { title: 'Big news' } });
    await write('PUT', `/api/posts/${uuid}`, { data: { title: 'Boring' } });
    const b = payloadOf(await s.next()).data!.postChanged;
    expect(b).toEqual({ event: 'UPDATED', uuid, matches: false, entry: null });
    await write('PUT', `/api/posts/${uuid}`, { data: { title: 'Still boring' } });
    await expect(s.next(400)).rejects.toThrow(/timed out/);
  });

  it('state: published shows published copies only', async () => {
    const s = await sse(`subscription { postChanged(state: published) { event matches entry { title } } }`);
    const { uuid } = await write('POST', '/api/posts', { data: { title: 'Draft' } });
    await write('POST', `/api/posts/${uuid}/publish`);
    // The draft-only CREATED matched no published read when it committed: the publish is the first event.
    const e = payloadOf(await s.next()).data!.postChanged;
    expect(e).toEqual({ event: 'PUBLISHED', matches: true, entry: { title: 'Draft' } });
    // The hidden field is not even in the type.
    const bad = await openSse(base, `subscription { postChanged { entry { internal } } }`, { headers: { ...p.headers, accept: 'application/json' } });
    expect(JSON.stringify(await bad.json())).toMatch(/Cannot query field \\"internal\\"/);
    bad.close();
    s.close();
  });

  it('a write through one replica reaches a subscriber on another', async () => {
    const otherBase = await startReplica();
    const s = await sse(`subscription { entryChanged(collection: "posts") { event entry { fields } } }`, p.headers, otherBase);
    await new Promise((r) => setTimeout(r, 100));
    await write('POST', '/api/posts', { data: { title: 'Across replicas' } });
    const e = payloadOf(await s.next()).data!.entryChanged;
    expect(e).toMatchObject({ event: 'CREATED', entry: { fields: { title: 'Across replicas' } } });
    s.close();
  });

  it('resumes on a replica that started after the last event seen: the missed changes come from the outbox', async () => {
    const q = `subscription { postChanged(where: { title: { like: "resume" } }, state: draft, events: [CREATED]) { id event entry { title } } }`;
    // The missed ids straddle 1000: ordered as text (a bug once), 1000 would come before 999.
    await t.database.query(`SELECT setval(pg_get_serial_sequence('outbox_events', 'id'), greatest(997, (SELECT max(id) FROM outbox_events)))`);
    const first = await sse(q);
    await write('POST', '/api/posts', { data: { title: 'resume seen' } });
    const seen = await first.next();
    first.close();
    await write('POST', '/api/posts', { data: { title: 'resume missed 1' } });
    await write('POST', '/api/posts', { data: { title: 'resume missed 2' } });
    await write('POST', '/api/posts', { data: { title: 'not this one' } });
    await write('POST', '/api/posts', { data: { title: 'resume missed 3' } });
    // A replica whose change stream starts now, past every id above: it has none of them in memory.
    const otherBase = await startReplica();
    const again = await openSse(otherBase, q, { headers: p.headers, lastEventId: seen.id });
    open.push(again);
    const titles = async (n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push(payloadOf(await again.next()).data!.postChanged.entry.title);
      return out;
    };
    expect(await titles(3)).toEqual(['resume missed 1', 'resume missed 2', 'resume missed 3']);
    await write('POST', '/api/posts', { data: { title: 'resume live' } });
    expect(await titles(1)).toEqual(['resume live']);
    again.close();
  });

  it('caps subscriptions per token and per replica; a closed stream frees its slot', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const q = `subscription { entryChanged(collection: "posts") { id } }`;
    const mine = [await sse(q), await sse(q), await sse(q)];
    const fourth = await sse(q);
    expect(await refusal(fourth)).toEqual({ status: 429, code: 'RATE_LIMITED' });
    mine[0].close();
    await new Promise((r) => setTimeout(r, 200));
    const again = await sse(q);
    expect(again.headers.get('content-type')).toMatch(/event-stream/);
    const other = await p.tokenWith(['read']);
    await sse(q, other);
    await sse(q, other);
    const overReplica = await sse(q, other);
    expect(await refusal(overReplica)).toEqual({ status: 429, code: 'RATE_LIMITED' });
  });
});
