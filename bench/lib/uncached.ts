/**
 * The read path with every cache off (`READ_CACHE_MB=0 AUTH_CACHE_MS=0`), which is what a read costs
 * when its cache misses (issue 18): its own server on the already seeded database, three rows and
 * their targets against ceilings the caller measured in the same run.
 */
import pg from 'pg';
import { benchServerEnv, freePort, spawnTsx, treeCpuMs, waitHealthy } from './processes.ts';
import { runLoad, warmupSec, type LoadResult } from './load.ts';
import { call, must, postBody, type Api } from './seed.ts';
import { loadRow, ratio, type Row, type Target } from './report.ts';
import { int, ms } from './stats.ts';

export const UNCACHED_ROWS = {
  gqlList: 'cache off: GraphQL list 25 posts+authors',
  restGet: 'cache off: REST get (author hydrated)',
  restFiltered: 'cache off: REST filtered list, concurrency 1',
  gqlListAuthCached: 'read cache off, auth cached: GraphQL list',
  restGetAuthCached: 'read cache off, auth cached: REST get',
};

/** The GraphQL list, exactly. */
export const UNCACHED_GQL_LIST = '{ posts(perPage: 25) { data { uuid title author { name } } } }';
/**
 * `views` between + relation-nested `like` on the author's name, 25 per page with total. Seeded posts
 * have views 0…n-1: the range takes about 70 % of them (500,7500 at 10,000), the `like` 111 of the
 * 200 authors ("Author 1", "Author 10"…), about 3,900 matches in all.
 */
export const filteredList = (posts: number) =>
  `/api/posts?where[views][between]=${Math.floor(posts * 0.05)},${Math.floor(posts * 0.75)}&where[author][name][like]=Author%201&paginate=25`;

export interface UncachedOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  headers: Record<string, string>;
  posts: string[];
  durationSec: number;
  connections: number;
  /** Same-run ceilings: stock Yoga `{ __typename }` req/s and the raw indexed SELECT queries/s. */
  yogaRps: number;
  selectQps: number;
}

/**
 * How many posts the cache-off rows read: the issue measures them over 10,000 posts (200 authors).
 * The harness seeds BENCH_POSTS (2,000) for every scenario; these rows add the rest first.
 * `BENCH_UNCACHED_POSTS` overrides it; quick runs keep what was seeded.
 */
const QUICK = ['1', 'true', 'yes'].includes(process.env.BENCH_QUICK ?? '');
const UNCACHED_POSTS = Number(process.env.BENCH_UNCACHED_POSTS ?? (QUICK ? 0 : 10_000));

/** Published posts numbered from `from` up to `to` (views = number), over the seeded authors, 50 per bulk request, 4 at a time. */
async function topUpPosts(api: Api, from: number, to: number): Promise<void> {
  const authors = (await must<Array<{ uuid: string }>>(api, 'GET', '/api/authors?limit=1000')).map((a) => a.uuid);
  let next = from;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < to) {
        const start = next;
        next = Math.min(to, next + 50);
        const items = Array.from({ length: next - start }, (_, k) => ({ data: postBody(start + k, authors[(start + k) % authors.length]), state: 'published' }));
        await must(api, 'POST', '/api/bulk/posts/entries', { items });
      }
    }),
  );
}

type Load = { durationSec: number; connections: number };
type Scenario = (k: Load, base: string) => Promise<LoadResult>;
interface Measured {
  result: LoadResult;
  /** Server CPU per request: on a shared machine the steadier figure than req/s (BENCHMARKS.md). */
  cpu: string;
}

