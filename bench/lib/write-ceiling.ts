/**
 * The same-run ceiling of the write-concurrency rows (bench/write-concurrency.ts): `clients` `pg`
 * connections, each running one-row `UPDATE … WHERE id = $1` transactions (autocommit: the statement
 * and its COMMIT, one round trip) on rows no other client touches, for a fixed time. A table of its
 * own, with no trigger, so the figure is what this PostgreSQL (its WAL flush and group commit on this
 * disk) allows, not what the content tables' triggers allow.
 *
 * Two more statements explain the gap between that ceiling and the publishes, without the server:
 * `notify` adds a `pg_notify` to every transaction (PostgreSQL serialises the commits of all
 * transactions that notified: they take one lock before their commit record and keep it until the
 * commit is flushed, so this bounds any design that announces every write by NOTIFY); `entries`
 * saves drafts of distinct content entries in plain SQL (what the content tables' own triggers allow).
 */
import pg from 'pg';
import { percentiles, type Percentiles } from './stats.ts';

export interface ClosedLoopResult extends Percentiles {
  /** Completed operations per second. */
  rate: number;
  done: number;
  errors: number;
}

const TABLE = 'bench_write_ceiling';

/**
 * `clients` loops, each calling `op(client, n)` back to back until `durationSec` has passed;
 * latency per call, failures counted (and not timed).
 */
export async function closedLoop(clients: number, durationSec: number, op: (client: number, n: number) => Promise<void>): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + durationSec * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; performance.now() < end; n++) {
        const t = performance.now();
        try {
          await op(client, n);
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return { rate: latencies.length / elapsed, done: latencies.length, errors, ...percentiles(latencies) };
}

/** Creates the ceiling's table with rows 1…`rows` shaped like a post (a title and a JSONB body). */
export async function prepareCeilingTable(databaseUrl: string, rows: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await client.query(`CREATE TABLE ${TABLE} (id integer PRIMARY KEY, title text NOT NULL, data jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`);
    await client.query(
      `INSERT INTO ${TABLE} (id, title, data) SELECT i, 'Post ' || i, jsonb_build_object('title', 'Post ' || i, 'body', repeat('Body of post ' || i || '. ', 20), 'views', i) FROM generate_series(1, $1) i`,
      [rows],
    );
    await client.query(`ANALYZE ${TABLE}`);
  } finally {
    await client.end();
  }
}

export async function dropCeilingTable(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS ${TABLE}`);
  } finally {
    await client.end();
  }
}

/** The statements the ceilings run: `$1` a row id, `$2` a new title. */
export const CEILING_STATEMENTS = {
  plain: `UPDATE ${TABLE} SET title = $2, data = jsonb_set(data, '{title}', to_jsonb($2::text)), updated_at = now() WHERE id = $1`,
  notify: `WITH u AS (UPDATE ${TABLE} SET title = $2, data = jsonb_set(data, '{title}', to_jsonb($2::text)), updated_at = now() WHERE id = $1 RETURNING id)
           SELECT pg_notify('bench_write_ceiling', id::text) FROM u`,
  // A draft save of a content entry in plain SQL: what the content tables' own triggers (generation
  // counters, their change notifications) allow, without the server's work.
  entries: `UPDATE entries SET data = jsonb_set(data, '{title}', to_jsonb($2::text)), is_draft_dirty = true, updated_at = now() WHERE id = $1`,
} as const;

/**
 * `clients` connections each running `statement` on its own rows of `ids` (client k takes the ids at
 * positions ≡ k modulo `clients`), in autocommit, after one warm-up statement per connection.
 */
export async function updateCeiling(databaseUrl: string, o: { clients: number; ids: number[]; durationSec: number; statement: keyof typeof CEILING_STATEMENTS }): Promise<ClosedLoopResult> {
  const conns = await Promise.all(
    Array.from({ length: o.clients }, async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      return c;
    }),
  );
  const text = CEILING_STATEMENTS[o.statement];
  const name = `ceiling_${o.statement}`;
  const perClient = Math.max(1, Math.floor(o.ids.length / o.clients));
  const id = (client: number, n: number) => o.ids[client + o.clients * (n % perClient)];
  try {
    await Promise.all(conns.map((c, k) => c.query({ name, text, values: [id(k, 0), 'warm'] })));
    return await closedLoop(o.clients, o.durationSec, async (client, n) => {
      await conns[client].query({ name, text, values: [id(client, n), `Post ${client}-${n}`] });
    });
  } finally {
    await Promise.all(conns.map((c) => c.end().catch(() => {})));
  }
}

/** Samples pg_stat_activity every 100 ms: how many of the database's backends wait on a lock. */
export async function lockSampler(databaseUrl: string): Promise<{ stop(): Promise<{ mean: number; waits: string }> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let samples = 0;
  let waiting = 0;
  const events = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ wait_event: string; n: number }>(
        `SELECT wait_event, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' GROUP BY wait_event`,
      );
      samples++;
      for (const r of rows) {
        waiting += r.n;
        events.set(r.wait_event, (events.get(r.wait_event) ?? 0) + r.n);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  let stopped: Promise<{ mean: number; waits: string }> | undefined;
  // Idempotent: callers stop it once on success and again (harmlessly) in their cleanup.
  return {
    stop: () =>
      (stopped ??= (async () => {
        running = false;
        await loop.catch(() => {});
        await client.end();
        const waits = [...events].map(([e, n]) => `${e} ${(n / Math.max(samples, 1)).toFixed(2)}`).join(', ');
        return { mean: waiting / Math.max(samples, 1), waits: waits || 'none' };
      })()),
  };
}
