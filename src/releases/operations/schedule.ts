import type { Tx } from '../../db/client.ts';
import { TX_OPTIONS } from '../../entries/operations/entry.ts';
import { type Ctx, type Services } from '../../context.ts';
import { conflict, validationFailed } from '../../errors.ts';
import { emitReleaseEvent } from '../../events/outbox.ts';
import { cancelReleaseRuns, parseRunAt, scheduleReleaseRun } from '../../schedules/operations.ts';
import type { ReleaseRunner } from '../../schedules/runners.ts';
import { RELEASE_INCLUDE, serializeRelease, type ReleaseView } from '../model.ts';
import { lockRelease } from './find.ts';
import { authorizeReleases } from './access.ts';
import { publishRelease } from './publish.ts';

/**
 * Release schedules (docs/releases.md): the release row says `scheduled` and when, the schedules
 * domain keeps the run (its record in PostgreSQL, its delayed job in BullMQ) and calls `releaseRunner`
 * at that time. Both rows change in one transaction, so a release is never shown scheduled without a
 * run, nor runs after it was unscheduled; the job is added or dropped after the commit.
 */


/** POST /api/releases/{id}/schedule `{ publish_at }`: (re)schedules the release's publish. */
export async function scheduleRelease(ctx: Ctx, id: string, body: unknown): Promise<ReleaseView> {
  authorizeReleases(ctx, 'update');
  const publishAt = parseRunAt((body as { publish_at?: unknown } | null)?.publish_at, 'publish_at');
  const { view, run, dropped } = await ctx.db.$transaction(async (tx: Tx) => {
    const release = await lockRelease(tx, ctx, id);
    if (release.status === 'published') throw conflict('The release is published: it can no longer be scheduled.');
    const dropped = await cancelReleaseRuns(tx, ctx, release.uuid);
    const run = await scheduleReleaseRun(tx, ctx, release.uuid, publishAt);
    const row = await tx.release.update({
      where: { id: release.id },
      data: { status: 'scheduled', publishAt, updatedAt: new Date() },
      include: RELEASE_INCLUDE,
    });
    const view = serializeRelease(row);
    await emitReleaseEvent(tx, ctx, 'release.scheduled', view);
    return { view, run, dropped };
  }, TX_OPTIONS);
  await afterCommit(ctx.services, dropped, run);
  return view;
}

/** DELETE /api/releases/{id}/schedule: back to `open`; its pending run is cancelled. */
export async function unscheduleRelease(ctx: Ctx, id: string): Promise<ReleaseView> {
  authorizeReleases(ctx, 'update');
  const { view, dropped } = await ctx.db.$transaction(async (tx: Tx) => {
    const release = await lockRelease(tx, ctx, id);
    if (release.status !== 'scheduled') throw conflict(`The release is ${release.status}, not scheduled.`);
    const dropped = await cancelReleaseRuns(tx, ctx, release.uuid);
    const row = await tx.release.update({ where: { id: release.id }, data: { status: 'open', publishAt: null, updatedAt: new Date() }, include: RELEASE_INCLUDE });
    return { view: serializeRelease(row), dropped };
  }, TX_OPTIONS);
  await afterCommit(ctx.services, dropped, null);
  return view;
}

async function afterCommit(services: Services, dropped: string[], run: { id: string; run_at: Date; kind: 'entry' | 'release' } | null): Promise<void> {
  for (const old of dropped) await services.schedules?.cancelled(old);
  if (run) await services.schedules?.enqueue([run]);
}

/**
 * What the schedules domain runs at a release's time. A refused publish (an item fails validation, an
 * entry is gone) has already marked the release `failed` and emitted `release.failed` in
 * publishRelease; it is thrown here so the schedule is marked failed with the same errors. A release
 * that is gone or already published (by hand, or by an earlier run whose worker died before recording
 * it) leaves the run done without publishing again.
 */
export const releaseRunner: ReleaseRunner = {
  async publish(services, input) {
    const outcome = await publishRelease(services, { projectId: input.projectId, releaseId: input.releaseId, actor: input.actor, source: input.source });
    if (!outcome.ok && outcome.release) throw validationFailed(outcome.errors, outcome.message);
    return outcome;
  },
};
