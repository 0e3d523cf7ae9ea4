import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type AppServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import { createClient, type Client, type ExecutionResult } from 'graphql-sse';
import { collection, field, posts, world, type World } from '../helpers/world.ts';
import { entry, release } from '../releases/helpers.ts';
import { publishRelease } from '../../src/releases/operations/publish.ts';
import { openSse, payloadOf, type SseEvent, type SseStream } from './sse-client.ts';

const SUB = `subscription { releaseChanged { id event release { id status errors items { collection uuid action version } } } }`;
const POSTS = `subscription { entryChanged(collection: "posts") { id event uuid } }`;
const PAGES = `subscription { entryChanged(collection: "pages") { id event uuid } }`;

interface ReleaseEventData {
  id: string;
  event: string;
  release: { id: string; status: string; errors: Record<string, string[]> | null; items: Array<{ collection: string; uuid: string; version: number | null }> };
}
const releaseOf = (e: SseEvent): ReleaseEventData => payloadOf(e).data!.releaseChanged;

/** Collects one subscription's results through a graphql-sse client until `count` arrived. */
function collect(client: Client<boolean>, query: string, count: number, extensions?: Record<string, unknown>) {
  const results: ExecutionResult[] = [];
  let stop = () => {};
  const done = new Promise<ExecutionResult[]>((resolve, reject) => {
    stop = client.subscribe({ query, extensions }, {
      next: (r) => {
        results.push(r as ExecutionResult);
        if (results.length >= count) resolve(results);
      },
      error: reject,
      complete: () => resolve(results),
    });
  });
  done.catch(() => {});
  return { results, done, stop: () => stop() };
}

/**
 * Release events on live subscriptions (`releaseChanged`): fed by the outbox like content events, so
 * a release's item events and its `release.published` come from one commit; resume, the three
 * transports, and who may follow them.
 */
