/**
 * A published read while images render (image work bounded by what it is worth): the
 * latency of one client reading published entries, alone and while several clients ask the public
 * file URL for variants no one asked for before (each a decode and an encode). The render pool
 * (IMAGE_RENDER_CONCURRENCY, IMAGE_RENDER_QUEUE, IMAGE_RENDER_THREADS) is what keeps the read fast:
 * without it the renders took every core and libuv's threadpool, which the read's compression shares.
 *
 * `npx tsx bench/images.ts` runs it alone on a fresh database; bench/main.ts runs it after its other
 * servers stopped. `BENCH_SERVER_DIR` compares another checkout's server with the same harness.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { benchServerEnv, freePort, spawnTsx, waitHealthy } from './lib/processes.ts';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { cleanRedis } from './lib/redis.ts';
import { createContentModel, seedPosts, type Api } from './lib/seed.ts';
import type { Row, Target } from './lib/report.ts';
import { int, ms, percentiles, sleep } from './lib/stats.ts';

export const IMAGE_ROWS = {
  idle: 'published read, no renders (baseline)',
  rendering: 'published read while images render',
};

export interface ImageBenchOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  headers: Record<string, string>;
  posts: string[];
  durationSec: number;
  /** Clients asking for new variants at once. */
  renderClients: number;
  /** Photos uploaded (each 2400 × 1600 unless `small`). */
  images?: number;
  small?: boolean;
  log?: (line: string) => void;
}

/** A photo-like image (noise compresses and resizes like detail does), as JPEG. */
const photo = (i: number, small = false) =>
  sharp({ create: { width: small ? 800 : 2400, height: small ? 533 : 1600, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 110 + i, sigma: 40 } } })
    .jpeg({ quality: 85 })
    .toBuffer();

