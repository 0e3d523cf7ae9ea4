import type { Database } from '../db/client.ts';
import { claimUndispatchedSql, pruneDispatchedSql } from '../events/outbox.ts';

/**
 * The SQL of the delivery pipeline. Every statement is a single round trip and atomic on its own
 * (data-modifying CTEs), and works on PostgreSQL and PGlite alike. Raw SQL instead of Prisma here:
 * these statements batch hundreds of rows and sit on the hot path of every delivery. Those that run
 * per write or per delivery are named prepared statements: planning the dispatch took ~10 times
 * the PostgreSQL CPU of running it against an empty outbox, and an unnamed statement is planned
 * again at every execution.
 */

export interface ClaimedDelivery {
  id: string;
  webhookId: number;
  event: string;
  body: Record<string, unknown>;
  /** Attempts made before this claim. */
  attempts: number;
  manual: boolean;
  /** `cancelled` when the webhook was disabled since the delivery was created. */
  status: 'sending' | 'cancelled';
  url: string;
  secret: string | null;
  consecutiveFailures: number;
}

/** Where a sweep of overdue deliveries stands: the last delivery it handed on. */
export interface OverduePosition {
  id: string;
  at: Date;
}

export interface FinishRecord {
  delivery_id: string;
  webhook_id: number;
  attempt: number;
  action: string;
  url: string;
  status: string;
  request: unknown;
  response: unknown;
  duration_ms: number;
  created_at: string;
  next_status: 'delivered' | 'failed' | 'pending';
  next_attempt_at: string | null;
}

export interface CounterChange {
  webhook_id: number;
  /** A success happened: the counter restarts from `failures`. */
  reset: boolean;
  /** Final delivery failures to add. */
  failures: number;
}

interface ClaimRow {
  id: string;
  webhook_id: number;
  event: string;
  body: Record<string, unknown>;
  attempts: number;
  manual: boolean;
  status: 'sending' | 'cancelled';
  url: string;
  secret: string | null;
  consecutive_failures: number;
}

const toClaimed = (r: ClaimRow): ClaimedDelivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  event: r.event,
  body: r.body,
  attempts: r.attempts,
  manual: r.manual,
  status: r.status,
  url: r.url,
  secret: r.secret,
  consecutiveFailures: r.consecutive_failures,
});

/**
 * Claiming moves a delivery to `sending` with a lease (next_attempt_at = lease end) so two workers
 * never send it at once; a lease that runs out (process died mid-send) makes it claimable again.
 * A delivery of a webhook disabled in the meantime is cancelled instead, unless an admin asked for
 * it (ping, redeliver).
 */
const claimSet = (leaseParam: string) => `
  SET status = CASE WHEN w.status OR d.manual THEN 'sending' ELSE 'cancelled' END,
      next_attempt_at = CASE WHEN w.status OR d.manual THEN now() + make_interval(secs => ${leaseParam}::float8 / 1000) ELSE NULL END,
      completed_at = CASE WHEN w.status OR d.manual THEN NULL ELSE now() END
  FROM webhooks w`;
const CLAIM_RETURNING = `
  RETURNING d.id::text AS id, d.webhook_id, d.event, d.body, d.attempts, d.manual, d.status, w.url, w.secret, w.consecutive_failures`;
const CLAIMABLE = `(d.status = 'pending' OR (d.status = 'sending' AND d.next_attempt_at < now()))`;

/**
 * Outbox → deliveries, one batch: claims undispatched rows (the events module's claim, which marks
 * them dispatched) and inserts one delivery per matching webhook in the same statement. The unique
 * (outbox_id, webhook_id) makes a replay harmless.
 */
