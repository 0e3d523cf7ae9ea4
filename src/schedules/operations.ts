import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Prisma, type Tx } from '../db/client.ts';
import { authorize, tokenIdOf, type Ctx } from '../context.ts';
import { collectionIdInScope } from '../collections/token-scope.ts';
import { conflict, notFound, validationFailed, zodToAppError } from '../errors.ts';
import { collectionForRequest } from '../collections/schema-cache.ts';
import { findEntry } from '../entries/versions/lookup.ts';
import { isUuid } from '../uuid.ts';
import { cancelPending, insertSchedule, movePending, scheduleById, schedulesOfEntry, type ScheduleRow } from './store.ts';

/** ISO 8601 date and time with an offset (`Z` or `±hh:mm`), as every timestamp the API returns. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** Further ahead than this is a typo, not a plan (and keeps the time inside what every store holds). */
const MAX_AHEAD_MS = 100 * 365 * 86_400_000;

const scheduleInput = z.object({
  action: z.enum(['publish', 'unpublish'], { message: 'Must be "publish" or "unpublish".' }),
  at: z.string({ message: 'Required: an ISO 8601 date and time, e.g. 2030-01-01T09:00:00Z.' }),
  locale: z.string().min(1).max(35).optional(),
});


/**
 * The time of a new schedule: an ISO 8601 date and time with an offset, in the future (422 `at`
 * otherwise). Shared by every kind, so entry and release schedules refuse the same inputs.
 */
export function parseRunAt(value: unknown, key = 'at', now = Date.now()): Date {
  if (typeof value !== 'string' || !ISO_8601.test(value) || Number.isNaN(Date.parse(value))) {
    throw validationFailed({ [key]: ['Must be an ISO 8601 date and time with an offset, e.g. 2030-01-01T09:00:00Z.'] });
  }
  const at = new Date(value);
  if (at.getTime() <= now) throw validationFailed({ [key]: ['Must be in the future.'] });
  if (at.getTime() - now > MAX_AHEAD_MS) throw validationFailed({ [key]: ['Must be within 100 years.'] });
  return at;
}

/**
 * POST /api/{collection}/{uuid}/schedule: publish or unpublish the entry at `at`. With `locale`, the
 * entry's translation in that locale is the one scheduled (422 `locale` if it has none). What is
 * published is the draft as it is when the schedule runs.
 */
