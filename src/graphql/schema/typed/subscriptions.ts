import type { EnumRef } from '@pothos/core';
import { authorize } from '../../../context.ts';
import { collectionForRequest } from '../../../collections/schema-cache.ts';
import type { EntryResource, ReadState } from '../../../entries/types.ts';
import { readChangedEntry } from '../../../live/entry.ts';
import type { OutboxChange } from '../../../live/stream.ts';
import type { ContentEventName } from '../../../events/names.ts';
import type { TypedBuilder, TypedTypes } from './builder.ts';
import type { CollectionLayout } from './layout.ts';
import type { CollectionInputs } from './inputs.ts';
import type { TypeRefs } from './entry-types.ts';
import type { NameRegistry } from './names.ts';
import { toNormalisedWhere } from './convert.ts';
import { typedEntry, type TypedEntry } from './model.ts';
import { attachLive, lastEventIdOf } from '../../subscriptions/sse.ts';
import { liveRenderer, liveSource, shapeKeyOf, REVISION_DOC, UPDATED_AT_DOC } from '../../subscriptions/execute.ts';

type T = PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>;

interface TypedChange {
  change: OutboxChange;
  /** Whether the entry matches the subscription's state and `where` after the change. */
  matches: boolean;
  entry: TypedEntry | null;
}

/** Events after which an entry can have left a subscription's view without a `where` to say so. */
const LEAVING: ReadonlySet<ContentEventName> = new Set(['content.deleted', 'content.trashed', 'content.unpublished']);

/**
 * Whether every member must hear that the entry left the view of `state`, even one never shown it:
 * a published view hears of a trashed entry only when the trash took published content from it
 * (the committed row still points at a published version), never of a draft-only one.
 */
function leftView(change: OutboxChange, state: ReadState): boolean {
  if (!LEAVING.has(change.event)) return false;
  if (state === 'published' && change.event === 'content.trashed') return change.committed?.published_version_id != null;
  // Likewise of a deletion only when the deleted row had published content (unknown on rows
  // recorded before the event said: told, as before).
  if (state === 'published' && change.event === 'content.deleted') return change.removedPublished !== false;
  return true;
}

/**
 * `<type>Changed(where, state, events)` per collection (docs/graphql.md, "Subscriptions"): the typed
 * entry as a read of `state` filtered by `where` showed it right after the change committed (the row
 * the commit wrote, src/live/entry.ts), through the same conditions and serializer as `posts(where:)`.
 * An entry this subscription was shown that no longer matches gets one last event with
 * `matches: false` and no entry. A published view gets no event for a draft save.
 */
export function defineSubscriptions(b: TypedBuilder, types: NameRegistry, layouts: CollectionLayout[], refs: TypeRefs, inputs: Map<number, CollectionInputs>): void {
  const contentEvent = 'ContentEvent' as unknown as EnumRef<T, ContentEventName>;
  const { entryState } = refs.shared;
  for (const l of layouts) {
    const slug = l.schema.slug;
    const entryRef = refs.entries.get(l.schema.id)!;
    const io = inputs.get(l.schema.id)!;
    const payload = b.objectRef<TypedChange>(types.claim(`${l.names.type}Change`)).implement({
      description: `A committed change of a "${l.schema.name}" entry. \`id\` is the SSE event id (resume with Last-Event-ID).`,
      fields: (t) => ({
        id: t.id({ nullable: false, resolve: (c) => String(c.change.id) }),
        event: t.field({ type: contentEvent, nullable: false, resolve: (c) => c.change.event }),
        uuid: t.string({ nullable: false, resolve: (c) => c.change.entryUuid }),
        locale: t.string({ nullable: false, resolve: (c) => c.change.locale }),
        versionNumber: t.int({ nullable: true, resolve: (c) => c.entry?.resource.published_version_number ?? null }),
        revision: t.int({ nullable: true, description: REVISION_DOC, resolve: (c) => c.change.revision }),
        updatedAt: t.field({ type: 'DateTime', nullable: true, description: UPDATED_AT_DOC, resolve: (c) => c.change.updatedAt }),
        matches: t.boolean({ nullable: false, description: 'False on the last event of an entry that left the filter (or was deleted).', resolve: (c) => c.matches }),
        entry: t.field({ type: entryRef, nullable: true, resolve: (c) => c.entry }),
      }),
    });
    b.subscriptionField(`${l.names.single}Changed`, (t) =>
      t.field({
        type: payload,
        nullable: false,
        description: `Committed changes of "${l.schema.name}" entries over Server-Sent Events. Needs \`read\`.`,
        extensions: { ability: 'read' },
        args: {
          where: t.arg({ type: io.where }),
          state: t.arg({ type: entryState, defaultValue: 'published' }),
          events: t.arg({ type: [contentEvent] }),
        },
        subscribe: async (_root, args, c) => {
          const ctx = await c.auth();
          authorize(ctx, 'read');
          const collection = await collectionForRequest(ctx, slug);
          const state: ReadState = args.state ?? 'published';
          const where = args.where ? toNormalisedWhere(args.where, io.wherePlan) : undefined;
          const whereKey = JSON.stringify(where ?? null);
          const events = args.events?.length ? new Set(args.events) : undefined;
          const render = liveRenderer<TypedChange>(c, async (change, rctx) => {
            // A draft save leaves the published copy as it was: nothing for a published view to show.
            if (state === 'published' && change.event === 'content.updated') return null;
            const key = `${change.entryUuid}|${change.locale}`;
            const entry: EntryResource | null = change.event === 'content.deleted' ? null : await readChangedEntry(rctx, collection, change, state, where, whereKey, c.services.live.reads);
            if (entry) return { payload: { change, matches: true, entry: typedEntry(entry, state) }, shows: key };
            // Said to the members that were shown the entry (src/live/group.ts), or to all when nothing
            // else could tell them it is gone.
            return { payload: { change, matches: false, entry: null }, leaves: key, toAll: !where && leftView(change, state) };
          });
          const shape = { projectId: ctx.project.id, collectionId: collection.id, events, key: shapeKeyOf(c, ctx) };
          const sub = await c.services.live.subscribe(ctx, shape, render, lastEventIdOf(c));
          attachLive(c.request, sub);
          return liveSource(c, sub);
        },
        // Runs in the group's one execution per change (src/graphql/subscriptions/execute.ts), on the payload as root.
        resolve: (c) => c as never,
      }),
    );
  }
}
