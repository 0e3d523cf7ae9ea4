import { authorize, type Ctx, type TokenScope } from './context.ts';
import { forbidden } from './errors.ts';

/**
 * How far a token limited to collections or fields reaches on the administration routes
 * (docs/auth.md, "API tokens"). Content routes apply the limit through src/collections/token-scope.ts;
 * these are the rules for everything else, written once and read by every domain that administers
 * something (webhooks, collections and fields, the project, schema documents, tokens, end users):
 *
 * - What belongs to no single collection (project settings and locales, schema documents, exports,
 *   trusted documents, tokens, end users) reaches every collection's content or changes what every
 *   collection is: a limited token is refused (403), however many abilities it holds.
 * - What names collections (a webhook) is within the limit when every collection it names is in the
 *   token's collections and whole (no field limit): a webhook sends each entry with all its fields, so
 *   one on a field-limited collection would hand out the very fields the token may not read. A webhook
 *   naming no collection fires for all of them, so it is never within a limit.
 */

/** What belongs to the whole project, as refusals name it (routes declare it in their table row, operations check it). */
export const WHOLE_PROJECT = {
  project: 'Project settings and locales',
  tokens: 'Tokens',
  users: 'End users',
  trustedDocuments: 'Trusted documents',
  schema: 'Schema documents',
  exports: 'Exports and imports',
  releases: 'Releases',
  newCollections: 'New collections',
  collectionOrder: 'The order of all collections',
} as const;
export type WholeProjectThing = (typeof WHOLE_PROJECT)[keyof typeof WHOLE_PROJECT];

/** Whether the caller's token is limited to some collections or fields (preview and delivery tokens without such limits are not). */
export const limitedToContent = (scope: Pick<TokenScope, 'collections' | 'fields'> | undefined): boolean =>
  !!scope && (scope.collections !== null || scope.fields.size > 0);

/** 403 for a token limited to collections or fields: `what` belongs to the whole project. */
export function requireWholeProject(ctx: Pick<Ctx, 'scope'>, what: WholeProjectThing): void {
  if (limitedToContent(ctx.scope)) {
    throw forbidden(`Forbidden. ${what} belong to the whole project; a token limited to collections or fields cannot use them.`);
  }
}

/** The `admin` ability over something of the whole project (`what`, plural): also no collection or field limit. */
export function authorizeProjectAdmin(ctx: Ctx, what: WholeProjectThing): void {
  authorize(ctx, 'admin');
  requireWholeProject(ctx, what);
}

/**
 * Whether everything of the collections named by `slugs` is within the caller's limit: each in its
 * collections with no field limit. `every` (a webhook with no collections) reaches all collections,
 * including ones created later, so it is within no limit.
 */
export function collectionsWhollyInScope(scope: Pick<TokenScope, 'collections' | 'fields'> | undefined, slugs: readonly string[] | 'every'): boolean {
  if (!limitedToContent(scope)) return true;
  if (slugs === 'every') return false;
  return slugs.every((slug) => (scope!.collections === null || scope!.collections.has(slug)) && !scope!.fields.has(slug));
}