export async function scheduleEntry(ctx: Ctx, collectionSlug: string, uuid: string, body: unknown): Promise<ScheduleRow> {
  authorize(ctx, 'update');
  const parsed = scheduleInput.safeParse(body ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  const runAt = parseRunAt(parsed.data.at);
  const collection = await collectionForRequest(ctx, collectionSlug);
  const entry = await findEntry(ctx.db, ctx, collection, uuid);
  const target = parsed.data.locale && parsed.data.locale !== entry.locale ? await translationOf(ctx, entry.collectionId, entry.id, parsed.data.locale) : { uuid: entry.uuid, locale: entry.locale };
  const row = await insertSchedule(ctx.db, {
    id: randomUUID(),
    projectId: ctx.project.id,
    kind: 'entry',
    collectionId: collection.id,
    entryUuid: target.uuid,
    locale: target.locale,
    releaseId: null,
    action: parsed.data.action,
    runAt,
    source: ctx.source,
    createdByTokenId: tokenIdOf(ctx),
  });
  await ctx.services.schedules?.enqueue([{ id: row.id, run_at: row.run_at, kind: row.kind }]);
  return row;
}

async function translationOf(ctx: Ctx, collectionId: number, entryId: number, locale: string): Promise<{ uuid: string; locale: string }> {
  const [found] = await ctx.db.$queryRaw<Array<{ uuid: string; locale: string }>>(Prisma.sql`
    SELECT t.uuid::text AS uuid, t.locale FROM entries e
    JOIN entries t ON t.translation_group_id = e.translation_group_id AND t.collection_id = ${collectionId}
    WHERE e.collection_id = ${collectionId} AND e.id = ${entryId} AND t.locale = ${locale} AND t.deleted_at IS NULL AND t.project_id = ${ctx.project.id}
    LIMIT 1`);
  if (!found) throw validationFailed({ locale: [`The entry has no translation in "${locale}".`] });
  return found;
}

/** GET /api/{collection}/{uuid}/schedule: the entry's schedules, soonest first, whatever their status. */
export async function listEntrySchedules(ctx: Ctx, collectionSlug: string, uuid: string): Promise<ScheduleRow[]> {
  authorize(ctx, 'read');
  const collection = await collectionForRequest(ctx, collectionSlug);
  // The schedules of a deleted entry stay readable (a failed one says why); a malformed UUID is no entry.
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  return schedulesOfEntry(ctx.db, ctx.project.id, collection.id, uuid.toLowerCase());
}

/**
 * DELETE /api/schedules/{id}: cancels a pending schedule and drops its queued job. 404 for an unknown
 * id, 409 once it ran, failed or was cancelled. Release schedules are cancelled through their release.
 */
export async function cancelSchedule(ctx: Ctx, id: string): Promise<ScheduleRow> {
  authorize(ctx, 'update');
  if (!isUuid(id)) throw notFound('Schedule not found.');
  await requireScheduleInScope(ctx, id);
  const cancelled = await cancelPending(ctx.db, ctx.project.id, id.toLowerCase(), 'entry');
  if (!cancelled) {
    const row = await scheduleById(ctx.db, ctx.project.id, id.toLowerCase());
    if (!row || row.kind !== 'entry') throw notFound('Schedule not found.');
    throw conflict(`The schedule is ${row.status}; only a scheduled one can be cancelled.`);
  }
  await ctx.services.schedules?.cancelled(cancelled.id);
  return cancelled;
}

const rescheduleInput = z.object({
  at: z.string({ message: 'Required: an ISO 8601 date and time, e.g. 2030-01-01T09:00:00Z.' }),
});

/**
 * PATCH /api/schedules/{id} `{ at }`: moves a pending schedule to another time (the rules of `at` are
 * those of a new schedule) and its queued job with it. 404 for an unknown id (or a release's
 * schedule, moved through its release), 409 once it ran, failed or was cancelled.
 */
export async function rescheduleEntrySchedule(ctx: Ctx, id: string, body: unknown): Promise<ScheduleRow> {
  authorize(ctx, 'update');
  // What exists is checked before the body, so a caller outside its scope learns nothing from a 422.
  if (!isUuid(id)) throw notFound('Schedule not found.');
  await requireScheduleInScope(ctx, id);
  const parsed = rescheduleInput.safeParse(body ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  const runAt = parseRunAt(parsed.data.at);
  const moved = await movePending(ctx.db, ctx.project.id, id.toLowerCase(), 'entry', runAt);
  if (!moved) {
    const row = await scheduleById(ctx.db, ctx.project.id, id.toLowerCase());
    if (!row || row.kind !== 'entry') throw notFound('Schedule not found.');
    throw conflict(`The schedule is ${row.status}; only a scheduled one can be rescheduled.`);
  }
  await ctx.services.schedules?.moved({ id: moved.id, run_at: moved.run_at, kind: moved.kind });
  return moved;
}

/** An entry schedule of a collection outside the caller's scope is as unknown as a missing one (404). */
async function requireScheduleInScope(ctx: Ctx, id: string): Promise<void> {
  const found = await scheduleById(ctx.db, ctx.project.id, id.toLowerCase());
  if (!found || found.kind !== 'entry' || found.collection_id === null || !collectionIdInScope(ctx, found.collection_id)) throw notFound('Schedule not found.');
}

/**
 * For the releases domain: records a release's scheduled publish inside the caller's transaction (so
 * it commits with the release's own status). After the commit, hand the result to
 * `ctx.services.schedules?.enqueue` so a worker wakes at `runAt`.
 */
export function scheduleReleaseRun(tx: Tx, ctx: Ctx, releaseId: string, runAt: Date): Promise<ScheduleRow> {
  return insertSchedule(tx, {
    id: randomUUID(),
    projectId: ctx.project.id,
    kind: 'release',
    collectionId: null,
    entryUuid: null,
    locale: null,
    releaseId,
    action: 'publish',
    runAt,
    source: ctx.source,
    createdByTokenId: tokenIdOf(ctx),
  });
}

/** For the releases domain: cancels a release's pending scheduled publishes in the caller's transaction; answers their ids (drop their jobs after the commit with `schedules.cancelled`). */
export async function cancelReleaseRuns(tx: Tx, ctx: Ctx, releaseId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>(Prisma.sql`
    UPDATE scheduled_actions SET status = 'cancelled', updated_at = now()
    WHERE project_id = ${ctx.project.id} AND release_id = ${releaseId}::uuid AND kind = 'release' AND status = 'scheduled'
    RETURNING id::text AS id`);
  return rows.map((r) => r.id);
}