const DISPATCH_SQL = `
WITH ${claimUndispatchedSql('$1')}, inserted AS (
  INSERT INTO webhook_deliveries (id, webhook_id, outbox_id, event, body, status, attempts, next_attempt_at, manual)
  SELECT gen_random_uuid(), w.id, m.id, m.event,
         (m.payload - 'content_entry' - 'committed' - 'removed')
           || jsonb_build_object('project_uuid', p.uuid, 'source', m.source)
           || CASE WHEN w.payload AND m.event <> 'content.deleted' AND (m.payload ? 'content_entry')
                   THEN jsonb_build_object('content_entry', m.payload -> 'content_entry') ELSE '{}'::jsonb END,
         'pending', 0, now(), false
  FROM marked m
  JOIN projects p ON p.id = m.project_id
  JOIN webhooks w ON w.project_id = m.project_id AND w.status AND m.event = ANY (w.events)
   AND CASE WHEN m.event LIKE 'auth.%' THEN 'api' = ANY (w.sources) ELSE m.source = ANY (w.sources) END
   AND (m.collection_id IS NULL
        OR NOT EXISTS (SELECT 1 FROM webhook_collections wc WHERE wc.webhook_id = w.id)
        OR EXISTS (SELECT 1 FROM webhook_collections wc WHERE wc.webhook_id = w.id AND wc.collection_id = m.collection_id))
  ORDER BY m.id, w.id
  ON CONFLICT (outbox_id, webhook_id) DO NOTHING
  RETURNING id
)
SELECT (SELECT count(*)::int FROM marked) AS events,
       coalesce((SELECT array_agg(id::text) FROM inserted), '{}'::text[]) AS ids`;

const FINISH_SQL = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
    delivery_id uuid, webhook_id int, attempt int, action text, url text, status text, request jsonb,
    response jsonb, duration_ms int, created_at timestamptz, next_status text, next_attempt_at timestamptz)
), logs AS (
  INSERT INTO webhook_logs (webhook_id, delivery_id, attempt, action, url, status, request, response, duration_ms, created_at)
  SELECT webhook_id, delivery_id, attempt, action, url, status, request, response, duration_ms, created_at FROM input
  RETURNING 1
), moved AS (
  UPDATE webhook_deliveries d
  SET status = i.next_status,
      attempts = GREATEST(d.attempts, i.attempt),
      next_attempt_at = i.next_attempt_at,
      completed_at = CASE WHEN i.next_status = 'pending' THEN NULL ELSE now() END
  FROM input i WHERE d.id = i.delivery_id
  RETURNING 1
)
SELECT (SELECT count(*)::int FROM logs) AS logs, (SELECT count(*)::int FROM moved) AS moved`;

/** Counter arithmetic happens in SQL against the row as locked, so concurrent batches add up. */
const NEXT_COUNT = `(CASE WHEN c.reset THEN c.failures ELSE w.consecutive_failures + c.failures END)`;
const COUNTERS_SQL = `
UPDATE webhooks w SET
  consecutive_failures = ${NEXT_COUNT},
  status = CASE WHEN w.status AND ${NEXT_COUNT} >= $2 THEN false ELSE w.status END,
  disabled_at = CASE WHEN w.status AND ${NEXT_COUNT} >= $2 THEN now() ELSE w.disabled_at END,
  disabled_reason = CASE WHEN w.status AND ${NEXT_COUNT} >= $2
    THEN 'Disabled automatically after ' || ${NEXT_COUNT} || ' consecutive failed deliveries.' ELSE w.disabled_reason END,
  updated_at = CASE WHEN w.status AND ${NEXT_COUNT} >= $2 THEN now() ELSE w.updated_at END
