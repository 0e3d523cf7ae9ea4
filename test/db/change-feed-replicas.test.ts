import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/db/client.ts';
import type { AppServices } from '../../src/services.ts';
import type { buildServer } from '../../src/http/server.ts';
import { startSecondReplica, startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';

/** The change feed's least time between the starts of two reads of the log (src/db/change-feed.ts). */
const READ_GAP_MS = 20;
/** How long a commit through one replica may take to show on the other here: the feed's latency, with room for a loaded machine. */
const BOUND_MS = 5_000;

async function eventually(check: () => Promise<boolean>, ms = BOUND_MS): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

/**
 * Statements B sends, by name: the change feed's reads of the log (their start times) and its
 * authentications. Wrapped before B's services are made, so the feed's own calls are seen.
 */
function watched(database: Database): { database: Database; logReads: number[]; authentications: () => number } {
  const logReads: number[] = [];
  let authentications = 0;
  const query = database.query;
  database.query = ((sql: string, params?: unknown[], opts?: { name?: string }) => {
    if (opts?.name === 'cms_change_log_read') logReads.push(Date.now());
    if (opts?.name === 'cms_authenticate') authentications++;
    return query.call(database, sql, params, opts);
  }) as typeof query;
  return { database, logReads, authentications: () => authentications };
}

/**
 * Two API replicas on one database, each holding authentications (and the content generations read
 * caches key by) for an hour: B learns of A's commits only from its change feed, which reads the
 * change log when A's hint wakes it (or its poll), never two reads starting less than 20 ms apart.
 */
describe('the change feed across two replicas: hints, the 20 ms read gap, no commit lost', () => {
  let a: TestApp;
  let bServices: AppServices;
  let b: Awaited<ReturnType<typeof buildServer>>;
  let closeB: (() => Promise<void>) | undefined;
  let bWatch: ReturnType<typeof watched>;
  let p: TestProject;

  beforeAll(async () => {
    const env = { AUTH_CACHE_MS: '3600000' };
    a = await startTestApp({ env });
    bWatch = watched(openPostgres(a.databaseUrl!, 3));
    ({ services: bServices, server: b, close: closeB } = await startSecondReplica(a, { env, database: bWatch.database }));
    ({ p } = await world({ app: a, via: 'api', collections: [posts()] }));
  }, 60_000);
  afterAll(async () => {
    await closeB?.();
    await a?.close();
  });

  async function onA(method: string, url: string, body?: unknown) {
    const res = await a.request({ method, url, headers: p.headers, body });
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res;
  }
  async function onB(url: string) {
    const res = await b.inject({ method: 'GET', url, headers: p.headers });
    return { status: res.statusCode, body: JSON.parse(res.body), cache: res.headers['x-cache'] };
  }
  const titlesOnB = async () => ((await onB('/api/posts?limit=1000')).body as Array<{ fields: { title: string } }>).map((e) => e.fields.title);

  it('a commit through A drops B’s cached published read within a bound, and B raises its generations without authenticating again', async () => {
    const uuid = (await onA('POST', '/api/posts', { state: 'published', data: { title: 'First' } })).body.uuid as string;
    expect(await eventually(async () => (await onB(`/api/posts/${uuid}`)).cache === 'HIT'), 'B never cached the read').toBe(true);
    const authenticated = bWatch.authentications();

    await onA('PATCH', `/api/posts/${uuid}`, { data: { title: 'Second' } });
    await onA('POST', `/api/posts/${uuid}/publish`);
    expect(await eventually(async () => (await onB(`/api/posts/${uuid}`)).body.fields.title === 'Second'), 'B kept the read from before the commit').toBe(true);
    // Heard, not asked: the feed raised the generations B holds with the token.
    expect(bWatch.authentications()).toBe(authenticated);
    expect((await onB(`/api/posts/${uuid}`)).cache).toBe('HIT');
  });

  it('a burst of commits through A costs B’s feed reads at least 20 ms apart, fewer than the commits, and B ends with the last of them', async () => {
    const lanes = 4;
    const burst = 15 * lanes;
    const drafts: string[] = [];
    for (let i = 0; i < burst; i += 10) {
      const made = await Promise.all(Array.from({ length: Math.min(10, burst - i) }, (_, j) => onA('POST', '/api/posts', { data: { title: `Burst ${i + j}` } })));
      drafts.push(...made.map((r) => r.body.uuid as string));
    }
    expect(await eventually(async () => (await onB('/api/posts?limit=1000')).cache === 'HIT')).toBe(true);
    const authenticated = bWatch.authentications();
    const from = bWatch.logReads.length;

    // A few writers publishing one after another: a commit (and a hint to B) every few ms for a while.
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let i = lane; i < burst; i += lanes) await onA('POST', `/api/posts/${drafts[i]}/publish`);
      }),
    );
    const all = await eventually(async () => (await titlesOnB()).filter((t) => t.startsWith('Burst ')).length === burst);
    expect(all, 'B never showed every commit of the burst').toBe(true);

    const starts = bWatch.logReads.slice(from);
    expect(starts.length).toBeGreaterThan(0);
    expect(starts.length, `${starts.length} log reads for ${burst} commits`).toBeLessThan(burst);
    // Date.now() is read once by the feed and once here, in the same turn: at most 1 ms apart.
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1], `reads ${i - 1} and ${i}`).toBeGreaterThanOrEqual(READ_GAP_MS - 1);
    expect(bWatch.authentications()).toBe(authenticated);
  });
});
