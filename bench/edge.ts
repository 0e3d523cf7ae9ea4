/**
 * Published reads through Varnish (deploy/varnish.vcl) beside the same reads from the API directly, in
 * one run: a delivery token's REST gets of the seeded posts, with its own API server (EDGE_PURGE=varnish)
 * and a varnishd in front of it, the two loads alternated twice so machine noise falls on both.
 * Runs alone with `npx tsx bench/edge.ts` (a database and posts of its own) or as part of `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchServerEnv, freePort, spawnTsx, waitHealthy } from './lib/processes.ts';
import { runLoad, warmupSec, type LoadResult } from './lib/load.ts';
import { must, type Api } from './lib/seed.ts';
import { formatTable, formatTargets, loadRow, type Row, type Target } from './lib/report.ts';
import { int, ms } from './lib/stats.ts';

export const EDGE_ROWS = {
  direct: 'delivery token: REST get, API directly',
  varnish: 'delivery token: REST get through Varnish',
};

export interface EdgeOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  /** Headers of a `*` token of the seeded project (issues the delivery token). */
  headers: Record<string, string>;
  posts: string[];
  durationSec: number;
  connections: number;
}

const VARNISHD = ['/usr/sbin/varnishd', '/usr/bin/varnishd'].find((p) => existsSync(p));

export async function runEdgeBench(o: EdgeOptions): Promise<{ rows: Row[]; targets: Target[] }> {
  if (!VARNISHD) {
    const note = 'skipped: varnishd missing (apt-get install varnish varnish-modules)';
    return { rows: [{ scenario: EDGE_ROWS.direct, note }, { scenario: EDGE_ROWS.varnish, note }], targets: [] };
  }
  const port = await freePort();
  const varnishPort = await freePort();
  const server = spawnTsx('server (edge)', 'src/main.ts', {
    ...benchServerEnv({ databaseUrl: o.databaseUrl, redisUrl: o.redisUrl, prefix: o.prefix, port }),
    EDGE_PURGE: 'varnish',
    VARNISH_PURGE_URLS: `http://127.0.0.1:${varnishPort}`,
  });
  const workdir = await mkdtemp(join(tmpdir(), 'cms-bench-varnish-'));
  let varnish: ReturnType<typeof spawn> | undefined;
  try {
    const base = `http://127.0.0.1:${port}`;
    const edge = `http://127.0.0.1:${varnishPort}`;
    await waitHealthy(server, `${base}/healthz`);
    const vcl = (await readFile(new URL('../deploy/varnish.vcl', import.meta.url), 'utf8')).replace('.host = "proxy";', '.host = "127.0.0.1";').replace('.port = "4000";', `.port = "${port}";`);
    await writeFile(join(workdir, 'bench.vcl'), vcl);
    varnish = spawn(VARNISHD, ['-F', '-j', 'none', '-a', `127.0.0.1:${varnishPort}`, '-f', join(workdir, 'bench.vcl'), '-n', join(workdir, 'n'), '-s', 'malloc,256m'], { stdio: 'ignore' });
    for (let i = 0; !(await fetch(`${edge}/healthz`).then((r) => r.ok, () => false)); i++) {
      if (i > 400) throw new Error('varnishd did not start');
      await new Promise((r) => setTimeout(r, 25));
    }
    const api: Api = { base, headers: o.headers };
    const issued = await must<{ data: { token: string } }>(api, 'POST', '/api/project/tokens', { name: 'bench delivery', abilities: ['read'], delivery: true });
    const headers = { 'project-id': o.headers['project-id'], authorization: `Bearer ${issued.data.token}` };
    const requests = o.posts.slice(0, 200).map((u) => ({ method: 'GET' as const, path: `/api/posts/${u}` }));
    const load = (url: string, durationSec: number) => runLoad({ url, headers, requests, durationSec, connections: o.connections });
    await load(base, warmupSec());
    await load(edge, warmupSec());
    const runs: Record<'direct' | 'varnish', LoadResult[]> = { direct: [], varnish: [] };
    for (let round = 0; round < 2; round++) {
      runs.direct.push(await load(base, o.durationSec / 2));
      runs.varnish.push(await load(edge, o.durationSec / 2));
    }
    const best = (list: LoadResult[]) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
    const range = (list: LoadResult[]) => `${int(Math.min(...list.map((r) => r.rps)))}-${int(Math.max(...list.map((r) => r.rps)))} req/s`;
    const d = best(runs.direct);
    const v = best(runs.varnish);
    const rows: Row[] = [
      loadRow(EDGE_ROWS.direct, d, server.rss(), { note: `best of 2 alternated runs (${range(runs.direct)}); API read cache warm` }),
      loadRow(EDGE_ROWS.varnish, v, 0, { ceiling: `${(v.rps / d.rps).toFixed(2)} × API directly`, note: `best of 2 alternated runs (${range(runs.varnish)}); every answer from Varnish after the warm-up` }),
    ];
    const targets: Target[] = [
      {
        name: 'published reads through Varnish faster than from the API directly (req/s and p50)',
        measured: `${int(v.rps)} vs ${int(d.rps)} req/s, p50 ${ms(v.p50)} vs ${ms(d.p50)}`,
        pass: v.errors === 0 && d.errors === 0 && v.rps > d.rps && v.p50 <= d.p50,
      },
    ];
    return { rows, targets };
  } finally {
    varnish?.kill('SIGTERM');
    await server.stop();
    await rm(workdir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { openBenchDatabase, createBenchProject } = await import('./lib/database.ts');
  const { createContentModel, seedPosts } = await import('./lib/seed.ts');
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const bench = await openBenchDatabase();
  try {
    const project = await createBenchProject(bench.db, 'edge');
    const prefix = `cmsedge${Date.now()}`;
    const port = await freePort();
    const server = spawnTsx('server (seed)', 'src/main.ts', benchServerEnv({ databaseUrl: bench.url, redisUrl, prefix, port }));
    let posts: string[];
    try {
      await waitHealthy(server, `http://127.0.0.1:${port}/healthz`);
      const api: Api = { base: `http://127.0.0.1:${port}`, headers: project.headers };
      await createContentModel(api);
      posts = (await seedPosts(api, Number(process.env.BENCH_POSTS ?? 200), 10)).posts;
    } finally {
      await server.stop();
    }
    const r = await runEdgeBench({ databaseUrl: bench.url, redisUrl, prefix, headers: project.headers, posts, durationSec: Number(process.env.BENCH_DURATION ?? 6), connections: Number(process.env.BENCH_CONNECTIONS ?? 32) });
    console.log(formatTable(r.rows));
    console.log(formatTargets(r.targets));
  } finally {
    await bench.close();
  }
}
