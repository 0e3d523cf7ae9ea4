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

interface PassRecord {
  k: 'pass';
  woke?: number;
  began: number;
  read: number;
  seen: number[];
  rel: number[];
}
interface FlushRecord {
  k: 'flush';
  ids: number[];
  sched: number;
  began: number;
  done: number;
}
interface PrefetchRecord {
  k: 'pf';
  how: string;
}
interface RenderRecord {
  k: 'r';
  id: number;
  at: number;
}

/**
 * The server's own fan-out, timed per delivery from the moment a rendered event was handed to it:
 * from the start of the group's write turn that carried the event (its `flush` record's `began`,
 * src/live/group.ts: rendering, the entry read and the outbox read are all done by then) to the
 * moment the harness read the event off the socket. The same loop, sockets, bytes and client as
 * the measured deliveries, in the same run: the least this server's delivery can take once an event
 * is ready, and so the ceiling commit → delivery is compared with.
 */
export function fanoutLatencies(text: string, deliveries: Array<{ id: number; at: number }>): number[] {
  const began = new Map<number, number>();
  for (const line of text.split('\n')) {
    if (!line.includes('"k":"flush"')) continue;
    const r = JSON.parse(line) as FlushRecord;
    for (const id of r.ids) began.set(id, Math.min(began.get(id) ?? Infinity, r.began));
  }
  const out: number[] = [];
  for (const d of deliveries) {
    const b = began.get(d.id);
    if (b !== undefined) out.push(d.at - b);
  }
  return out;
}

/**
 * Commit → delivery split into the server's stages, from its LIVE_STAGE_LOG (src/live/stages.ts),
 * per outbox id: the commit as the harness saw it → the first read of the outbox that began after
 * it ("to read"), that read's round trip, the time the id waited behind a missing lower id
 * ("held"), rendering ("render", to the last group's rendition), the group writes to every member
 * ("write turn"), and the harness reading it ("to harness", from the group's write start, per
 * delivery); and all of it before the first byte is written ("commit→write start"). One line of p50/p99 per stage.
 */
export function stageSummary(text: string, seen: Map<number, number>, deliveries: Array<{ id: number; at: number }>): string {
  const firstSeen = new Map<number, PassRecord>();
  const releasedBy = new Map<number, PassRecord>();
  const rendered = new Map<number, number>();
  const flushOf = new Map<number, FlushRecord[]>();
  /** How the changed entries' reads were answered (src/live/prefetch.ts): hit, wait, miss. */
  const prefetch = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as PassRecord | FlushRecord | RenderRecord | PrefetchRecord;
    if (r.k === 'pass') {
      for (const id of r.seen) if (!firstSeen.has(id)) firstSeen.set(id, r);
      for (const id of r.rel) releasedBy.set(id, r);
    } else if (r.k === 'pf') prefetch.set(r.how, (prefetch.get(r.how) ?? 0) + 1);
    else if (r.k === 'r') rendered.set(r.id, Math.max(rendered.get(r.id) ?? 0, r.at));
    else for (const id of r.ids) (flushOf.get(id) ?? flushOf.set(id, []).get(id)!).push(r);
  }
  const stages: Record<string, number[]> = { 'commit→wake': [], 'commit→read start': [], 'read trip': [], held: [], render: [], 'render→write': [], 'turn wait': [], 'write turn': [], 'write start→harness': [], 'commit→write start': [] };
  for (const [id, at] of seen) {
    const f = firstSeen.get(id);
    const rel = releasedBy.get(id);
    const fl = flushOf.get(id);
    const rd = rendered.get(id);
    if (!f || !rel || !fl || rd === undefined) continue;
    if (f.woke !== undefined) stages['commit→wake'].push(f.woke - at);
    stages['commit→read start'].push(f.began - at);
    stages['read trip'].push(f.read - f.began);
    stages.held.push(rel.read - f.read);
    stages.render.push(rd - rel.read);
    const began = Math.min(...fl.map((x) => x.began));
    stages['render→write'].push(began - rd);
    stages['commit→write start'].push(began - at);
    for (const x of fl) stages['turn wait'].push(x.began - x.sched);
    for (const x of fl) stages['write turn'].push(x.done - x.began);
  }
  const flushStart = new Map<number, number>();
  for (const [id, fl] of flushOf) flushStart.set(id, Math.min(...fl.map((x) => x.began)));
  for (const d of deliveries) {
    const b = flushStart.get(d.id);
    if (b !== undefined) stages['write start→harness'].push(d.at - b);
  }
  const pct = (xs: number[], q: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
  };
  return Object.entries(stages)
    .map(([name, xs]) => `  ${name.padEnd(20)} p50 ${pct(xs, 0.5)} ms, p90 ${pct(xs, 0.9)}, p99 ${pct(xs, 0.99)}, max ${pct(xs, 1)} (${xs.length})`)
    .join('\n')
    .concat(`\n  entry reads: ${[...prefetch].map(([how, n]) => `${how} ${n}`).join(', ') || 'none noted'}`);
}
