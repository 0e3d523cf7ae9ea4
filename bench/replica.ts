/**
 * Read-after-write through a lagging replica: a client writes through one API process and reads the
 * entry at once through another, sending the `Read-After` the write answered with. The replica
 * applies every commit `BENCH_REPLICA_DELAY_MS` (25) after it happened (`recovery_min_apply_delay`),
 * so each read waits for it. The row gives the wait's distribution (what the read spent waiting for
 * the replica, as the replica set measured it) and the read's whole latency; the target bounds the
 * wait by the delay itself, measured in the same run: p99 within delay + 25 ms, every read served by
 * the replica (no fallback to the primary) and each seeing its write.
 *
 * The primary and the standby are the test harness's own (test/helpers/streaming-replica.ts: initdb,
 * pg_basebackup -R); without PostgreSQL's server binaries the row says so and there is no target.
 * `npx tsx bench/replica.ts` alone.
 */
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createServices, type AppServices } from '../src/services.ts';
import { buildServer } from '../src/http/server.ts';
import { openPostgres } from '../src/db/client.ts';
import { replicaHarnessProblem, replicaPair } from '../test/helpers/streaming-replica.ts';
import { createBenchProject } from './lib/database.ts';
import { call, createContentModel, type Api } from './lib/seed.ts';
import { percentile } from './lib/stats.ts';
import type { Row, Target } from './lib/report.ts';

export const REPLICA_ROWS = { readAfterWrite: 'read-after-write via a lagging replica: wait' };

interface Server {
  services: AppServices;
  base: string;
  close(): Promise<void>;
}

async function startServer(primaryUrl: string, replicaUrl: string): Promise<Server> {
  const config = loadConfig({
    DATABASE_URL: primaryUrl,
    DATABASE_REPLICA_URLS: replicaUrl,
    REPLICA_WAIT_MS: '2000',
    REPLICA_MAX_LAG_MS: '5000',
    MIGRATE_ON_START: 'false',
    WORKER_IN_PROCESS: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_JWT_KEYS: `bench:${'k'.repeat(40)}`,
  });
  const services = await createServices(config, createLogger('silent'), { authCache: true });
  const app = await buildServer(services);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    services,
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

export async function runReplicaBench(opts: { iterations: number; delayMs: number }): Promise<{ rows: Row[]; targets: Target[] }> {
  const problem = replicaHarnessProblem();
  if (problem) return { rows: [{ scenario: REPLICA_ROWS.readAfterWrite, note: `skipped: ${problem}` }], targets: [] };
  const pair = await replicaPair();
  const servers: Server[] = [];
  try {
    await pair.delayReplay(opts.delayMs);
    const db = openPostgres(pair.primaryUrl, 2);
    const project = await createBenchProject(db, 'replica bench').finally(() => db.close());
    servers.push(await startServer(pair.primaryUrl, pair.replicaUrl), await startServer(pair.primaryUrl, pair.replicaUrl));
    const [writer, reader] = servers;
    const onWriter: Api = { base: writer.base, headers: project.headers };
    await createContentModel(onWriter);
    const { body } = await call<{ uuid: string }>(onWriter, 'POST', '/api/posts', { data: { title: 'r0' } });
    const replicas = reader.services.replicas!;
    const before = { served: replicas.states()[0].reads, primary: Object.values(replicas.primaryReads).reduce((a, b) => a + b, 0), waits: replicas.waitsSince(0).total };
    const reads: number[] = [];
    let stale = 0;
    for (let i = 1; i <= opts.iterations; i++) {
      const put = await fetch(`${writer.base}/api/posts/${body.uuid}`, {
        method: 'PUT',
        headers: { ...project.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { title: `r${i}` } }),
      });
      const position = put.headers.get('read-after');
      await put.arrayBuffer();
      const t0 = performance.now();
      const got = await fetch(`${reader.base}/api/posts/${body.uuid}?state=draft`, { headers: { ...project.headers, ...(position ? { 'read-after': position } : {}) } });
      const json = (await got.json()) as { fields?: { title?: string } };
      reads.push(performance.now() - t0);
      if (json.fields?.title !== `r${i}`) stale++;
    }
    const { recent } = replicas.waitsSince(before.waits);
    const waits = [...recent].sort((a, b) => a - b);
    const sortedReads = [...reads].sort((a, b) => a - b);
    const served = replicas.states()[0].reads - before.served;
    const toPrimary = Object.values(replicas.primaryReads).reduce((a, b) => a + b, 0) - before.primary;
    const p99 = waits.length ? percentile(waits, 99) : undefined;
    return {
      rows: [
        {
          scenario: REPLICA_ROWS.readAfterWrite,
          p50: waits.length ? percentile(waits, 50) : undefined,
          p95: waits.length ? percentile(waits, 95) : undefined,
          p99,
          errors: stale,
          note: `replica applies commits ${opts.delayMs} ms late; ${opts.iterations} writes, ${waits.length} reads waited, ${served} served by the replica, ${toPrimary} by the primary; whole read p50 ${percentile(sortedReads, 50).toFixed(1)} ms, p99 ${percentile(sortedReads, 99).toFixed(1)} ms; errors = reads not showing their write`,
        },
      ],
      targets: [
        {
          name: `read-after-write through a replica ${opts.delayMs} ms behind: wait p99 ≤ delay + 25 ms, all from the replica, none stale`,
          measured: `wait p99 ${p99?.toFixed(1) ?? '-'} ms, ${served}/${opts.iterations} from the replica, ${stale} stale`,
          pass: stale === 0 && served === opts.iterations && p99 !== undefined && p99 <= opts.delayMs + 25,
        },
      ],
    };
  } finally {
    for (const s of servers) await s.close();
    await pair.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { rows, targets } = await runReplicaBench({ iterations: Number(process.env.BENCH_REPLICA_WRITES ?? 200), delayMs: Number(process.env.BENCH_REPLICA_DELAY_MS ?? 25) });
  console.log(JSON.stringify({ rows, targets }, null, 2));
  process.exit(0);
}
