import { Prisma, type Tx } from '../db/client.ts';

export type ScheduleKind = 'entry' | 'release';
export type ScheduleAction = 'publish' | 'unpublish';
export type ScheduleStatus = 'scheduled' | 'running' | 'done' | 'failed' | 'cancelled';

/** One row of scheduled_actions, as the statements below return it. */
export interface ScheduleRow {
  id: string;
  project_id: number;
  kind: ScheduleKind;
  collection_id: number | null;
  entry_uuid: string | null;
  locale: string | null;
  release_id: string | null;
  action: ScheduleAction;
  run_at: Date;
  status: ScheduleStatus;
  errors: Record<string, string[]> | null;
  source: 'api' | 'cms';
  created_by_token_id: number | null;
  created_at: Date;
  updated_at: Date;
  ran_at: Date | null;
}

export interface NewSchedule {
  id: string;
  projectId: number;
  kind: ScheduleKind;
  collectionId: number | null;
  entryUuid: string | null;
  locale: string | null;
  releaseId: string | null;
  action: ScheduleAction;
  runAt: Date;
  source: 'api' | 'cms';
  createdByTokenId: number | null;
}

/** A schedule to put on the queue: its id (the job id) and when it is due. */
export interface Due {
  id: string;
  run_at: Date;
  kind: ScheduleKind;
}

const COLUMNS = Prisma.sql`id::text AS id, project_id, kind, collection_id, entry_uuid::text AS entry_uuid, locale,
  release_id::text AS release_id, action, run_at, status, errors, source, created_by_token_id, created_at, updated_at, ran_at`;

export async function insertSchedule(db: Tx, s: NewSchedule): Promise<ScheduleRow> {
  const [row] = await db.$queryRaw<ScheduleRow[]>(Prisma.sql`
    INSERT INTO scheduled_actions (id, project_id, kind, collection_id, entry_uuid, locale, release_id, action, run_at, source, created_by_token_id)
    VALUES (${s.id}::uuid, ${s.projectId}, ${s.kind}, ${s.collectionId}, ${s.entryUuid}::uuid, ${s.locale}, ${s.releaseId}::uuid,
      ${s.action}, ${s.runAt}, ${s.source}, ${s.createdByTokenId})
    RETURNING ${COLUMNS}`);
  return row;
}

/** An entry's schedules, soonest first. */
export function schedulesOfEntry(db: Tx, projectId: number, collectionId: number, entryUuid: string): Promise<ScheduleRow[]> {
  return db.$queryRaw<ScheduleRow[]>(Prisma.sql`
    SELECT ${COLUMNS} FROM scheduled_actions
    WHERE project_id = ${projectId} AND entry_uuid = ${entryUuid}::uuid AND collection_id = ${collectionId} AND kind = 'entry'
    ORDER BY run_at, created_at, id`);
}

export async function scheduleById(db: Tx, projectId: number, id: string): Promise<ScheduleRow | null> {
  const [row] = await db.$queryRaw<ScheduleRow[]>(Prisma.sql`SELECT ${COLUMNS} FROM scheduled_actions WHERE id = ${id}::uuid AND project_id = ${projectId}`);
  return row ?? null;
}

/**
 * Cancels a pending schedule. A run holds the row lock from its claim to its commit, so a cancel
 * that races it waits and then finds it no longer pending: a schedule is cancelled or runs, never both.
 */
export async function cancelPending(db: Tx, projectId: number, id: string, kind?: ScheduleKind): Promise<ScheduleRow | null> {
  const [row] = await db.$queryRaw<ScheduleRow[]>(Prisma.sql`
    UPDATE scheduled_actions SET status = 'cancelled', updated_at = now()
    WHERE id = ${id}::uuid AND project_id = ${projectId} AND status = 'scheduled' ${kind ? Prisma.sql`AND kind = ${kind}` : Prisma.empty}
    RETURNING ${COLUMNS}`);
  return row ?? null;
}

/**
 * Moves a pending schedule to `runAt`. Serialised with a run on the row lock, as a cancel is: a run
 * that claimed it first leaves it no longer pending, and the move finds nothing.
 */
export async function movePending(db: Tx, projectId: number, id: string, kind: ScheduleKind, runAt: Date): Promise<ScheduleRow | null> {
  const [row] = await db.$queryRaw<ScheduleRow[]>(Prisma.sql`
    UPDATE scheduled_actions SET run_at = ${runAt}, updated_at = now()
    WHERE id = ${id}::uuid AND project_id = ${projectId} AND status = 'scheduled' AND kind = ${kind}
    RETURNING ${COLUMNS}`);
  return row ?? null;
}

