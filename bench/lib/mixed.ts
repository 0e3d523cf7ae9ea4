/**
 * The mixed scenario of issue 18: 90 % published reads (get and list, REST and GraphQL) and 10 %
 * writes (draft saves, publishes, bulk creates of drafts) over several collections of one project,
 * against a server with its caches on. Reports throughput beside the same reads without the writes,
 * and the read caches' hit ratio from the server's own counters (/metrics, REST and GraphQL).
 */
import type { AutocannonRequest } from 'autocannon';
import { benchServerEnv, freePort, spawnChild, spawnTsx, treeCpuMs, waitHealthy, type Child } from './processes.ts';
import { backendCpu, backendCpuDelta } from './pg-cpu.ts';
import { runLoad, type LoadResult } from './load.ts';
import { call, must, type Api } from './seed.ts';
import { loadRow, type Row, type Target } from './report.ts';
import { int } from './stats.ts';

export const MIXED_ROWS = {
  readOnly: 'mixed: published reads only (baseline)',
  writesOnly: 'mixed: the writes only',
  mixed: 'mixed: 90 % reads + 10 % writes',
};

export interface MixedOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  headers: Record<string, string>;
  posts: string[];
  durationSec: number;
  connections: number;
  /** Entries seeded per extra collection (pages, products). */
  perCollection: number;
}

interface Counters {
  hits: number;
  misses: number;
}

/**
 * The read cache counters of the server's /metrics: REST, GraphQL (a server without the GraphQL
 * series counts zero there) and both.
 */
