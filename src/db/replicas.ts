import type { Logger } from '../logger.ts';
import { openPostgres, type Database, type PoolLimits } from './postgres.ts';
import { formatLsn, parseLsn, type Lsn } from './lsn.ts';
import { isReplicaFailure, withPrimaryFallback } from './replica-fallback.ts';

export interface ReplicaOptions {
  urls: string[];
  /** Past this replay lag a replica leaves rotation; it rejoins once back under it. */
  maxLagMs: number;
  /** Longest a read waits for a replica to replay the write it must see before reading the primary. */
  waitMs: number;
  /** How often each replica's replay position (and the primary's WAL position) is read. */
  checkMs: number;
  poolSize: number;
  /** Lock and statement bounds of the replicas' connections, as on the primary (poolLimits(config)). */
  limits?: PoolLimits;
  log: Logger;
}

/** `starting`: not checked yet; `lagging`: behind by more than REPLICA_MAX_LAG_MS; `down`: a check or a read failed. */
export type ReplicaStatus = 'up' | 'starting' | 'lagging' | 'down';

export interface ReplicaState {
  /** host:port/database, never the credentials. */
  name: string;
  status: ReplicaStatus;
  /** How far behind the primary its replay is (0 when it has replayed all the primary had written); null before the first check. */
  lagMs: number | null;
  replayLsn: string | null;
  /** Reads it answered since start. */
  reads: number;
}

/** Why a read went to the primary although replicas are configured. */
export type PrimaryReason = 'no_replica' | 'wait_timeout' | 'replica_failed';

interface Replica {
  name: string;
  raw: Database;
  db: Database;
  status: ReplicaStatus;
  replay: Lsn | undefined;
  lagMs: number | null;
  reads: number;
}

const nameOf = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'replica';
  }
};

const CHECK_TIMEOUT_MS = 1_000;
/** A replica connection not had within this (unreachable, or its pool busy) sends the read to the primary. */
const CONNECT_TIMEOUT_MS = 1_000;
/** While reads wait for a position, replicas are asked this often (one statement per replica per tick, shared by all waiters). */
const CATCH_UP_POLL_MS = 2;

/**
 * Streaming replicas for reads (DATABASE_REPLICA_URLS). Each is checked every `checkMs`: its replay
 * position (`pg_last_wal_replay_lsn()`) against the primary's WAL position history
 * (`pg_current_wal_lsn()`), which gives its lag as time: how long ago the primary had written what it
 * has not replayed yet (a replica of an idle primary is not lagging, however old its last replay).
 * A replica lagging past `maxLagMs` or failing a check or a read leaves rotation; reads then go to
 * the others, or to the primary, and it rejoins at the first check that finds it caught up.
 */
export class ReplicaSet {
  private readonly replicas: Replica[];
  /** The primary's WAL position over time, oldest first: what replay positions are measured against. */
  private history: Array<{ at: number; lsn: Lsn }> = [];
  private next = 0;
  private timer: NodeJS.Timeout;
  private checking: Promise<void> = Promise.resolve();
  private waiters = new Set<{ floor: Lsn; resolve: (r: Replica | undefined) => void }>();
  private catchUp: NodeJS.Timeout | undefined;
  /** Per project, the WAL position of the last write this process committed for it. */
  private readonly writes = new Map<number, Lsn>();
  readonly primaryReads: Record<PrimaryReason, number> = { no_replica: 0, wait_timeout: 0, replica_failed: 0 };
  /** Waits for a position (ms), the last 1,024: the metrics' and the benchmark's distribution. */
  readonly waits: number[] = [];
  private waitCount = 0;
  private closed = false;

  constructor(
    private readonly primary: Database,
    private readonly opts: ReplicaOptions,
  ) {
    this.replicas = opts.urls.map((url) => {
      const raw = openPostgres(url, opts.poolSize, {
        // A replica's slow statement fails over to the primary (withPrimaryFallback), so it is bounded as there.
        limits: opts.limits,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        applicationName: 'cms read',
      });
      const r: Replica = { name: nameOf(url), raw, db: raw, status: 'starting', replay: undefined, lagMs: null, reads: 0 };
      r.db = withPrimaryFallback(raw, primary, (err) => this.readFailed(r, err));
      return r;
    });
    this.timer = setInterval(() => void this.check(), opts.checkMs);
    this.timer.unref();
  }

