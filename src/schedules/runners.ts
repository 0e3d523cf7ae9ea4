import type { Actor, EventSource, Services } from '../context.ts';

/**
 * Publishes a release when its schedule comes (the composition root plugs in the releases domain's
 * publish). It runs in its own transaction, all or nothing, and must be idempotent: a release already
 * published by an earlier run of the same schedule (its worker died before recording it) resolves
 * without publishing again. A refusal (an item fails validation, an entry is gone) throws the AppError
 * the API would answer with; the schedule is then marked failed with its `errors`.
 */
export type ReleasePublisher = (services: Services, input: { projectId: number; releaseId: string; actor: Actor; source: EventSource }) => Promise<unknown>;

/** What runs the `release` kind: handed to the schedule runtime by the composition root. */
export interface ReleaseRunner {
  publish: ReleasePublisher;
}

/** The actor scheduled runs act as: no token acts at run time, so versions carry no creating token. */
export const SCHEDULER_ACTOR: Actor = { kind: 'system', name: 'scheduler' };