async function cacheCounters(base: string): Promise<Record<'rest' | 'graphql' | 'all', Counters>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string, result: string) => Number(new RegExp(`^${name}\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const rest = { hits: value('cms_read_cache_requests_total', 'hit'), misses: value('cms_read_cache_requests_total', 'miss') };
  const graphql = { hits: value('cms_graphql_read_cache_requests_total', 'hit'), misses: value('cms_graphql_read_cache_requests_total', 'miss') };
  return { rest, graphql, all: { hits: rest.hits + graphql.hits, misses: rest.misses + graphql.misses } };
}

const hitRatio = (a: Counters, b: Counters) => {
  const hits = b.hits - a.hits;
  const total = hits + b.misses - a.misses;
  return total ? hits / total : 0;
};

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

async function bulkPublished(api: Api, slug: string, n: number, data: (i: number) => Record<string, unknown>): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i += 50) {
    const items = Array.from({ length: Math.min(50, n - i) }, (_, k) => ({ data: data(i + k), state: 'published' }));
    out.push(...(await must<{ data: Array<{ uuid: string }> }>(api, 'POST', `/api/bulk/${slug}/entries`, { items })).data.map((e) => e.uuid));
  }
  return out;
}

/**
 * One cycle of 100 requests, sent in order by every connection: slots 9, 19, … 99 are the writes
 * (6 draft saves, 2 publishes, 2 bulk creates of 10 drafts), the rest reads spread over the three
 * collections. `reads`: each write slot reads instead (a REST get of a post); `writes`: every slot
 * is one of the ten writes. Which entry a
 * request names comes from a counter shared by all connections, so concurrent connections read and
 * write different entries (as editors do) instead of queueing on one row's lock.
 */
function cycle(api: Api, ids: Record<'posts' | 'pages' | 'products', string[]>, mode: 'reads' | 'mixed' | 'writes'): AutocannonRequest[] {
  const headers = { ...api.headers, 'content-type': 'application/json', accept: 'application/json' };
  const get = (path: string): AutocannonRequest => ({ method: 'GET', path, headers: api.headers });
  const gql = (query: string, variables?: Record<string, unknown>): AutocannonRequest => ({ method: 'POST', path: '/graphql', headers, body: JSON.stringify({ query, variables }) });
  const pick = (list: string[], n: number) => list[(n * 7) % list.length];
  const reads: Array<(n: number) => AutocannonRequest> = [
    (n) => get(`/api/posts/${pick(ids.posts, n)}`),
    (n) => get(`/api/pages/${pick(ids.pages, n)}`),
    (n) => get(`/api/products/${pick(ids.products, n)}`),
    (n) => get(`/api/posts?paginate=25&page=${1 + (n % 4)}`),
    () => get('/api/pages?paginate=25'),
    () => get('/api/products?paginate=25'),
    (n) => gql('query($u: ID!) { post(uuid: $u) { uuid title author { name } } }', { u: pick(ids.posts, n) }),
    (n) => gql('query($u: ID!) { page(uuid: $u) { uuid title } }', { u: pick(ids.pages, n) }),
    () => gql('{ posts(perPage: 25) { data { uuid title author { name } } } }'),
    () => gql('{ products(perPage: 25) { data { uuid name price } } }'),
  ];
  const writes: Array<(n: number) => AutocannonRequest> = [
    (n) => ({ method: 'PATCH', path: `/api/posts/${pick(ids.posts, n)}`, headers, body: JSON.stringify({ data: { title: `Draft ${n}` } }) }),
    (n) => ({ method: 'PATCH', path: `/api/pages/${pick(ids.pages, n)}`, headers, body: JSON.stringify({ data: { title: `Draft ${n}` } }) }),
    (n) => ({ method: 'POST', path: `/api/products/${pick(ids.products, n)}/publish`, headers }),
    (n) => ({ method: 'PATCH', path: `/api/products/${pick(ids.products, n)}`, headers, body: JSON.stringify({ data: { price: n } }) }),
    (n) => ({ method: 'POST', path: '/api/bulk/pages/entries', headers, body: JSON.stringify({ items: Array.from({ length: 10 }, (_, i) => ({ data: { title: `Import ${n}-${i}` } })) }) }),
    (n) => ({ method: 'PATCH', path: `/api/posts/${pick(ids.posts, n + 3)}`, headers, body: JSON.stringify({ data: { views: n } }) }),
    (n) => ({ method: 'POST', path: `/api/pages/${pick(ids.pages, n)}/publish`, headers }),
    (n) => ({ method: 'PATCH', path: `/api/pages/${pick(ids.pages, n + 3)}`, headers, body: JSON.stringify({ data: { title: `Draft ${n}` } }) }),
    (n) => ({ method: 'POST', path: '/api/bulk/products/entries', headers, body: JSON.stringify({ items: Array.from({ length: 10 }, (_, i) => ({ data: { name: `Import ${n}-${i}`, price: i } })) }) }),
    (n) => ({ method: 'PATCH', path: `/api/products/${pick(ids.products, n + 3)}`, headers, body: JSON.stringify({ data: { name: `Draft ${n}` } }) }),
  ];
  let seq = 0;
  return Array.from({ length: 100 }, (_, n) => {
    const make =
      mode === 'writes' ? writes[n % 10] : n % 10 !== 9 ? reads[(n - Math.floor(n / 10)) % reads.length] : mode === 'reads' ? reads[0] : writes[Math.floor(n / 10)];
    // setupRequest must keep what autocannon filled in (host, port, defaults), and every request
    // needs its own headers object: autocannon writes Content-Length into it.
    const fresh = (r: AutocannonRequest): AutocannonRequest => ({ ...r, headers: { ...r.headers } });
    return { ...fresh(make(n)), setupRequest: (req) => ({ ...req, ...fresh(make(seq++)) }) };
  });
}

/**
 * Server and PostgreSQL CPU per request of one phase: on this shared 2-core machine the stable
 * figure, where req/s moves with whatever else runs.
 */
interface Phase {
  result: LoadResult;
  serverUs: number;
  dbUs: number | null;
}

const cpuNote = (p: Phase) => `server CPU ${int(p.serverUs)} µs/req${p.dbUs === null ? '' : `, PostgreSQL ${int(p.dbUs)} µs/req`}`;

/**
 * `BENCH_MIXED_PHASES` (comma-separated `reads`, `mixed`, `writes`; default all three) runs some
 * phases only, e.g. `writes` to profile the writes (`BENCH_CPU_PROF=<dir>` starts the server under
 * `node --cpu-prof`; not with BENCH_SERVER_DIR).
 */
export async function runMixed(o: MixedOptions): Promise<{ rows: Row[]; targets: Target[] }> {
  const port = await freePort();
  const env = benchServerEnv({ databaseUrl: o.databaseUrl, redisUrl: o.redisUrl, prefix: o.prefix, port });
  const profDir = process.env.BENCH_CPU_PROF;
  const server: Child = profDir
    ? spawnChild('server (mixed)', process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--import', 'tsx', 'src/main.ts'], env)
    : spawnTsx('server (mixed)', 'src/main.ts', env);
  const phases = new Set((process.env.BENCH_MIXED_PHASES ?? 'reads,mixed,writes').split(','));
  const pgCpu = await backendCpu(o.databaseUrl);
  try {
    const api: Api = { base: `http://127.0.0.1:${port}`, headers: o.headers };
    await waitHealthy(server, `${api.base}/healthz`);
    for (const [name, slug, fields] of [
      ['Pages', 'pages', [{ type: 'text', label: 'Title', name: 'title' }, { type: 'longtext', label: 'Body', name: 'body' }]],
      ['Products', 'products', [{ type: 'text', label: 'Name', name: 'name' }, { type: 'number', label: 'Price', name: 'price' }]],
    ] as const) {
      if ((await call(api, 'GET', `/api/collections/${slug}`)).status === 404) await must(api, 'POST', '/api/collections', { name, slug, fields });
    }
    const ids = {
      posts: o.posts.slice(0, 100),
      pages: await bulkPublished(api, 'pages', o.perCollection, (i) => ({ title: `Page ${i}`, body: `Body of page ${i}. `.repeat(10) })),
      products: await bulkPublished(api, 'products', o.perCollection, (i) => ({ name: `Product ${i}`, price: i })),
    };
    const load = { url: api.base, durationSec: o.durationSec, connections: o.connections };
    const skipped: Phase = { result: { rps: 0, p50: 0, p95: 0, p99: 0, errors: 0, total: 0, statuses: {} }, serverUs: 0, dbUs: null };
    const phase = async (name: string, requests: AutocannonRequest[]): Promise<Phase> => {
      if (!phases.has(name)) return skipped;
      const cpu0 = treeCpuMs(server.proc.pid!);
      const db0 = await pgCpu.read();
      const result = await runLoad({ ...load, requests });
      const n = Math.max(result.total, 1);
      const db = backendCpuDelta(db0, await pgCpu.read());
      return { result, serverUs: ((treeCpuMs(server.proc.pid!) - cpu0) * 1000) / n, dbUs: db === null ? null : (db * 1000) / n };
    };
    const readOnly = cycle(api, ids, 'reads');
    const mixed = cycle(api, ids, 'mixed');
    // Warm-up until a pass of the reads is all hits: the reads-only baseline is meant warm, and on a
    // loaded machine one second does not reach every key, which left cold misses in the baseline.
    const warm = phases.has('reads') || phases.has('mixed') ? readOnly : cycle(api, ids, 'writes');
    for (let pass = 0; pass < 5; pass++) {
      const before = await cacheCounters(api.base);
      await runLoad({ ...load, durationSec: 1, requests: warm });
      if (warm !== readOnly || hitRatio(before.all, (await cacheCounters(api.base)).all) >= 0.99) break;
    }
    const c0 = await cacheCounters(api.base);
    const readsPhase = await phase('reads', readOnly);
    const c1 = await cacheCounters(api.base);
    const mixPhase = await phase('mixed', mixed);
    const c2 = await cacheCounters(api.base);
    // What the writes cost on their own: with reads at the reads-only rate and writes at this one,
    // a server whose misses cost nothing would serve 1 / (0.9 / reads + 0.1 / writes) of the mix.
    const writesPhase = await phase('writes', cycle(api, ids, 'writes'));
    const [base, mix, writesOnly] = [readsPhase.result, mixPhase.result, writesPhase.result];
    const bound = 1 / (0.9 / Math.max(base.rps, 0.001) + 0.1 / Math.max(writesOnly.rps, 0.001));
    const baseRatio = hitRatio(c0.all, c1.all);
    const mixRatio = hitRatio(c1.all, c2.all);
    const split = `REST ${pct(hitRatio(c1.rest, c2.rest))}, GraphQL ${pct(hitRatio(c1.graphql, c2.graphql))}`;
    const share = mix.rps / Math.max(base.rps, 0.001);
    const rows: Row[] = [
      loadRow(MIXED_ROWS.readOnly, base, server.rss(), { note: `hit ratio ${pct(baseRatio)}; posts, pages, products; REST and GraphQL get and list; ${cpuNote(readsPhase)}` }),
      loadRow(MIXED_ROWS.writesOnly, writesOnly, server.rss(), { note: `the ten writes of the cycle, nothing else; ${cpuNote(writesPhase)}` }),
      loadRow(MIXED_ROWS.mixed, mix, server.rss(), {
        ceiling: `${share.toFixed(2)} × reads only; ${(mix.rps / bound).toFixed(2)} × the bound the writes set (${int(bound)} req/s)`,
        note: `hit ratio ${pct(mixRatio)} (${split}); writes: 6 draft saves, 2 publishes, 2 bulk creates of 10 drafts per 100 requests; ${cpuNote(mixPhase)}`,
      }),
    ];
    const targets: Target[] = [
      {
        name: 'mixed 90 % reads / 10 % writes: read cache hit ratio ≥ 80 % and throughput ≥ 50 % of reads only',
        measured: `hit ratio ${pct(mixRatio)} (reads only ${pct(baseRatio)}); ${int(mix.rps)} req/s vs ${int(base.rps)} = ${pct(share)} (writes alone allow at most ${pct(bound / Math.max(base.rps, 0.001))})`,
        pass: mix.errors === 0 && mixRatio >= 0.8 && share >= 0.5,
      },
    ];
    return { rows, targets };
  } finally {
    await server.stop();
    await pgCpu.close();
  }
}
