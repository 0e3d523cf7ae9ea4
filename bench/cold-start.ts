/**
 * Cold start: wall time from spawning the server process to its first `/readyz` 200, as an operator
 * sees it after a deploy or a crash, beside the same for a bare node:http server (the floor: starting
 * node itself). The server runs as the image and `npm start` run it: `node dist/main.js`, compiled
 * first (scripts/build.mjs). PostgreSQL: the bench's migrated database, MIGRATE_ON_START on (the
 * default: it checks the applied migrations). Embedded: a fresh DATA_DIR (first start: the database
 * is created, migrated and the demo seeded), then a restart on it.
 *
 * `npx tsx bench/cold-start.ts` alone: DATABASE_URL or a fresh database (bench/lib/database.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './lib/processes.ts';
import { percentile } from './lib/stats.ts';
import type { Row, Target } from './lib/report.ts';

const root = resolve(import.meta.dirname, '..');

export const COLD_START_ROWS = {
  postgres: 'cold start to /readyz, PostgreSQL',
  embeddedFirst: 'cold start to /readyz, embedded (first start)',
  embeddedRestart: 'cold start to /readyz, embedded (restart)',
  bare: 'ceiling: bare node:http cold start',
};

const BARE = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";

/** Spawns `args`, polls /readyz every 10 ms until 200, stops the process; the ms it took to be ready. */
async function timeToReady(args: string[], env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    for (const until = started + 180_000; performance.now() < until; ) {
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${err.slice(-2000)}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
      if (ok) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`not ready within 180 s:\n${err.slice(-2000)}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function row(scenario: string, samples: number[], note: string): Row {
  const sorted = [...samples].sort((a, b) => a - b);
  return { scenario, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: sorted.at(-1), note: `${samples.length} starts; ${note}` };
}

/** `embedded: false` (BENCH_QUICK) leaves out the embedded starts, the slowest part; their rows say so. */
export async function runColdStart(databaseUrl: string, opts: { runs: number; embedded: boolean }): Promise<{ rows: Row[]; targets: Target[] }> {
  const { runs } = opts;
  const { build } = (await import(pathToFileURL(join(root, 'scripts/build.mjs')).href)) as { build: () => Promise<number> };
  const buildMs = await build();
  const server = ['dist/main.js'];
  const common = { AUTH_JWT_KEYS: `bench:${'k'.repeat(40)}`, WORKER_IN_PROCESS: 'false', REDIS_URL: '' };
  const pg: number[] = [];
  const first: number[] = [];
  const restart: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await timeToReady(['-e', BARE], {}));
    pg.push(await timeToReady(server, { ...common, DATABASE_URL: databaseUrl, MIGRATE_ON_START: 'true', SEED_DEMO: 'false' }));
    if (!opts.embedded) continue;
    const dir = await mkdtemp(join(tmpdir(), 'cms-bench-cold-'));
    try {
      first.push(await timeToReady(server, { ...common, DATABASE_URL: '', DATA_DIR: dir }));
      restart.push(await timeToReady(server, { ...common, DATABASE_URL: '', DATA_DIR: dir }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const rows = [
    row(COLD_START_ROWS.postgres, pg, `node dist/main.js (compiled in ${Math.round(buildMs)} ms), migrations checked`),
    opts.embedded ? row(COLD_START_ROWS.embeddedFirst, first, 'fresh DATA_DIR: database created, migrated, demo seeded') : { scenario: COLD_START_ROWS.embeddedFirst, note: 'not run (BENCH_QUICK)' },
    opts.embedded ? row(COLD_START_ROWS.embeddedRestart, restart, 'the same DATA_DIR again') : { scenario: COLD_START_ROWS.embeddedRestart, note: 'not run (BENCH_QUICK)' },
    row(COLD_START_ROWS.bare, bare, 'node -e with an http server answering 200'),
  ];
  const p50 = rows[0]!.p50!;
  const targets: Target[] = [{ name: 'cold start to /readyz on PostgreSQL < 3 s (p50)', measured: `p50 ${Math.round(p50)} ms (bare node:http ${Math.round(rows[3]!.p50!)} ms)`, pass: p50 < 3000 }];
  return { rows, targets };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { openBenchDatabase } = await import('./lib/database.ts');
  const { formatTable, formatTargets } = await import('./lib/report.ts');
  const bench = await openBenchDatabase();
  try {
    const { rows, targets } = await runColdStart(bench.url, { runs: Number(process.env.BENCH_COLD_STARTS ?? 3), embedded: true });
    process.stdout.write(`${formatTable(rows)}\n\n${formatTargets(targets)}\n`);
  } finally {
    await bench.close();
  }
}