async function uploadImage(api: Api, name: string, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), name);
  const res = await fetch(`${api.base}/api/files`, { method: 'POST', headers: api.headers, body: form });
  if (res.status !== 201) throw new Error(`upload → ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const { url } = (await res.json()) as { url: string };
  return url.startsWith('/') ? `${api.base}${url}` : url;
}

/** One client reading published posts back to back (gzip accepted, as browsers do) until `until`. */
async function readLatencies(api: Api, posts: string[], until: number): Promise<{ samples: number[]; errors: number }> {
  const samples: number[] = [];
  let errors = 0;
  for (let n = 0; Date.now() < until; n++) {
    const started = performance.now();
    const res = await fetch(`${api.base}/api/posts/${posts[(n * 7) % posts.length]}`, { headers: { ...api.headers, 'accept-encoding': 'gzip' } });
    await res.arrayBuffer();
    samples.push(performance.now() - started);
    if (res.status !== 200) errors++;
  }
  return { samples, errors };
}

/** Clients asking for variants not rendered yet, one after the other each, until `until`. */
async function renderLoad(urls: string[], clients: number, until: number): Promise<{ rendered: number; busy: number; limited: number; other: number }> {
  const widths = [16, 32, 48, 64, 96, 128, 160, 240, 320, 480, 640, 768, 960, 1024, 1280, 1536, 1920, 2048];
  const formats = ['webp', 'avif', 'jpeg', 'png'];
  const asks = urls.flatMap((u) => widths.flatMap((w) => formats.map((f) => `${u}?width=${w}&format=${f}`)));
  const counts = { rendered: 0, busy: 0, limited: 0, other: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until && next < asks.length) {
        const res = await fetch(asks[next++]);
        await res.arrayBuffer();
        if (res.status === 200) counts.rendered++;
        else if (res.status === 503) {
          counts.busy++;
          // A client that honours Retry-After (capped, so the phase keeps its length).
          await sleep(Math.min(1000, Number(res.headers.get('retry-after') ?? 1) * 1000));
        } else if (res.status === 429) counts.limited++;
        else counts.other++;
      }
    }),
  );
  return counts;
}

export async function runImageBench(o: ImageBenchOptions): Promise<{ rows: Row[]; targets: Target[] }> {
  const log = o.log ?? (() => {});
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-images-'));
  // The address budget would refuse one harness address long before the pool is the bound measured.
  const env = { ...benchServerEnv({ databaseUrl: o.databaseUrl, redisUrl: o.redisUrl, prefix: o.prefix, port }), DATA_DIR: dataDir, IMAGE_RENDERS_PER_MINUTE_ADDRESS: '1000000' };
  const server = spawnTsx('server (images)', 'src/main.ts', env);
  try {
    const api: Api = { base: `http://127.0.0.1:${port}`, headers: o.headers };
    await waitHealthy(server, `${api.base}/healthz`);
    const urls: string[] = [];
    for (let i = 0; i < (o.images ?? 6); i++) urls.push(await uploadImage(api, `photo-${i}.jpg`, await photo(i, o.small)));
    // Warm the read cache, then the idle baseline.
    await readLatencies(api, o.posts, Date.now() + 1000);
    const idle = await readLatencies(api, o.posts, Date.now() + o.durationSec * 1000);
    const until = Date.now() + o.durationSec * 1000;
    const [busy, renders] = await Promise.all([readLatencies(api, o.posts, until), renderLoad(urls, o.renderClients, until)]);
    const a = percentiles(idle.samples);
    const b = percentiles(busy.samples);
    log(`images: idle read p50 ${ms(a.p50)} p99 ${ms(a.p99)} ms; while rendering p50 ${ms(b.p50)} p99 ${ms(b.p99)} ms; ${JSON.stringify(renders)}`);
    const renderNote = `${o.renderClients} clients asking new variants: ${renders.rendered} rendered, ${renders.busy} × 503 (queue full), ${renders.limited} × 429, ${renders.other} other`;
    const rows: Row[] = [
      { scenario: IMAGE_ROWS.idle, rate: idle.samples.length / o.durationSec, p50: a.p50, p95: a.p95, p99: a.p99, errors: idle.errors, rss: server.rss(), note: 'one client, back to back, gzip' },
      { scenario: IMAGE_ROWS.rendering, rate: busy.samples.length / o.durationSec, p50: b.p50, p95: b.p95, p99: b.p99, errors: busy.errors, rss: server.rss(), note: renderNote },
    ];
    const targets: Target[] = [
      {
        name: 'published read while images render: p99 < 100 ms (was 2.7 s behind two renders)',
        measured: `p99 ${ms(b.p99)} ms (idle ${ms(a.p99)} ms); ${int(renders.rendered)} variants rendered`,
        pass: busy.errors === 0 && renders.rendered > 0 && b.p99 < 100,
      },
    ];
    return { rows, targets };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const main = async () => {
    const bench = await openBenchDatabase();
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const prefix = `cms_bench_${randomBytes(4).toString('hex')}`;
    try {
      // The content through a server of its own (openBenchDatabase migrated), as bench/main.ts seeds.
      const port = await freePort();
      const seeder = spawnTsx('server (seed)', 'src/main.ts', benchServerEnv({ databaseUrl: bench.url, redisUrl, prefix, port }));
      let headers: Record<string, string>;
      let posts: string[];
      try {
        await waitHealthy(seeder, `http://127.0.0.1:${port}/healthz`);
        const project = await createBenchProject(bench.db, 'bench-images');
        const api: Api = { base: `http://127.0.0.1:${port}`, headers: project.headers };
        await createContentModel(api);
        ({ posts } = await seedPosts(api, 200, 20));
        headers = project.headers;
      } finally {
        await seeder.stop();
      }
      const out = await runImageBench({
        databaseUrl: bench.url,
        redisUrl,
        prefix,
        headers,
        posts,
        durationSec: Number(process.env.BENCH_DURATION ?? 10),
        renderClients: Number(process.env.BENCH_RENDER_CLIENTS ?? 4),
        log: (l) => process.stdout.write(`${l}\n`),
      });
      const { formatTable, formatTargets } = await import('./lib/report.ts');
      process.stdout.write(`${formatTable(out.rows)}\n\n${formatTargets(out.targets)}\n`);
    } finally {
      await cleanRedis(redisUrl, prefix);
      await bench.close();
    }
  };
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
