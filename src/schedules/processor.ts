import type { Project } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import type { Ctx, Services } from '../context.ts';
import type { Logger } from '../logger.ts';
import { isAppError, type AppError, type FieldErrors } from '../errors.ts';
import { loadCollectionById } from '../collections/model.ts';
import { publishEntryInTransaction, unpublishEntryInTransaction } from '../entries/operations/publish.ts';
import { emitScheduleEvent } from '../events/outbox.ts';
import type { ScheduleOptions } from './options.ts';
import { SCHEDULER_ACTOR, type ReleaseRunner } from './runners.ts';
import { claimDue, claimLeased, finish, statusOf, type ScheduleKind, type ScheduleRow } from './store.ts';
import { scheduleResource } from './serialize.ts';

export type RunOutcome =
  | { result: 'done' | 'failed' | 'skipped' }
  /** The job came before its time (a clock ahead of the database's): run it again at `at`. */
  | { result: 'early'; at: Date };

/** Transactions of a scheduled entry run wait their turn behind other writes of the entry, as a publish does. */
const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;

/**
 * Runs one schedule by id, whoever woke it (BullMQ worker, the runner without Redis, a sweep). The
 * database decides whether it is still due; running it twice, from two workers or twice from one,
 * runs the action once.
 */
export class ScheduleProcessor {
  constructor(
    private readonly services: () => Services,
    private readonly options: ScheduleOptions,
    private readonly releases: () => ReleaseRunner | undefined,
    private readonly log: Logger,
  ) {}

  async run(id: string, kind: ScheduleKind): Promise<RunOutcome> {
    // The claim itself says whether the schedule is due: the common case costs one transaction.
    if (kind === 'release' && !this.releases()) {
      // Left pending: the next worker that knows releases runs it.
      this.log.warn({ schedule: id }, 'a release schedule is due but this process runs no releases');
      return { result: 'skipped' };
    }
    const outcome = kind === 'release' ? await this.runRelease(id) : await this.runEntry(id);
    if (outcome.result !== 'skipped') return outcome;
    // Not claimed: already run or cancelled, or not yet due by the database's clock (then try again at its time).
    const row = await statusOf(this.services().database.prisma, id);
    if (row?.status === 'scheduled') return { result: 'early', at: new Date(Math.max(row.run_at.getTime(), Date.now() + 100)) };
    return outcome;
  }

  /**
   * Claim and action in one transaction: the claim's row lock keeps every other worker out until the
   * commit, and a crash rolls both back, leaving the schedule pending for the next worker.
   */
  private async runEntry(id: string): Promise<RunOutcome> {
    const services = this.services();
    const held: { claimed?: ScheduleRow } = {};
    const started = Date.now();
    try {
      const ran = await services.database.prisma.$transaction(async (tx) => {
        const claimed = await claimDue(tx, id, 'entry');
        if (!claimed) return false;
        held.claimed = claimed;
        const ctx = await this.ctxFor(tx, claimed);
        const collection = await loadCollectionById(tx, claimed.project_id, claimed.collection_id!);
        if (claimed.action === 'publish') await publishEntryInTransaction(tx, ctx, collection, claimed.entry_uuid!);
        else await unpublishEntryInTransaction(tx, ctx, collection, claimed.entry_uuid!);
        await finish(tx, id, 'running', { status: 'done' });
        return true;
      }, TX_OPTIONS);
      if (ran) this.log.info({ schedule: id, late_ms: started - held.claimed!.run_at.getTime(), took_ms: Date.now() - started }, 'scheduled action ran');
      return { result: ran ? 'done' : 'skipped' };
    } catch (err) {
      if (!refusal(err) || !held.claimed) throw err;
      return this.failEntry(held.claimed, err);
    }
  }

  /** The action was refused: nothing it did committed; the schedule becomes failed, with an event, once. */
  private async failEntry(row: ScheduleRow, err: AppError): Promise<RunOutcome> {
    const services = this.services();
    const errors = errorsOf(err);
    const failed = await services.database.prisma.$transaction(async (tx) => {
      const marked = await finish(tx, row.id, 'scheduled', { status: 'failed', errors });
      if (!marked) return false;
      const ctx = await this.ctxFor(tx, marked);
      const collection = await collectionNamed(tx, marked);
      await emitScheduleEvent(tx, ctx, 'schedule.failed', {
        collectionId: marked.collection_id,
        entryUuid: marked.entry_uuid,
        data: { collection, entry_uuid: marked.entry_uuid, locale: marked.locale, schedule: scheduleResource(marked), message: err.message, errors },
      });
      return true;
    });
    if (failed) this.log.warn({ schedule: row.id, err: err.message }, 'scheduled action failed');
    return { result: failed ? 'failed' : 'skipped' };
  }

  private async runRelease(id: string): Promise<RunOutcome> {
    const runner = this.releases()!;
    const services = this.services();
    const db = services.database.prisma;
    const claimed = await claimLeased(db, id, this.options.leaseMs);
    if (!claimed) return { result: 'skipped' };
    try {
      await runner.publish(services, { projectId: claimed.project_id, releaseId: claimed.release_id!, actor: SCHEDULER_ACTOR, source: claimed.source });
    } catch (err) {
      if (!refusal(err)) throw err;
      const errors = errorsOf(err);
      const marked = await finish(db, id, 'running', { status: 'failed', errors });
      this.log.warn({ schedule: id, release: claimed.release_id, err: err.message }, 'scheduled release failed');
      return { result: marked ? 'failed' : 'skipped' };
    }
    await finish(db, id, 'running', { status: 'done' });
    return { result: 'done' };
  }

  private async ctxFor(tx: Tx, row: ScheduleRow): Promise<Ctx> {
    const project: Project = await tx.project.findUniqueOrThrow({ where: { id: row.project_id } });
    const services = this.services();
    return {
      services,
      db: services.database.prisma,
      project,
      actor: SCHEDULER_ACTOR,
      source: row.source,
      log: this.log.child({ schedule: row.id }),
      memo: new Map(),
    };
  }
}

/**
 * The schedule's collection as content events name it (`{ id, uuid, slug }`). A run fails when the
 * collection was deleted meanwhile; its id is all that is left to name it then.
 */
async function collectionNamed(tx: Tx, row: ScheduleRow): Promise<{ id: number; uuid: string | null; slug: string | null } | null> {
  if (row.collection_id === null) return null;
  const found = await tx.collection.findFirst({ where: { id: row.collection_id, projectId: row.project_id }, select: { id: true, uuid: true, slug: true } });
  return found ?? { id: row.collection_id, uuid: null, slug: null };
}

/** A refusal the API would answer with a 4xx: the action cannot run as scheduled. Anything else is retried. */
function refusal(err: unknown): err is AppError {
  return isAppError(err) && err.status >= 400 && err.status < 500 && err.status !== 429;
}

function errorsOf(err: AppError): FieldErrors {
  return err.errors ?? { schedule: [err.message] };
}
