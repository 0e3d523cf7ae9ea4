import { Prisma, type Database } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import type { Logger } from '../logger.ts';
import type { EntryResource } from '../entries/types.ts';
import { readMatches, type ReadView } from './matches.ts';

/**
 * The changed entries' read started beside the change stream's outbox read instead of after it.
 * Every event otherwise waits for two round trips to PostgreSQL in a row (the outbox rows, then each
 * filter's verdict on them); on a host whose cores are shared, each is a wait for the database's
 * process and then for this one's, and under bench/live.ts's load those waits were most of commit →
 * delivery. So when a pass of the stream begins, every (collection, state, visibility) read asked for
 * lately ("standing", with every filter it was asked with) runs over the outbox rows after the
 * stream's cursor, read from the outbox itself (`payload.committed`, the row the commit wrote), in a
 * snapshot of its own. A change the stream then releases takes its verdict from there; one the
 * prefetch's snapshot did not see yet (committed between the two), or a filter it did not include,
 * is read as before (./entry.ts). Same rows, same conditions, same serialization: only the moment of
 * the read moves, and nothing is shown before the stream releases it in order.
 */

/** A standing read unused this long is no longer prefetched. */
const STANDING_MS = 60_000;
/** How long a prefetched verdict is kept for the stream to release its change. */
const KEEP_MS = 10_000;

interface Standing extends ReadView {
  /** Filters asked with, by key. */
  filters: Map<string, unknown>;
  used: number;
  /** Verdicts by outbox id: each filter's entry (null: it does not show the entry then). */
  results: Map<number, { at: number; byFilter: Map<string, EntryResource | null> }>;
  /** The last prefetch asked for, in flight or queued behind the one in flight; settles without failing. */
  running?: Promise<void>;
  /** The lower bound of the queued one (the least asked for while it waited), if one is queued. */
  queuedAfter?: number;
}

/**
 * By the pool the live reads go through (one per hub, src/live/hub.ts `reads`): a process may hold
 * hubs on several databases (tests do), whose keys (project and collection ids) can coincide.
 */
const byPool = new WeakMap<Database, Map<string, Standing>>();

/** A read of `key` was asked for with this context and filter: prefetch it from now on (with `view.reads`). */
export function noteStanding(key: string, view: ReadView & { reads: Database }, whereKey: string, where: unknown, now: number): void {
  let standing = byPool.get(view.reads);
  if (!standing) byPool.set(view.reads, (standing = new Map()));
  let s = standing.get(key);
  if (!s) standing.set(key, (s = { ...view, filters: new Map(), used: now, results: new Map() }));
  // The latest asker's context: every asker of one key sees the same (./matches.ts, visibilityClass).
  s.ctx = view.ctx;
  s.reads = view.reads;
  s.collection = view.collection;
  s.used = now;
  if (!s.filters.has(whereKey)) s.filters.set(whereKey, where);
}

/**
 * The prefetched verdict of change `id` for filter `whereKey` of `key`: the entry (or null), a
 * promise of the lookup when a prefetch is still running (undefined from it: not covered), or
 * undefined when not covered.
 */
export function prefetched(reads: Database, key: string, id: number, whereKey: string): EntryResource | null | undefined | Promise<EntryResource | null | undefined> {
  const s = byPool.get(reads)?.get(key);
  if (!s) return undefined;
  const hit = s.results.get(id)?.byFilter;
  if (hit?.has(whereKey)) return hit.get(whereKey)!;
  if (!s.running) return undefined;
  return s.running.then(() => {
    const late = s.results.get(id)?.byFilter;
    return late?.has(whereKey) ? late.get(whereKey)! : undefined;
  });
}

/** A pass of the change stream is about to read the outbox after `after`: read the standing views' verdicts beside it, through `reads`. */
export function prefetchAfter(reads: Database, after: number, log: Logger): void {
  const standing = byPool.get(reads);
  if (!standing) return;
  const now = Date.now();
  for (const [key, s] of standing) {
    if (now - s.used > STANDING_MS) {
      standing.delete(key);
      continue;
    }
    for (const [id, r] of s.results) if (now - r.at > KEEP_MS) s.results.delete(id);
    if (s.queuedAfter !== undefined) {
      // One is waiting for the one in flight already: it covers this pass too.
      s.queuedAfter = Math.min(s.queuedAfter, after);
      continue;
    }
    // One statement at a time per view; a pass that begins meanwhile queues one more behind it (the
    // changes it releases wait for that one rather than each being read again after the pass).
    const previous = s.running;
    if (previous) s.queuedAfter = after;
    const mine: Promise<void> = (previous ?? Promise.resolve())
      .then(() => {
        const from = s.queuedAfter ?? after;
        s.queuedAfter = undefined;
        return run(s, from, Date.now());
      })
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'live prefetch failed; changes are read one pass at a time'))
      .finally(() => {
        if (s.running === mine) s.running = undefined;
      });
    s.running = mine;
  }
}

async function run(s: Standing, after: number, now: number): Promise<void> {
  const whereKeys = [...s.filters.keys()];
  const known = [...s.results.keys()].filter((id) => id > after);
  const ctx: Ctx = { ...s.ctx, memo: new Map(), readPool: s.reads };
  const { collection } = s;
  const source = Prisma.sql`outbox_events o CROSS JOIN LATERAL jsonb_populate_record(NULL::entries, o.payload->'committed') e
    CROSS JOIN LATERAL (SELECT o.id AS live_n) n`;
  // The outbox's own bounds (its primary key on id, its project and collection), then only rows that
  // carry the committed row: the ones ./entry.ts is asked about.
  const where = Prisma.sql`o.id > ${after} AND o.project_id = ${ctx.project.id} AND o.collection_id = ${collection.id}
    AND jsonb_typeof(o.payload->'committed') = 'object' AND o.id <> ALL(${known}::bigint[])`;
  const found = await readMatches(ctx, s, [...s.filters.values()], source, where);
  for (const r of found) {
    s.results.set(Number(r.n), { at: now, byFilter: new Map(whereKeys.map((k, i) => [k, r.matches[i] ? r.entry! : null])) });
  }
}
