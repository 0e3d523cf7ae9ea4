import { authorize, type Ctx, type TokenScope } from '../../context.ts';
import type { Ability } from '../../abilities.ts';
import { forbidden } from '../../errors.ts';
import type { ReleaseView } from '../model.ts';

/**
 * Who may read, manage or follow a project's releases (docs/releases.md), on every surface: the
 * token's ability, and no limit to collections. A release names entries of any collection (its items,
 * its errors) and publishes them all or none in one commit, so a token limited to some collections
 * (a scoped or preview token with `collections`) is refused rather than shown or handed a release
 * trimmed to its collections: a trimmed release would misstate what goes live together. Previews of a
 * release (`?release=`) are reads of collections and follow the collection rules instead.
 */
export function authorizeReleases(ctx: Ctx, ability: Ability): void {
  authorize(ctx, ability);
  if (!releasesInScope(ctx.scope)) {
    throw forbidden('Forbidden. Releases name entries of every collection; a token limited to collections cannot read or manage them.');
  }
}

/**
 * Whether a token's scope leaves releases reachable at all (abilities aside). The documents describing
 * what a token may call (its typed GraphQL schema, its OpenAPI document) leave releases out when not.
 */
export const releasesInScope = (scope: Pick<TokenScope, 'collections'> | undefined): boolean => !scope?.collections;

/** The one release a release-bound preview token may see, or null when it may see every release. */
export function onlyRelease(ctx: Pick<Ctx, 'scope'>): string | null {
  return ctx.scope?.preview ? (ctx.scope.release ?? null) : null;
}

/**
 * Whether a subscriber is shown an event of `release`: a preview token tied to a release reads that
 * release only (src/collections/token-scope.ts, requireReadView), so it hears of that one only.
 */
export function releaseEventShown(ctx: Pick<Ctx, 'scope'>, release: Pick<ReleaseView, 'id'>): boolean {
  const only = onlyRelease(ctx);
  return only === null || release.id.toLowerCase() === only;
}
