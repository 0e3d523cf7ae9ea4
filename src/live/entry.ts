import type { Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { listEntries } from '../content/list.ts';
import type { EntryResource, ReadState } from '../content/types.ts';
import type { OutboxChange } from './stream.ts';

/**
 * Evaluations shared by the subscribers that ask the same question of the same change (same state,
 * same filter): a thousand subscribers of one filter cost one read per change, not a thousand. What
 * a read shows does not depend on the token (visibility is per field; `read` was checked when each
 * subscribed), so sharing across tokens shows nobody more than their own read would.
 */
const pending = new Map<string, Promise<EntryResource | null>>();

/**
 * The entry a change is about, as a read of `state` (filtered by `where`, the list query's filter)
 * shows it right after the change: null when it is gone or does not match. A fresh per-read memo so
 * DataLoaders never answer from an earlier change.
 */
export function readChangedEntry(ctx: Ctx, collection: CollectionSchema, change: OutboxChange, state: ReadState, where: unknown, whereKey: string): Promise<EntryResource | null> {
  const key = `${change.id}|${state}|${whereKey}`;
  let hit = pending.get(key);
  if (!hit) {
    const byUuid = { uuid: { eq: change.entryUuid } };
    hit = listEntries({ ...ctx, memo: new Map() }, collection.slug, {
      state,
      locale: change.locale,
      where: where ? { and: [byUuid, where] } : byUuid,
      limit: 1,
      timestamps: true,
    }).then((r) => (r.kind === 'array' ? (r.data[0] ?? null) : r.kind === 'one' ? r.entry : null));
    pending.set(key, hit);
    // Subscribers of one change ask within moments of each other; the memo must not grow.
    const forget = () => setTimeout(() => pending.delete(key), 2000).unref();
    hit.then(forget, forget);
  }
  return hit;
}