describe('release events on live subscriptions', () => {
  let w: World;
  let base: string;
  /** A second API replica on the same database. */
  let b: { services: AppServices; server: Awaited<ReturnType<typeof buildServer>>; base: string; dataDir: string };
  const open: SseStream[] = [];
  const clients: Array<Client<boolean>> = [];
  const sse = async (query: string, opts: Parameters<typeof openSse>[2] = {}) => {
    const s = await openSse(base, query, { headers: w.p.headers, ...opts });
    open.push(s);
    return s;
  };
  const client = (singleConnection: boolean, headers = w.p.headers) => {
    const c = createClient({ singleConnection, url: `${base}/graphql/stream`, headers: { ...headers }, retryAttempts: 0 });
    clients.push(c);
    return c;
  };
  // Throws when the condition never holds, so a subscription that was never registered fails the test
  // instead of letting it pass on events that could not have arrived anyway.
  const until = async (ok: () => boolean, timeoutMs = 5000) => {
    for (const end = Date.now() + timeoutMs; !ok(); ) {
      if (Date.now() > end) throw new Error('timed out waiting for the live hub');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const subscribers = (n: number) => until(() => w.t.services.live.size >= n);
  const schedule = async (id: string) => {
    const r = await w.api('POST', `/api/releases/${id}/schedule`, { publish_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(r.status, r.text).toBe(200);
  };
  const lastOutboxId = async (event: string) =>
    String((await w.t.database.prisma.outboxEvent.aggregate({ where: { event }, _max: { id: true } }))._max.id);

  beforeAll(async () => {
    w = await world({
      app: { env: { LIVE_POLL_MS: '200' } },
      project: { name: 'Live releases' },
      collections: [posts(), collection('pages', [field.text('heading')])],
      tokens: { writer: ['create', 'update'] },
    });
    base = await w.t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    for (const s of open) s.close();
    for (const c of clients) c.dispose();
    if (b) {
      await b.server.close();
      await b.services.close();
      await rm(b.dataDir, { recursive: true, force: true });
    }
    // Every stream of this file was aborted above; a socket whose abort has not reached the server
    // yet would keep Fastify's close waiting for its keep-alive timeout (over a minute).
    w.t.app.server.closeAllConnections();
    await w.close();
  });

  // First in the file: the replica's stream has not started yet, so this backlog is read from the outbox.
  it('resumes from before the replica\'s first subscription, reading the outbox', async () => {
    const first = await release(w, [], 'Before');
    await schedule(first.id);
    const anchor = await lastOutboxId('release.scheduled');
    const second = await release(w, [], 'Also before');
    await schedule(second.id);
    const s = await sse(SUB, { lastEventId: anchor });
    const e = await s.next(5000);
    expect(e.id).toBe(releaseOf(e).id);
    expect(releaseOf(e)).toMatchObject({ event: 'SCHEDULED', release: { id: second.id, status: 'SCHEDULED' } });
    s.close();
  });

  it('delivers a release publish whole: each collection\'s item events and release.published, from one commit', async () => {
    const post = await entry(w, 'posts', { title: 'p' });
    const page = await entry(w, 'pages', { title: 'g', heading: 'h' });
    const r = await release(w, [
      { collection: 'posts', uuid: post, action: 'publish' },
      { collection: 'pages', uuid: page, action: 'publish' },
    ]);
    const rel = await sse(SUB);
    const postSub = await sse(POSTS);
    const pageSub = await sse(PAGES);
    // The other transports: graphql-sse's single-connection mode multiplexing both kinds, and its distinct mode.
    const multiplexed = client(true);
    const mux = collect(multiplexed, SUB, 1);
    const muxPosts = collect(multiplexed, POSTS, 1);
    const distinct = collect(client(false), SUB, 1);
    await subscribers(6);

    expect((await w.api('POST', `/api/releases/${r.id}/publish`)).status).toBe(200);
    const published = releaseOf(await rel.next(5000));
    const postEvent = payloadOf(await postSub.next(5000)).data!.entryChanged;
    const pageEvent = payloadOf(await pageSub.next(5000)).data!.entryChanged;
    expect(published).toMatchObject({
      event: 'PUBLISHED',
      release: { id: r.id, status: 'PUBLISHED', errors: null, items: [{ collection: 'posts', uuid: post, version: 1 }, { collection: 'pages', uuid: page, version: 1 }] },
    });
    expect(postEvent).toMatchObject({ event: 'PUBLISHED', uuid: post });
    expect(pageEvent).toMatchObject({ event: 'PUBLISHED', uuid: page });
    // One commit: the item events and the release event are consecutive outbox rows.
    expect([Number(postEvent.id), Number(pageEvent.id), Number(published.id)]).toEqual([Number(postEvent.id), Number(postEvent.id) + 1, Number(postEvent.id) + 2]);
    const [muxRelease] = await mux.done;
    const [muxPost] = await muxPosts.done;
    const [distinctRelease] = await distinct.done;
    expect(muxRelease.data).toEqual({ releaseChanged: published });
    expect(distinctRelease.data).toEqual({ releaseChanged: published });
    expect(muxPost.data).toEqual({ entryChanged: postEvent });
    for (const s of [rel, postSub, pageSub]) s.close();
    mux.stop();
    muxPosts.stop();
    distinct.stop();
  });

  it('delivers release.scheduled and release.failed, filtered by `events`, and resumes after a reconnect', async () => {
    await until(() => w.t.services.live.size === 0);
    const onlyFailed = await sse(`subscription { releaseChanged(events: [FAILED]) { id event release { id } } }`);
    const all = await sse(SUB);
    await subscribers(2);
    const post = await entry(w, 'posts', { title: 'stays draft' });
    const gone = await entry(w, 'pages', { title: 'deleted' });
    const r = await release(w, [
      { collection: 'posts', uuid: post, action: 'publish' },
      { collection: 'pages', uuid: gone, action: 'publish' },
    ]);
    await schedule(r.id);
    const scheduled = releaseOf(await all.next(5000));
    expect(scheduled).toMatchObject({ event: 'SCHEDULED', release: { id: r.id, status: 'SCHEDULED' } });
    all.close();
    await until(() => w.t.services.live.size === 1);

    // Missed while disconnected: the scheduler's publish fails (an item's entry is gone).
    expect((await w.api('DELETE', `/api/pages/${gone}`)).status).toBe(200);
    const outcome = await publishRelease(w.t.services, { projectId: w.p.id, releaseId: r.id, actor: { kind: 'system', name: 'scheduler' } });
    expect(outcome.ok).toBe(false);
    const failed = releaseOf(await onlyFailed.next(5000));
    expect(failed).toMatchObject({ event: 'FAILED', release: { id: r.id } });

    const resumed = await sse(SUB, { lastEventId: scheduled.id });
    const missed = releaseOf(await resumed.next(5000));
    expect(missed).toMatchObject({ id: failed.id, event: 'FAILED', release: { id: r.id, status: 'FAILED', errors: { 'items.1.uuid': [expect.any(String)] } } });
    // Then live ones, nothing repeated.
    const next = await release(w, [], 'After');
    await schedule(next.id);
    expect(releaseOf(await resumed.next(5000))).toMatchObject({ event: 'SCHEDULED', release: { id: next.id } });

    // The single-connection mode resumes through extensions.lastEventId.
    const again = collect(client(true), SUB, 1, { lastEventId: scheduled.id });
    const [replayed] = await again.done;
    expect(replayed.data).toEqual({ releaseChanged: missed });
    again.stop();
    onlyFailed.close();
    resumed.close();
  });

  it('reaches subscribers of every replica once each, whichever replica wrote it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cms-test-replica-'));
    const config = loadConfig(
      { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', AUTH_CACHE_MS: '0', LIVE_POLL_MS: '200' },
      { DATABASE_URL: w.t.databaseUrl, DATA_DIR: dataDir },
    );
    const services = await createServices(config, createLogger('silent'), { database: openPostgres(w.t.databaseUrl!, 3) });
    const server = await buildServer(services);
    b = { services, server, dataDir, base: await server.listen({ port: 0, host: '127.0.0.1' }) };
    await until(() => w.t.services.live.size === 0);
    const onA = await sse(SUB);
    const onB = await openSse(b.base, SUB, { headers: w.p.headers });
    open.push(onB);
    await until(() => w.t.services.live.size === 1 && services.live.size === 1);

    const post = await entry(w, 'posts', { title: 'everywhere' });
    const r = await release(w, [{ collection: 'posts', uuid: post, action: 'publish' }]);
    expect((await w.api('POST', `/api/releases/${r.id}/publish`)).status).toBe(200);
    // Written through B this time; the event after the publish must be this one on both (no repeat).
    const next = await release(w, [], 'From B');
    const scheduled = await server.inject({
      method: 'POST',
      url: `/api/releases/${next.id}/schedule`,
      headers: { ...w.p.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ publish_at: new Date(Date.now() + 3_600_000).toISOString() }),
    });
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    for (const s of [onA, onB]) {
      expect(releaseOf(await s.next(5000))).toMatchObject({ event: 'PUBLISHED', release: { id: r.id } });
      expect(releaseOf(await s.next(5000))).toMatchObject({ event: 'SCHEDULED', release: { id: next.id } });
      s.close();
    }
    await until(() => w.t.services.live.size === 0 && services.live.size === 0);
  });

  it('refuses a token without `read`, on every transport; a token limited to collections has no releaseChanged to ask for', async () => {
    const scoped = await w.api('POST', '/api/project/tokens', { name: 'posts only', abilities: ['read'], collections: ['posts'] });
    expect(scoped.status, scoped.text).toBe(201);
    // The field is left out of a collection-limited token's typed schema (releases name entries of
    // every collection): its operation fails validation, answered as any unknown field is.
    const cases = [
      { headers: w.tokens.writer, code: 'FORBIDDEN', sseStatus: 403, status: 403 },
      { headers: { 'project-id': w.p.uuid, authorization: `Bearer ${scoped.body.data.token}` }, code: 'GRAPHQL_VALIDATION_FAILED', sseStatus: 200, status: 400 },
    ];
    const codeOf = (body: unknown) => (body as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code;
    for (const c of cases) {
      const s = await sse(SUB, { headers: c.headers });
      expect(s.status).toBe(c.sseStatus);
      // Refused before the stream starts: the error is the stream's one event.
      expect(codeOf(payloadOf(await s.next(5000)))).toBe(c.code);
      s.close();
      expect(w.t.services.live.size).toBe(0);
      const stream = await w.t.app.inject({ method: 'POST', url: '/graphql/stream', headers: { ...c.headers, accept: 'text/event-stream', 'content-type': 'application/json' }, payload: JSON.stringify({ query: SUB }) });
      expect(stream.statusCode).toBe(c.status);
      expect(codeOf(JSON.parse(stream.body))).toBe(c.code);
    }
    // Single-connection mode: reserving a stream already needs `read`; the scoped token gets its stream but not the operation.
    await until(() => w.t.services.live.size === 0);
    const scopedClient = client(true, cases[1].headers);
    const refused = collect(scopedClient, SUB, 1);
    await expect(refused.done).rejects.toThrow(/400/);
    scopedClient.dispose();
    expect(w.t.services.live.size).toBe(0);
  });

  it('shows a release-bound preview token its own release only', async () => {
    const mine = await release(w, [], 'Previewed');
    const other = await release(w, [], 'Not previewed');
    const issued = await w.api('POST', '/api/preview-tokens', { expires_in: 600, release: mine.id });
    expect(issued.status, issued.text).toBe(201);
    const s = await sse(SUB, { headers: { 'project-id': w.p.uuid, authorization: `Bearer ${issued.body.data.token}` } });
    await subscribers(1);
    await schedule(other.id);
    await schedule(mine.id);
    expect(releaseOf(await s.next(5000)).release.id).toBe(mine.id);
    s.close();
  });

});
