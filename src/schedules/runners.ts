import type { Actor, Services } from '../context.ts';

/**
 * Publishes a release when its schedule comes (the composition root plugs in the releases domain's
 * publish). It runs in its own transaction, all or nothing, and must be idempotent: a release already
 * published by an earlier run of the same schedule (its worker died before recording it) resolves
 * without publishing again. A refusal (an item fails validation, an entry is gone) throws the AppError
 * the API would answer with; the schedule is then marked failed with its `errors`.
 */
export type ReleasePublisher = (services: Services, input: { projectId: number; releaseId: string; actor: Actor }) => Promise<unknown>;

/**
 * Records a release's failed scheduled publish (status `failed`, its errors, `release.failed`), in one
 * transaction. Called after the schedule is marked failed; optional until releases are wired in.
 */
export type ReleaseFailureRecorder = (services: Services, input: { projectId: number; releaseId: string; errors: Record<string, string[]>; message: string }) => Promise<void>;

/** What runs the `release` kind: handed to the schedule runtime by the composition root. */
export interface ReleaseRunner {
  publish: ReleasePublisher;
  failed?: ReleaseFailureRecorder;
}

/** The actor scheduled runs act as: no token acts at run time, so versions carry no creating token. */
export const SCHEDULER_ACTOR: Actor = { kind: 'system', name: 'scheduler' };
