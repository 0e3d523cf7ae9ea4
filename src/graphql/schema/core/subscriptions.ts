import { builder } from '../common/builder.ts';
import { EntryType } from './entry/types.ts';
import { authorize } from '../../../context.ts';
import { collectionForRequest } from '../../../collections/schema-cache.ts';
import type { EntryResource } from '../../../entries/types.ts';
import type { OutboxChange } from '../../../live/stream.ts';
import { currentView } from '../../../live/shape.ts';
import { CONTENT_EVENTS, type ContentEventName } from '../../../events/names.ts';
import { attachLive, lastEventIdOf } from '../../subscriptions/sse.ts';
import { liveRenderer, liveSource, shapeKeyOf, REVISION_DOC, UPDATED_AT_DOC } from '../../subscriptions/execute.ts';

/** `content.created` → `CREATED`: the webhook event names as a GraphQL enum. */
export const ContentEventEnum = builder.enumType('ContentEvent', {
  description: 'What happened to an entry (the webhook event of the same name, e.g. CREATED = content.created).',
  values: Object.fromEntries(CONTENT_EVENTS.map((e) => [e.slice('content.'.length).toUpperCase(), { value: e }])) as Record<string, { value: ContentEventName }>,
});

interface EntryChange {
  change: OutboxChange;
  entry: EntryResource | null;
}

const EntryChangeType = builder.objectRef<EntryChange>('EntryChange').implement({
  description: 'A committed change of an entry, in commit order. `id` is the SSE event id (resume with Last-Event-ID).',
  fields: (t) => ({
    id: t.id({ resolve: (c) => String(c.change.id) }),
    event: t.field({ type: ContentEventEnum, resolve: (c) => c.change.event }),
    uuid: t.string({ resolve: (c) => c.change.entryUuid }),
    locale: t.string({ resolve: (c) => c.change.locale }),
    versionNumber: t.int({ nullable: true, resolve: (c) => c.entry?.published_version_number ?? null }),
    revision: t.int({ nullable: true, description: REVISION_DOC, resolve: (c) => c.change.revision }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, description: UPDATED_AT_DOC, resolve: (c) => c.change.updatedAt }),
    entry: t.field({
      type: EntryType,
      nullable: true,
      description: 'The working draft as the change left it (what the webhook payload carries); null for DELETED.',
      resolve: (c) => c.entry,
    }),
  }),
});

builder.subscriptionType({});

builder.subscriptionField('entryChanged', (t) =>
  t.field({
    type: EntryChangeType,
    description: 'Committed changes of one collection\'s entries, over Server-Sent Events (docs/graphql.md, "Subscriptions"). Needs `read`.',
    extensions: { ability: 'read' },
    args: {
      collection: t.arg.string({ required: true }),
      events: t.arg({ type: [ContentEventEnum], description: 'Only these events (all when omitted).' }),
    },
    subscribe: async (_root, args, c) => {
      const ctx = await c.auth();
      // Before the collection lookup: without `read`, a 404 would tell which collections exist.
      authorize(ctx, 'read');
      const collection = await collectionForRequest(ctx, args.collection);
      const events = args.events?.length ? new Set(args.events) : undefined;
      const render = liveRenderer<EntryChange>(c, async (change) => ({ payload: { change, entry: change.entry ? currentView(collection, change.entry) : null } }));
      const shape = { projectId: ctx.project.id, collectionId: collection.id, events, key: shapeKeyOf(c, ctx) };
      const sub = await c.services.live.subscribe(ctx, shape, render, lastEventIdOf(c));
      attachLive(c.request, sub);
      return liveSource(c, sub);
    },
    // Runs in the group's one execution per change (src/graphql/subscriptions/execute.ts), on the payload as root.
    resolve: (change) => change as never,
  }),
);