export async function runUncached(o: UncachedOptions): Promise<{ rows: Row[]; targets: Target[] }> {
  const load: Load = { durationSec: o.durationSec, connections: o.connections };
  const json = { ...o.headers, 'content-type': 'application/json', accept: 'application/json' };
  const gqlList: Scenario = (k, base) => runLoad({ url: `${base}/graphql`, method: 'POST', headers: json, body: JSON.stringify({ query: UNCACHED_GQL_LIST }), ...k });
  const restGet: Scenario = (k, base) =>
    runLoad({ url: base, headers: o.headers, requests: o.posts.slice(0, 200).map((u) => ({ method: 'GET', path: `/api/posts/${u}` })), ...k });
  const measure = async (runs: Scenario[], base: string, pid: number): Promise<Measured[]> => {
    const measured: Measured[] = [];
    for (const run of runs) {
      await run({ ...load, durationSec: warmupSec() }, base);
      const before = treeCpuMs(pid);
      const result = await run(load, base);
      measured.push({ result, cpu: `server CPU ${(((treeCpuMs(pid) - before) * 1000) / Math.max(result.total, 1)).toFixed(0)} µs/req` });
    }
    return measured;
  };

  const off = await withServer(o, 'server (cache off)', { READ_CACHE_MB: '0', AUTH_CACHE_MS: '0' }, async (base, pid) => {
    const api: Api = { base, headers: o.headers };
    const seeded = (await call<{ count: number }>(api, 'GET', '/api/posts?count=1')).body.count;
    if (seeded < UNCACHED_POSTS) await topUpPosts(api, seeded, UNCACHED_POSTS);
    // Statistics of the seeded tables, as any database that has been running a while has them: without
    // them the planner guesses the filtered list's plan from an empty table's.
    const sql = new pg.Client({ connectionString: o.databaseUrl });
    await sql.connect();
    await sql.query('ANALYZE entries, entry_versions, collections, fields').finally(() => sql.end());
    const check = await call<{ errors?: unknown; data?: { posts?: { data: unknown[] } } }>(api, 'POST', '/graphql', { query: UNCACHED_GQL_LIST });
    if (check.status !== 200 || check.body.errors || !check.body.data?.posts?.data.length) throw new Error(`cache-off GraphQL check failed: ${JSON.stringify(check.body).slice(0, 300)}`);
    const count = (await call<{ count: number }>(api, 'GET', '/api/posts?count=1')).body.count;
    const FILTERED_LIST = filteredList(count);
    const filtered = await call<{ meta?: { total: number }; data?: unknown[] }>(api, 'GET', FILTERED_LIST);
    if (filtered.status !== 200 || !filtered.body.data) throw new Error(`cache-off filtered list check failed: ${JSON.stringify(filtered.body).slice(0, 300)}`);
    const restFiltered: Scenario = (k, b) => runLoad({ url: `${b}${FILTERED_LIST}`, headers: o.headers, ...k, connections: 1 });
    return { measured: await measure([gqlList, restGet, restFiltered], base, pid), count, total: filtered.body.meta?.total };
  });
  // What a miss costs in a project under writes: a write drops the project's cached reads, but content
  // commits raise cached authentications rather than drop them (src/auth/content-stamps.ts), so a miss
  // there pays its read statements and no authentication statement. No target: the rows above
  // keep AUTH_CACHE_MS=0.
  const authCached = await withServer(o, 'server (read cache off)', { READ_CACHE_MB: '0' }, (base, pid) => measure([gqlList, restGet], base, pid));

  const { count } = off.result;
  const [g, r, f] = off.result.measured.map((m) => m.result);
  const cpu = off.result.measured.map((m) => m.cpu);
  const [ag, ar] = authCached.result;
  const rows: Row[] = [
    loadRow(UNCACHED_ROWS.gqlList, g, off.rss, { ceiling: ratio(g.rps, o.yogaRps, 'stock Yoga'), note: `READ_CACHE_MB=0 AUTH_CACHE_MS=0; typed schema; ${cpu[0]}` }),
    loadRow(UNCACHED_ROWS.restGet, r, off.rss, { ceiling: ratio(r.rps, o.selectQps, 'raw SELECT'), note: `READ_CACHE_MB=0 AUTH_CACHE_MS=0; ${cpu[1]}` }),
    loadRow(UNCACHED_ROWS.restFiltered, f, off.rss, { note: `READ_CACHE_MB=0 AUTH_CACHE_MS=0; ${int(count)} posts, total ${off.result.total ?? '?'}; ${cpu[2]}` }),
    loadRow(UNCACHED_ROWS.gqlListAuthCached, ag.result, authCached.rss, {
      ceiling: ratio(ag.result.rps, o.yogaRps, 'stock Yoga'),
      note: `READ_CACHE_MB=0 (a miss in a project under writes); ${ag.cpu}`,
    }),
    loadRow(UNCACHED_ROWS.restGetAuthCached, ar.result, authCached.rss, {
      ceiling: ratio(ar.result.rps, o.selectQps, 'raw SELECT'),
      note: `READ_CACHE_MB=0 (a miss in a project under writes); ${ar.cpu}`,
    }),
  ];
  const targets: Target[] = [
    {
      name: 'cache off: GraphQL list of 25 posts with authors ≥ 50 % of stock Yoga { __typename }',
      measured: `${int(g.rps)} req/s vs ${int(o.yogaRps)} = ${((g.rps / o.yogaRps) * 100).toFixed(0)} %`,
      pass: g.errors === 0 && g.rps >= 0.5 * o.yogaRps,
    },
    {
      name: 'cache off: REST get by id ≥ 50 % of the raw indexed SELECT',
      measured: `${int(r.rps)} req/s vs ${int(o.selectQps)} = ${((r.rps / o.selectQps) * 100).toFixed(0)} %`,
      pass: r.errors === 0 && r.rps >= 0.5 * o.selectQps,
    },
    {
      name: 'cache off: REST filtered list p50 < 5 ms at concurrency 1',
      measured: `p50 ${ms(f.p50)} ms over ${int(count)} posts`,
      pass: f.errors === 0 && f.p50 < 5,
    },
  ];
  return { rows, targets };
}

/**
 * Runs `work` against a server of its own on the bench's database, with `env` on top of the bench
 * server's; the server's RSS is taken when the work is done, then it stops.
 */
async function withServer<T>(o: UncachedOptions, name: string, env: Record<string, string>, work: (base: string, pid: number) => Promise<T>): Promise<{ result: T; rss: number }> {
  const port = await freePort();
  const server = spawnTsx(name, 'src/main.ts', { ...benchServerEnv({ databaseUrl: o.databaseUrl, redisUrl: o.redisUrl, prefix: o.prefix, port }), ...env });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(server, `${base}/healthz`);
    const result = await work(base, server.proc.pid!);
    return { result, rss: server.rss() };
  } finally {
    await server.stop();
  }
}
