/**
 * What the operations plugins cost the cheapest request, the cached published REST get (issue 15):
 * the access line (one server at LOG_LEVEL=info beside one at warn, same database, same project) and
 * compression (the same server asked with and without `Accept-Encoding`, for a body below the
 * threshold, and the OpenAPI document above it). Rounds alternate between the two sides and the best
 * round of each is compared, so a busy machine moves both sides alike. Part of `npm run bench`; alone:
 * `npx tsx bench/ops-cost.ts`.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { benchServerEnv, freePort, spawnChild, spawnTsx, treeCpuMs, waitHealthy, type Child } from './lib/processes.ts';
import { createContentModel, seedPosts, type Api } from './lib/seed.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { restGet } from './lib/http-scenarios.ts';
import { cleanRedis } from './lib/redis.ts';
import type { Row, Target } from './lib/report.ts';
import { int } from './lib/stats.ts';

/** The rows this part adds to `npm run bench`'s table. */
export const OPS_COST_ROWS = ['REST get, access log on (LOG_LEVEL=info)', 'REST get, Accept-Encoding br,gzip (body < threshold)', 'openapi.json, br'];

export interface OpsCostOptions {
  durationSec: number;
  connections: number;
  rounds: number;
  log: (line: string) => void;
}

interface Side {
  rps: number;
  cpuUsPerRequest: number;
  result: LoadResult;
}

/**
 * Best round of `run` against `server`: the least server CPU per request. CPU per request is what
 * the plugins add; throughput on a shared 2-core machine moves by tens of percent between identical
 * rounds, CPU per request by a few.
 */
async function measure(server: Child, run: () => Promise<LoadResult>, best: Side | undefined): Promise<Side> {
  const cpu = treeCpuMs(server.proc.pid!);
  const result = await run();
  const side = { rps: result.rps, cpuUsPerRequest: ((treeCpuMs(server.proc.pid!) - cpu) * 1000) / Math.max(result.total, 1), result };
  return !best || side.cpuUsPerRequest < best.cpuUsPerRequest ? side : best;
}

