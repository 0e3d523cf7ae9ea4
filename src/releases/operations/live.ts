import { authorize, type Ctx } from '../../context.ts';
import { forbidden } from '../../errors.ts';
import type { ReleaseView } from '../model.ts';

/**
 * Who may follow a project's release events live (docs/releases.md, "Live subscriptions"). Reading
 * releases needs `read`, and so does following them. A release names entries of any collection (its
 * items, its errors), and its events are all-or-nothing records of one commit, so a token limited to
 * some collections (a scoped or preview token with `collections`) is refused rather than shown a
 * release trimmed to its collections: a trimmed release would misstate what went live together.
 */
export function authorizeReleaseEvents(ctx: Ctx): void {
  authorize(ctx, 'read');
  if (ctx.scope?.collections) {
    throw forbidden('Forbidden. Release events name entries of every collection; a token limited to collections cannot follow them.');
  }
}

/**
 * Whether a subscriber is shown an event of `release`: a preview token tied to a release reads that
 * release only (src/collections/token-scope.ts, requireReadView), so it hears of that one only.
 */
export function releaseEventShown(ctx: Pick<Ctx, 'scope'>, release: Pick<ReleaseView, 'id'>): boolean {
  const only = ctx.scope?.preview ? ctx.scope.release : null;
  return only === null || only === undefined || release.id.toLowerCase() === only;
}
