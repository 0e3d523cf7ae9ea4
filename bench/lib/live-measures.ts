import pg from 'pg';
import type { Database } from '../../src/db/client.ts';

/** What bench/live.ts measures besides its subscribers: the database's work and when commits happen. */

/**
 * Rows the bench database handed out so far (sequential and index reads) and transactions: the
 * database's share of the work, which competes for the same cores and is steadier than CPU seconds.
 */
export async function dbWork(db: Database): Promise<{ rows: number; xacts: number }> {
  const [r] = await db.query<{ rows: string; xacts: string }>(
    `SELECT (tup_returned + tup_fetched)::text AS rows, (xact_commit + xact_rollback)::text AS xacts FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { rows: Number(r?.rows ?? 0), xacts: Number(r?.xacts ?? 0) };
}

/**
 * When each outbox row was first seen committed, by this harness's own LISTEN on the channel writers
 * notify at commit: `created_at` is the transaction's start, so latency from it includes the write's
 * own duration (seconds on a loaded host). On each notification the new ids are read; each gets the
 * arrival time of the earliest notification not yet accounted for, which is at or before its commit
 * is seen here, so commit → delivery measured from it errs on the long side.
 */
export async function watchCommits(url: string): Promise<{ seen: Map<number, number>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const seen = new Map<number, number>();
  let high = Number((await client.query<{ max: string | null }>('SELECT max(id)::text AS max FROM outbox_events')).rows[0]?.max ?? 0);
  /** Every id at or below was seen (or is below where this watch started). */
  let contiguous = high;
  let earliest: number | undefined;
  let reading = false;
  let closed = false;
  const read = async (): Promise<void> => {
    if (reading || closed) return;
    reading = true;
    try {
      while (earliest !== undefined && !closed) {
        const at = earliest;
        earliest = undefined;
        // From the lowest id not seen yet (a transaction that drew its id earlier may commit later),
        // but never more than 200 below the highest (a rolled-back id never appears): in steady state
        // only the new rows, not 200 per notification, which cost this harness and the database CPU
        // the measured server shares.
        const { rows } = await client.query<{ id: string }>('SELECT id::text AS id FROM outbox_events WHERE id > $1', [Math.max(contiguous, high - 200)]);
        for (const r of rows) {
          const id = Number(r.id);
          if (!seen.has(id)) seen.set(id, at);
          if (id > high) high = id;
        }
        while (seen.has(contiguous + 1)) contiguous++;
      }
    } finally {
      reading = false;
    }
  };
  client.on('notification', () => {
    earliest ??= Date.now();
    void read();
  });
  await client.query('LISTEN cms_webhook_outbox');
  return {
    seen,
    async close() {
      closed = true;
      await client.end().catch(() => {});
    },
  };
}