export async function runOpsCost(opts: OpsCostOptions): Promise<{ rows: Row[]; targets: Target[] }> {
  const bench = await openBenchDatabase('cms_bench_ops');
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `cms_bench_${randomBytes(4).toString('hex')}`;
  const servers: Child[] = [];
  const start = async (level: string) => {
    const port = await freePort();
    const env = { ...benchServerEnv({ databaseUrl: bench.url, redisUrl, prefix, port }), LOG_LEVEL: level };
    // BENCH_CPU_PROF=<dir>: both servers run under `node --cpu-prof` and leave their profiles there.
    const profDir = process.env.BENCH_CPU_PROF;
    // The log goes to a file: what is measured is what the line costs the server, not what reading
    // 2 MB/s of it through a pipe costs this harness on the same two cores.
    const output = { logToFile: true };
    const child = profDir
      ? spawnChild(`server-${level}-${servers.length}`, process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profDir}/${level}-${servers.length}`, '--import', 'tsx', 'src/main.ts'], env, process.env.BENCH_SERVER_DIR, output)
      : spawnTsx(`server-${level}-${servers.length}`, 'src/main.ts', env, output);
    servers.push(child);
    await waitHealthy(child, `http://127.0.0.1:${port}/healthz`);
    return { child, base: `http://127.0.0.1:${port}` };
  };
  try {
    const quiet = await start('warn');
    // BENCH_OPS_AA=1: both servers at warn, to see how far apart two identical servers measure (an A/A check).
    const logged = await start(process.env.BENCH_OPS_AA === '1' ? 'warn' : 'info');
    const project = await createBenchProject(bench.db, 'ops');
    const api: Api = { base: quiet.base, headers: project.headers };
    await createContentModel(api);
    const seeded = await seedPosts(api, 200, 20);
    const load = { connections: opts.connections, durationSec: opts.durationSec };
    const get = (base: string, extra: Record<string, string> = {}) => () => restGet({ base, headers: { ...project.headers, ...extra } }, seeded.posts, load);
    const encodings = { 'accept-encoding': 'br, gzip' };
    const openapi = (base: string, extra: Record<string, string> = {}) => () => runLoad({ url: `${base}/api/openapi.json`, headers: extra, ...load });

    // Warm both servers (JIT, caches) before any measured round.
    for (const s of [quiet, logged]) await restGet({ base: s.base, headers: project.headers }, seeded.posts, { ...load, durationSec: 1 });
    let off: Side | undefined;
    let on: Side | undefined;
    let compressed: Side | undefined;
    let docPlain: Side | undefined;
    let docBr: Side | undefined;
    for (let round = 0; round < opts.rounds; round++) {
      // The order turns every round (ABC, CBA), so no side always runs right after another server's
      // round, in the same place of a sitting whose load drifts.
      const steps = [
        async () => (off = await measure(quiet.child, get(quiet.base), off)),
        async () => (on = await measure(logged.child, get(logged.base), on)),
        async () => (compressed = await measure(logged.child, get(logged.base, encodings), compressed)),
      ];
      for (const step of round % 2 === 0 ? steps : steps.reverse()) await step();
    }
    for (let round = 0; round < Math.max(1, opts.rounds - 1); round++) {
      docPlain = await measure(quiet.child, openapi(quiet.base), docPlain);
      docBr = await measure(quiet.child, openapi(quiet.base, { 'accept-encoding': 'br' }), docBr);
    }
    // Raw bytes on the wire (fetch would decode them).
    const wire = (encoding?: string) =>
      new Promise<{ bytes: number; encoding: string }>((resolve, reject) => {
        request(`${quiet.base}/api/openapi.json`, { headers: encoding ? { 'accept-encoding': encoding } : {} }, (res) => {
          let bytes = 0;
          res.on('data', (c: Buffer) => (bytes += c.length));
          res.on('end', () => resolve({ bytes, encoding: String(res.headers['content-encoding'] ?? 'identity') }));
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      });
    const plainDoc = await wire();
    const brDoc = await wire('br');

    const pct = (base: number, value: number) => `${(((value - base) / base) * 100).toFixed(1)} %`;
    const rows: Row[] = [
      { scenario: OPS_COST_ROWS[0]!, rate: on!.rps, p50: on!.result.p50, p95: on!.result.p95, p99: on!.result.p99, errors: on!.result.errors, note: `${on!.cpuUsPerRequest.toFixed(1)} µs CPU/req vs ${off!.cpuUsPerRequest.toFixed(1)} at warn (${off!.rps.toFixed(0)} req/s)` },
      { scenario: OPS_COST_ROWS[1]!, rate: compressed!.rps, p50: compressed!.result.p50, p95: compressed!.result.p95, p99: compressed!.result.p99, errors: compressed!.result.errors, note: `${compressed!.cpuUsPerRequest.toFixed(1)} µs CPU/req; sent uncompressed` },
      { scenario: OPS_COST_ROWS[2]!, rate: docBr!.rps, p50: docBr!.result.p50, errors: docBr!.result.errors, note: `${int(brDoc.bytes)} bytes (${brDoc.encoding}) vs ${int(plainDoc.bytes)} identity at ${docPlain!.rps.toFixed(0)} req/s` },
    ];
    const targets: Target[] = [
      {
        name: 'access log: cached REST get at LOG_LEVEL=info costs ≤ 10 % more server CPU per request than at warn',
        measured: `CPU ${on!.cpuUsPerRequest.toFixed(1)} vs ${off!.cpuUsPerRequest.toFixed(1)} µs/req (+${pct(off!.cpuUsPerRequest, on!.cpuUsPerRequest)}); ${int(on!.rps)} vs ${int(off!.rps)} req/s`,
        pass: on!.result.errors === 0 && on!.cpuUsPerRequest <= 1.1 * off!.cpuUsPerRequest,
      },
      {
        name: 'compression: a small cached read asking for br/gzip costs ≤ 10 % more CPU than one that does not; openapi.json shrinks ≥ 3×',
        measured: `CPU ${compressed!.cpuUsPerRequest.toFixed(1)} vs ${on!.cpuUsPerRequest.toFixed(1)} µs/req (+${pct(on!.cpuUsPerRequest, compressed!.cpuUsPerRequest)}); openapi.json ${int(plainDoc.bytes)} → ${int(brDoc.bytes)} bytes (${brDoc.encoding})`,
        pass: compressed!.result.errors === 0 && compressed!.cpuUsPerRequest <= 1.1 * on!.cpuUsPerRequest && brDoc.encoding === 'br' && brDoc.bytes * 3 <= plainDoc.bytes,
      },
    ];
    for (const r of rows) opts.log(`${r.scenario}: ${int(r.rate ?? 0)} req/s; ${r.note ?? ''}`);
    return { rows, targets };
  } finally {
    for (const s of servers) await s.stop('SIGINT');
    await cleanRedis(redisUrl, prefix).catch(() => {});
    await bench.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { rows, targets } = await runOpsCost({
    durationSec: Number(process.env.BENCH_DURATION ?? 5),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    log: console.log,
  });
  void rows;
  for (const t of targets) console.log(`${t.pass ? 'PASS' : 'MISS'}  ${t.name}: ${t.measured}`);
}
