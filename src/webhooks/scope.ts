import type { TokenScope } from '../context.ts';
import { collectionsWhollyInScope, limitedToContent } from '../admin-scope.ts';
import { CONTENT_EVENTS, SCHEDULE_EVENTS } from '../events/names.ts';

/** Events that are about one collection's entries; the rest (auth.*, release.*) are about the whole project. */
const PER_COLLECTION = new Set<string>([...CONTENT_EVENTS, ...SCHEDULE_EVENTS]);

/**
 * Whether a webhook lies within a token's collection or field limit (src/admin-scope.ts): it names
 * collections, each in the limit and whole, and subscribes to per-collection events only. A limited
 * token sees, changes and creates only such webhooks; for it every other webhook does not exist.
 */
export function webhookWithinLimit(
  scope: Pick<TokenScope, 'collections' | 'fields'> | undefined,
  webhook: { events: readonly string[]; collections: ReadonlyArray<{ collection: { slug: string } }> },
): boolean {
  if (!limitedToContent(scope)) return true;
  if (!webhook.events.every((e) => PER_COLLECTION.has(e))) return false;
  return collectionsWhollyInScope(scope, webhook.collections.length ? webhook.collections.map((c) => c.collection.slug) : 'every');
}