/**
 * Claims a pending schedule whose time has come (scheduled → running). Run inside the transaction
 * that carries out the action: the row stays locked until it commits, so a second worker's claim
 * waits and then finds nothing, and a crash rolls the claim back with the action.
 */
export async function claimDue(tx: Tx, id: string, kind: ScheduleKind): Promise<ScheduleRow | null> {
  const [row] = await tx.$queryRaw<ScheduleRow[]>(Prisma.sql`
    UPDATE scheduled_actions SET status = 'running', updated_at = now()
    WHERE id = ${id}::uuid AND kind = ${kind} AND status = 'scheduled' AND run_at <= clock_timestamp()
    RETURNING ${COLUMNS}`);
  return row ?? null;
}

/**
 * Claims a release schedule with a lease, committed on its own: the release is published by its own
 * transaction, which cannot include this row. A run whose worker died is taken over once the lease
 * ends; the release's status makes the second publish a no-op (see ReleaseRunner).
 */
export async function claimLeased(tx: Tx, id: string, leaseMs: number): Promise<ScheduleRow | null> {
  const [row] = await tx.$queryRaw<ScheduleRow[]>(Prisma.sql`
    UPDATE scheduled_actions SET status = 'running', updated_at = now(),
      lease_until = clock_timestamp() + make_interval(secs => ${leaseMs}::float8 / 1000)
    WHERE id = ${id}::uuid AND kind = 'release' AND run_at <= clock_timestamp()
      AND (status = 'scheduled' OR (status = 'running' AND lease_until < clock_timestamp()))
    RETURNING ${COLUMNS}`);
  return row ?? null;
}

/** Ends a claimed run: done, or failed with its errors. `from` is the status the claim left. */
export async function finish(tx: Tx, id: string, from: ScheduleStatus, outcome: { status: 'done' } | { status: 'failed'; errors: Record<string, string[]> }): Promise<ScheduleRow | null> {
  const errors = outcome.status === 'failed' ? JSON.stringify(outcome.errors) : null;
  const [row] = await tx.$queryRaw<ScheduleRow[]>(Prisma.sql`
    UPDATE scheduled_actions SET status = ${outcome.status}, errors = ${errors}::jsonb, ran_at = clock_timestamp(),
      updated_at = now(), lease_until = NULL
    WHERE id = ${id}::uuid AND status = ${from}
    RETURNING ${COLUMNS}`);
  return row ?? null;
}

/** A schedule's status and time (to tell a job that came early from one that has nothing to do). */
export async function statusOf(db: Tx, id: string): Promise<{ status: ScheduleStatus; run_at: Date; kind: ScheduleKind } | null> {
  const [row] = await db.$queryRaw<Array<{ status: ScheduleStatus; run_at: Date; kind: ScheduleKind }>>(Prisma.sql`SELECT status, run_at, kind FROM scheduled_actions WHERE id = ${id}::uuid`);
  return row ?? null;
}

/**
 * Pending schedules in time order from (after run_at, after id): those due before `until` (the
 * sweeper's horizon; null = all of them, at worker start) and release runs whose lease ended.
 */
export function pendingPage(db: Tx, until: Date | null, after: Due | null, limit: number): Promise<Due[]> {
  const cursor = after ? Prisma.sql`AND (run_at, id) > (${after.run_at}, ${after.id}::uuid)` : Prisma.empty;
  return db.$queryRaw<Due[]>(Prisma.sql`
    SELECT id::text AS id, run_at, kind FROM scheduled_actions
    WHERE ((status = 'scheduled' ${until ? Prisma.sql`AND run_at <= ${until}` : Prisma.empty})
        OR (status = 'running' AND lease_until < clock_timestamp()))
      ${cursor}
    ORDER BY run_at, id LIMIT ${limit}`);
}

/** Pending schedules due now (the runner without Redis). */
export function dueNow(db: Tx, limit: number): Promise<Due[]> {
  return db.$queryRaw<Due[]>(Prisma.sql`
    SELECT id::text AS id, run_at, kind FROM scheduled_actions
    WHERE (status = 'scheduled' AND run_at <= clock_timestamp()) OR (status = 'running' AND lease_until < clock_timestamp())
    ORDER BY run_at LIMIT ${limit}`);
}
