/**
 * Ceilings measured in the same run as the figures they bound (BENCHMARKS.md: compare only
 * runs taken side by side): what bare HTTP, a raw indexed SELECT and stock Yoga manage on this machine.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { listeningPort, spawnChild, type Child } from './lib/processes.ts';
import { runLoad, warmupSec, type LoadResult } from './lib/load.ts';
import { percentiles, type Percentiles } from './lib/stats.ts';

export interface CeilingResult extends LoadResult {
  rss: number;
}

const here = new URL('.', import.meta.url).pathname;

async function withChild<T>(name: string, script: string, env: Record<string, string>, fn: (port: number, child: Child) => Promise<T>): Promise<T> {
  const child = spawnChild(name, process.execPath, ['--import', 'tsx', join(here, 'lib', script)], env);
  try {
    return await fn(await listeningPort(child), child);
  } finally {
    await child.stop();
  }
}

/** A bare node:http server (child process) answering `body` to every GET. */
export async function bareHttpCeiling(body: Buffer, contentType: string, load: { connections: number; durationSec: number }): Promise<CeilingResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-ceiling-'));
  const file = join(dir, 'body');
  writeFileSync(file, body);
  try {
    return await withChild('bare-http', 'bare-http-server.ts', { CEILING_BODY_FILE: file, CEILING_CONTENT_TYPE: contentType }, async (port, child) => {
      const r = await runLoad({ url: `http://127.0.0.1:${port}/`, ...load });
      return { ...r, rss: child.rss() };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stock graphql-yoga (child process) answering `{ __typename }` over POST JSON. */
export async function yogaCeiling(load: { connections: number; durationSec: number }): Promise<CeilingResult> {
  return withChild('stock-yoga', 'stock-yoga-server.ts', {}, async (port, child) => {
    const run = (l: typeof load) =>
      runLoad({
        url: `http://127.0.0.1:${port}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
        ...l,
      });
    // Warmed as the servers measured against it are (bench/lib/load.ts, warmupSec).
    await run({ ...load, durationSec: warmupSec() });
    const r = await run(load);
    return { ...r, rss: child.rss() };
  });
}

export interface SelectResult extends Percentiles {
  qps: number;
  errors: number;
}

/**
 * A raw `pg` loop from this process: `inFlight` workers each running the indexed single-row SELECT a
 * published read needs (entry by uuid), for `durationSec`.
 */
export async function rawSelectCeiling(databaseUrl: string, uuids: string[], opts: { inFlight: number; durationSec: number }): Promise<SelectResult> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.inFlight });
  const sql = 'SELECT id, uuid, published_data FROM entries WHERE uuid = $1 AND deleted_at IS NULL';
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  try {
    // Warm every connection (and its prepared plan) before the clock starts.
    await Promise.all(Array.from({ length: opts.inFlight }, () => pool.query({ name: 'ceiling', text: sql, values: [uuids[0]] })));
    const end = performance.now() + opts.durationSec * 1000;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: opts.inFlight }, async () => {
        while (performance.now() < end) {
          const t = performance.now();
          try {
            await pool.query({ name: 'ceiling', text: sql, values: [uuids[i++ % uuids.length]] });
            latencies.push(performance.now() - t);
          } catch {
            errors++;
          }
        }
      }),
    );
    const elapsed = (performance.now() - start) / 1000;
    return { qps: latencies.length / elapsed, errors, ...percentiles(latencies) };
  } finally {
    await pool.end();
  }
}