  /** The first check, so a server starts with its replicas in rotation rather than after `checkMs`. */
  start(): Promise<void> {
    return this.check();
  }

  /** Reads waiting for a replica to replay their position right now. */
  get waiting(): number {
    return this.waiters.size;
  }

  states(): ReplicaState[] {
    return this.replicas.map((r) => ({ name: r.name, status: r.status, lagMs: r.lagMs, replayLsn: r.replay === undefined ? null : formatLsn(r.replay), reads: r.reads }));
  }

  /** The primary's WAL position now: every commit this process has seen end is at or below it. */
  async primaryPosition(): Promise<Lsn> {
    const [row] = await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn', [], { name: 'cms_wal_position' });
    return parseLsn(row.lsn)!;
  }

  /** A write of `projectId` committed at or below `lsn`: this process's later reads of the project wait for it. */
  noteWrite(projectId: number, lsn: Lsn): void {
    const had = this.writes.get(projectId);
    if (had === undefined || lsn > had) this.writes.set(projectId, lsn);
  }

  writeFloor(projectId: number): Lsn | undefined {
    return this.writes.get(projectId);
  }

  /**
   * Where a read that must see everything up to `floor` goes: a replica in rotation that has replayed
   * it, waiting up to `waitMs` for one to; else the primary. Without a floor, any replica in rotation.
   */
  async reader(floor: Lsn | undefined): Promise<Database> {
    const inRotation = this.replicas.filter((r) => r.status === 'up');
    if (inRotation.length === 0) return this.toPrimary('no_replica');
    const start = this.next++ % inRotation.length;
    for (let i = 0; i < inRotation.length; i++) {
      const r = inRotation[(start + i) % inRotation.length];
      if (floor === undefined || (r.replay !== undefined && r.replay >= floor)) return this.served(r);
    }
    const began = performance.now();
    const caughtUp = await this.waitFor(floor!);
    this.recordWait(performance.now() - began);
    if (caughtUp) return this.served(caughtUp);
    return this.toPrimary(this.replicas.some((r) => r.status === 'up') ? 'wait_timeout' : 'no_replica');
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    if (this.catchUp) clearInterval(this.catchUp);
    for (const w of this.waiters) w.resolve(undefined);
    this.waiters.clear();
    await this.checking.catch(() => {});
    await Promise.all(this.replicas.map((r) => r.raw.close().catch(() => {})));
  }

  private served(r: Replica): Database {
    r.reads++;
    return r.db;
  }

  private toPrimary(reason: PrimaryReason): Database {
    this.primaryReads[reason]++;
    return this.primary;
  }

  private recordWait(ms: number): void {
    if (this.waits.length >= 1024) this.waits.shift();
    this.waits.push(ms);
    this.waitCount++;
  }

  /** Waits recorded after the first `seen` of all time (those still held), and the count of all so far. */
  waitsSince(seen: number): { total: number; recent: number[] } {
    const fresh = Math.min(this.waitCount - seen, this.waits.length);
    return { total: this.waitCount, recent: fresh > 0 ? this.waits.slice(-fresh) : [] };
  }

  private waitFor(floor: Lsn): Promise<Replica | undefined> {
    return new Promise((resolve) => {
      const waiter = {
        floor,
        resolve: (r: Replica | undefined) => {
          clearTimeout(timeout);
          this.waiters.delete(waiter);
          resolve(r);
        },
      };
      const timeout = setTimeout(() => waiter.resolve(undefined), this.opts.waitMs);
      this.waiters.add(waiter);
      if (!this.catchUp) {
        this.catchUp = setInterval(() => void this.pollReplay(), CATCH_UP_POLL_MS);
        this.catchUp.unref();
      }
    });
  }

  private polling = false;