FROM jsonb_to_recordset($1::jsonb) AS c(webhook_id int, reset boolean, failures int)
WHERE w.id = c.webhook_id AND w.consecutive_failures <> ${NEXT_COUNT}
RETURNING w.id, w.status`;

export class DeliveryStore {
  constructor(private readonly db: Database) {}

  async dispatchBatch(limit: number): Promise<{ events: number; deliveryIds: string[] }> {
    const [row] = await this.db.query<{ events: number; ids: string[] }>(DISPATCH_SQL, [limit], { name: 'cms_delivery_dispatch' });
    return { events: row.events, deliveryIds: row.ids };
  }

  async claimByIds(ids: readonly string[], leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = await this.db.query<ClaimRow>(
      `UPDATE webhook_deliveries d ${claimSet('$2')} WHERE w.id = d.webhook_id AND d.id = ANY ($1::uuid[]) AND ${CLAIMABLE} ${CLAIM_RETURNING}`,
      [ids, leaseMs],
      { name: 'cms_delivery_claim_ids' },
    );
    return rows.map(toClaimed);
  }

  /** Due deliveries for the in-process runner (no Redis): oldest due first. */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = await this.db.query<ClaimRow>(
      `UPDATE webhook_deliveries d ${claimSet('$1')}
       WHERE w.id = d.webhook_id AND d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE (status = 'pending' AND next_attempt_at <= now()) OR (status = 'sending' AND next_attempt_at < now())
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       ${CLAIM_RETURNING}`,
      [leaseMs, limit],
      { name: 'cms_delivery_claim_due' },
    );
    return rows.map(toClaimed);
  }

  async finish(records: readonly FinishRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.query(FINISH_SQL, [JSON.stringify(records)], { name: 'cms_delivery_finish' });
  }

  /** Applies success resets and final failures; returns webhooks that this call disabled. */
  async applyCounters(changes: readonly CounterChange[], disableAfter: number): Promise<number[]> {
    if (changes.length === 0) return [];
    const sorted = [...changes].sort((a, b) => a.webhook_id - b.webhook_id);
    const rows = await this.db.query<{ id: number; status: boolean }>(COUNTERS_SQL, [JSON.stringify(sorted), disableAfter], { name: 'cms_delivery_counters' });
    return rows.filter((r) => !r.status).map((r) => r.id);
  }

  /** Pending deliveries that should be on the queue by now but may not be (Redis lost them, a crash). */
  /**
   * Deliveries due but not (or no longer) on the queue, oldest first, a page at a time: `after` is the
   * last row of the previous page, so a sweep walks a large backlog instead of re-reading its head.
   */
  async overdue(graceMs: number, limit: number, after?: OverduePosition): Promise<OverduePosition[]> {
    const rows = await this.db.query<OverduePosition>(
      `SELECT id::text AS id, next_attempt_at AS at FROM webhook_deliveries
       WHERE ((status = 'pending' AND next_attempt_at <= now() - make_interval(secs => $1::float8 / 1000))
          OR (status = 'sending' AND next_attempt_at < now()))
         AND ($3::timestamptz IS NULL OR (next_attempt_at, id) > ($3::timestamptz, $4::uuid))
       ORDER BY next_attempt_at, id LIMIT $2`,
      [graceMs, limit, after?.at ?? null, after?.id ?? null],
    );
    return rows;
  }

  /** Retention: deletes in slices so no statement holds locks for long. Returns rows deleted per table. */
  async cleanup(opts: { logRetentionDays: number; outboxRetentionHours: number; slice?: number }): Promise<Record<string, number>> {
    const slice = opts.slice ?? 5000;
    const run = async (sql: string, param: number): Promise<number> => {
      let total = 0;
      for (;;) {
        const [row] = await this.db.query<{ n: number }>(sql, [param, slice]);
        total += row.n;
        if (row.n < slice) return total;
      }
    };
    return {
      webhook_logs: await run(
        `WITH gone AS (DELETE FROM webhook_logs WHERE id IN (
           SELECT id FROM webhook_logs WHERE created_at < now() - make_interval(days => $1::int) LIMIT $2) RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        opts.logRetentionDays,
      ),
      webhook_deliveries: await run(
        `WITH gone AS (DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE completed_at < now() - make_interval(days => $1::int) LIMIT $2) RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        opts.logRetentionDays,
      ),
      outbox_events: await run(pruneDispatchedSql('$1', '$2'), opts.outboxRetentionHours),
    };
  }
}
