import { builder } from '../common/builder.ts';
import { RELEASE_OPERATION } from '../common/release-fields.ts';
import { ReleaseType } from './release.ts';
import type { ReleaseView } from '../../../releases/model.ts';
import { authorizeReleases, releaseEventShown } from '../../../releases/operations/access.ts';
import type { ReleaseChange as LiveReleaseChange } from '../../../live/stream.ts';
import { RELEASE_EVENTS, type ReleaseEventName } from '../../../events/names.ts';
import { attachLive, lastEventIdOf } from '../../subscriptions/sse.ts';
import { liveRenderer, liveSource, shapeKeyOf } from '../../subscriptions/execute.ts';

/** `release.published` → `PUBLISHED`: the webhook event names as a GraphQL enum. */
const ReleaseEventEnum = builder.enumType('ReleaseEvent', {
  description: 'What happened to a release (the webhook event of the same name, e.g. PUBLISHED = release.published).',
  values: Object.fromEntries(RELEASE_EVENTS.map((e) => [e.slice('release.'.length).toUpperCase(), { value: e }])) as Record<string, { value: ReleaseEventName }>,
});

interface ReleaseChangePayload {
  change: LiveReleaseChange;
  release: ReleaseView;
}

const ReleaseChangeType = builder.objectRef<ReleaseChangePayload>('ReleaseChange').implement({
  description: 'A committed release event, in commit order. `id` is the SSE event id (resume with Last-Event-ID).',
  fields: (t) => ({
    id: t.id({ resolve: (c) => String(c.change.id) }),
    event: t.field({ type: ReleaseEventEnum, resolve: (c) => c.change.event }),
    release: t.field({
      type: ReleaseType,
      description: 'The release as the event\'s commit left it (what the webhook payload carries).',
      resolve: (c) => c.release,
    }),
  }),
});

builder.subscriptionField('releaseChanged', (t) =>
  t.field({
    type: ReleaseChangeType,
    description:
      'The project\'s release events (published, failed, scheduled), over Server-Sent Events (docs/graphql.md, "Subscriptions"). Needs `read`; not in the schema of a token limited to collections.',
    extensions: { ability: 'read', ...RELEASE_OPERATION },
    args: {
      events: t.arg({ type: [ReleaseEventEnum], description: 'Only these events (all when omitted).' }),
    },
    subscribe: async (_root, args, c) => {
      const ctx = await c.auth();
      authorizeReleases(ctx, 'read');
      const events = args.events?.length ? new Set(args.events) : undefined;
      // The outbox holds what serializeRelease wrote (src/releases/model.ts), as JSON.
      const render = liveRenderer<ReleaseChangePayload, LiveReleaseChange>(c, async (change, rctx) => {
        const release = change.release as unknown as ReleaseView;
        return releaseEventShown(rctx, release) ? { payload: { change, release } } : null;
      });
      const shape = { projectId: ctx.project.id, events, key: shapeKeyOf(c, ctx) };
      const sub = await c.services.live.subscribeReleases(ctx, shape, render, lastEventIdOf(c));
      attachLive(c.request, sub);
      return liveSource(c, sub);
    },
    // Runs in the group's one execution per change (src/graphql/subscriptions/execute.ts), on the payload as root.
    resolve: (change) => change as never,
  }),
);