  /** Reads the replay position of every replica in rotation while someone waits for one. */
  private async pollReplay(): Promise<void> {
    if (this.waiters.size === 0) {
      clearInterval(this.catchUp);
      this.catchUp = undefined;
      return;
    }
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all(
        this.replicas.filter((r) => r.status === 'up').map(async (r) => {
          const replay = await this.replayOf(r).catch(() => undefined);
          if (replay !== undefined && (r.replay === undefined || replay > r.replay)) r.replay = replay;
        }),
      );
    } finally {
      this.polling = false;
    }
    this.settleWaiters();
  }

  private settleWaiters(): void {
    // None left in rotation: waiting longer cannot help, the primary answers now.
    const none = !this.replicas.some((x) => x.status === 'up');
    for (const w of this.waiters) {
      if (none) {
        w.resolve(undefined);
        continue;
      }
      const r = this.replicas.find((x) => x.status === 'up' && x.replay !== undefined && x.replay >= w.floor);
      if (r) w.resolve(r);
    }
  }

  private async replayOf(r: Replica): Promise<Lsn | undefined> {
    const rows = await r.raw.query<{ lsn: string | null; recovering: boolean }>(
      'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS recovering',
      [],
      { name: 'cms_replay_position' },
    );
    // A server out of recovery is no longer this primary's replica (promoted, or misconfigured).
    if (!rows[0]?.recovering) throw new Error('not in recovery');
    return parseLsn(rows[0].lsn);
  }

  private readFailed(r: Replica, err: unknown): void {
    this.primaryReads.replica_failed++;
    if (!isReplicaFailure(err)) return;
    if (r.status !== 'down') this.opts.log.warn({ replica: r.name, err: err instanceof Error ? err.message : String(err) }, 'read replica failed; reads go elsewhere');
    r.status = 'down';
    this.settleWaiters();
  }

  private inCheck = false;

  /** One check at a time: a replica that answers slowly must not queue a check per tick behind it. */
  private check(): Promise<void> {
    if (this.closed || this.inCheck) return this.checking;
    this.inCheck = true;
    this.checking = this.checkOnce()
      .catch((err) => this.opts.log.warn({ err }, 'replica check failed'))
      .finally(() => (this.inCheck = false));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    const now = Date.now();
    const primaryLsn = await this.primaryPosition().catch(() => undefined);
    if (primaryLsn !== undefined) {
      this.history.push({ at: now, lsn: primaryLsn });
      const keepFrom = now - Math.max(60_000, this.opts.maxLagMs * 4);
      while (this.history.length > 1 && this.history[0].at < keepFrom) this.history.shift();
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r, now)));
    this.settleWaiters();
    // Positions every replica has replayed need no remembering: no read can wait for them.
    let replayed: Lsn | undefined;
    for (const r of this.replicas) replayed = replayed === undefined || (r.replay ?? 0n) < replayed ? (r.replay ?? 0n) : replayed;
    for (const [projectId, lsn] of this.writes) if (replayed !== undefined && lsn <= replayed) this.writes.delete(projectId);
  }

  private async checkReplica(r: Replica, now: number): Promise<void> {
    const before = r.status;
    try {
      const replay = await Promise.race([
        this.replayOf(r),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('replica check timed out')), CHECK_TIMEOUT_MS).unref()),
      ]);
      if (replay === undefined) throw new Error('no replay position');
      r.replay = replay;
      r.lagMs = this.lagOf(replay, now);
      r.status = r.lagMs > this.opts.maxLagMs ? 'lagging' : 'up';
    } catch (err) {
      r.status = 'down';
      r.lagMs = null;
      if (before !== 'down') this.opts.log.warn({ replica: r.name, err: err instanceof Error ? err.message : String(err) }, 'read replica out of rotation');
    }
    if (before !== r.status && r.status === 'up' && before !== 'starting') this.opts.log.info({ replica: r.name }, 'read replica back in rotation');
    if (before !== r.status && r.status === 'lagging') this.opts.log.warn({ replica: r.name, lagMs: r.lagMs }, 'read replica lagging; out of rotation');
  }

  /** How long ago the primary had already written past `replay`; 0 when the replica has all it had at its last sample. */
  private lagOf(replay: Lsn, now: number): number {
    for (const sample of this.history) if (sample.lsn > replay) return now - sample.at;
    return 0;
  }
}
