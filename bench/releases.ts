/**
 * Releases: publishing a release of 100 entries (drafts in two collections), as its route answers
 * it, p50 over several releases. The same-run ceiling is the same work without a release: the same
 * number of drafts published by two bulk updates of 50 with `state: published` (the most a bulk
 * request takes), one after the other. A release adds its own checks, its item bookkeeping and one
 * event, in one transaction instead of two; the target is at most 1.5 × the bulk pair.
 *
 * `npx tsx bench/releases.ts` alone: DATABASE_URL or a fresh database (bench/lib/database.ts).
 */
import { pathToFileURL } from 'node:url';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { benchServerEnv, freePort, spawnTsx, waitHealthy } from './lib/processes.ts';
import { must, type Api } from './lib/seed.ts';
import { cleanRedis } from './lib/redis.ts';
import { percentile } from './lib/stats.ts';
import type { Row, Target } from './lib/report.ts';

export const RELEASE_ROWS = {
  publish: 'release publish, 100 entries in 2 collections',
  bulk: 'ceiling: 2 bulk publishes of 50 (same entries)',
};

const ITEMS = 100;

async function drafts(api: Api, slug: string, n: number, round: number): Promise<string[]> {
  const body = { items: Array.from({ length: n }, (_, i) => ({ data: { title: `r${round}-${i}`, views: i } })) };
  const made = await must<{ data: Array<{ uuid: string }> }>(api, 'POST', `/api/bulk/${slug}/entries`, body);
  return made.data.map((e) => e.uuid);
}

const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

export async function runReleaseBench(o: { databaseUrl: string; redisUrl: string; prefix: string; rounds: number; log?: (s: string) => void }): Promise<{ rows: Row[]; targets: Target[] }> {
  const port = await freePort();
  const server = spawnTsx('server (releases)', 'src/main.ts', benchServerEnv({ databaseUrl: o.databaseUrl, redisUrl: o.redisUrl, prefix: o.prefix, port }));
  const { openPostgres } = await import('../src/db/client.ts');
  const db = openPostgres(o.databaseUrl, 2);
  try {
    const api: Api = { base: `http://127.0.0.1:${port}`, headers: {} };
    await waitHealthy(server, `${api.base}/healthz`);
    api.headers = (await createBenchProject(db, `bench-releases-${Date.now()}`)).headers;
    for (const slug of ['news', 'notes']) {
      await must(api, 'POST', '/api/collections', { name: slug, slug, fields: [{ type: 'text', label: 'Title', name: 'title' }, { type: 'number', label: 'Views', name: 'views' }] });
    }
    const release: number[] = [];
    const bulk: number[] = [];
    // Round 0 warms both paths up and is not counted.
    for (let round = 0; round <= o.rounds; round++) {
      const news = await drafts(api, 'news', ITEMS / 2, round);
      const notes = await drafts(api, 'notes', ITEMS / 2, round);
      const made = await must<{ data: { id: string } }>(api, 'POST', '/api/releases', { title: `bench ${round}` });
      const items = [...news.map((uuid) => ({ collection: 'news', uuid, action: 'publish' })), ...notes.map((uuid) => ({ collection: 'notes', uuid, action: 'publish' }))];
      await must(api, 'POST', `/api/releases/${made.data.id}/items`, { items });
      const r = await timed(() => must(api, 'POST', `/api/releases/${made.data.id}/publish`));

      const news2 = await drafts(api, 'news', ITEMS / 2, round);
      const notes2 = await drafts(api, 'notes', ITEMS / 2, round);
      const b = await timed(async () => {
        await must(api, 'PATCH', '/api/bulk/news/entries', { items: news2.map((uuid) => ({ uuid, state: 'published', data: {} })) });
        await must(api, 'PATCH', '/api/bulk/notes/entries', { items: notes2.map((uuid) => ({ uuid, state: 'published', data: {} })) });
      });
      if (round === 0) continue;
      release.push(r);
      bulk.push(b);
      o.log?.(`round ${round}: release ${r.toFixed(1)} ms, bulk pair ${b.toFixed(1)} ms`);
    }
    const row = (scenario: string, samples: number[], note: string): Row => {
      const s = [...samples].sort((a, b) => a - b);
      return { scenario, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), note: `${s.length} runs; ${note}` };
    };
    const rows = [row(RELEASE_ROWS.publish, release, `POST /api/releases/{id}/publish, ${ITEMS} drafts, one transaction`), row(RELEASE_ROWS.bulk, bulk, `PATCH /api/bulk/{collection}/entries × 2, ${ITEMS} drafts`)];
    const [p, c] = [rows[0].p50!, rows[1].p50!];
    const targets: Target[] = [{ name: 'release publish of 100 entries: p50 ≤ 1.5 × two bulk publishes of 50', measured: `p50 ${p.toFixed(1)} ms vs ${c.toFixed(1)} ms (${(p / c).toFixed(2)} ×)`, pass: p <= 1.5 * c }];
    return { rows, targets };
  } finally {
    await server.stop();
    await db.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { formatTable, formatTargets } = await import('./lib/report.ts');
  const bench = await openBenchDatabase();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-releases-${process.pid}`;
  try {
    const { rows, targets } = await runReleaseBench({ databaseUrl: bench.url, redisUrl, prefix, rounds: Number(process.env.BENCH_RELEASE_ROUNDS ?? 10), log: (s) => process.stderr.write(`${s}\n`) });
    process.stdout.write(`${formatTable(rows)}\n\n${formatTargets(targets)}\n`);
  } finally {
    await cleanRedis(redisUrl, prefix);
    await bench.close();
  }
}
