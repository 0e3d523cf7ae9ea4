import { builder } from '../common/builder.ts';
import { RELEASE_OPERATION } from '../common/release-fields.ts';
import { PageInfoType, pagePosition, type PagePosition } from '../common/page-info.ts';
import { ITEM_ACTIONS, RELEASE_STATUSES, type ItemAction, type ReleaseItemView, type ReleaseStatus, type ReleaseView } from '../../../releases/model.ts';
import { addReleaseItems, createRelease, deleteRelease, getRelease, listReleases, removeReleaseItem, updateRelease } from '../../../releases/operations/crud.ts';
import { scheduleRelease, unscheduleRelease } from '../../../releases/operations/schedule.ts';
import { publishReleaseNow } from '../../../releases/operations/publish.ts';

/** Releases: the GraphQL twin of src/rest/release-routes.ts (same operations, abilities and errors). */

const enumValues = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v }])) as Record<string, { value: T }>;

const ReleaseStatusEnum = builder.enumType('ReleaseStatus', { values: enumValues<ReleaseStatus>(RELEASE_STATUSES) });
const ReleaseItemActionEnum = builder.enumType('ReleaseItemAction', {
  description: 'PUBLISH: the entry\'s working draft goes live with the release; UNPUBLISH: the entry goes back to draft.',
  values: enumValues<ItemAction>(ITEM_ACTIONS),
});

const ReleaseItemType = builder.objectRef<ReleaseItemView>('ReleaseItem').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    collection: t.exposeString('collection', { description: 'The collection slug.' }),
    uuid: t.exposeID('uuid', { description: 'The entry.' }),
    action: t.field({ type: ReleaseItemActionEnum, resolve: (i) => i.action }),
    locale: t.exposeString('locale', { nullable: true }),
    version: t.exposeInt('version', { nullable: true, description: 'The version the release published (publish items of a published release).' }),
  }),
});

export const ReleaseType = builder.objectRef<ReleaseView>('Release').implement({
  description: 'Entries of any collections published or unpublished together, in one transaction (docs/releases.md).',
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    status: t.field({ type: ReleaseStatusEnum, resolve: (r) => r.status }),
    publishAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.publish_at }),
    publishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.published_at }),
    items: t.field({ type: [ReleaseItemType], resolve: (r) => r.items }),
    errors: t.field({ type: 'JSON', nullable: true, description: 'The last failed publish: `items.<n>.<field>` to messages.', resolve: (r) => r.errors }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (r) => r.updated_at }),
  }),
});

const ReleasePageType = builder.objectRef<{ data: ReleaseView[]; position: PagePosition }>('ReleasePage').implement({
  fields: (t) => ({
    data: t.field({ type: [ReleaseType], resolve: (p) => p.data }),
    pageInfo: t.field({ type: PageInfoType, resolve: (p) => p.position }),
  }),
});

const ReleaseItemInput = builder.inputType('ReleaseItemInput', {
  fields: (t) => ({
    collection: t.string({ required: true, description: 'The collection slug.' }),
    uuid: t.id({ required: true, description: 'The entry.' }),
    action: t.field({ type: ReleaseItemActionEnum, required: true }),
    locale: t.string(),
  }),
});

builder.queryFields((t) => ({
  releases: t.field({
    nullable: true,
    extensions: { ability: 'read', ...RELEASE_OPERATION },
    type: ReleasePageType,
    description: 'The project\'s releases, newest first. perPage defaults to 25 and is capped at 100.',
    args: { status: t.arg({ type: ReleaseStatusEnum }), page: t.arg.int(), perPage: t.arg.int() },
    resolve: async (_root, args, context) => {
      const query: Record<string, unknown> = {};
      if (args.status) query.status = args.status;
      if (args.page !== null && args.page !== undefined) query.page = String(args.page);
      if (args.perPage !== null && args.perPage !== undefined) query.paginate = String(args.perPage);
      const r = await listReleases(await context.auth(), query);
      return { data: r.data, position: pagePosition(r.total, r.page, r.perPage, r.data.length) };
    },
  }),
  release: t.field({
    nullable: true,
    extensions: { ability: 'read', ...RELEASE_OPERATION },
    type: ReleaseType,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => getRelease(await context.auth(), String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createRelease: t.field({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    type: ReleaseType,
    args: { title: t.arg.string({ required: true }), description: t.arg.string() },
    resolve: async (_root, args, context) => createRelease(await context.auth(), { title: args.title, description: args.description }),
  }),
  updateRelease: t.field({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    type: ReleaseType,
    description: 'Omitted arguments keep their value; description: null clears it.',
    args: { id: t.arg.id({ required: true }), title: t.arg.string(), description: t.arg.string() },
    resolve: async (_root, args, context) => {
      const body: Record<string, unknown> = {};
      if (args.title !== undefined && args.title !== null) body.title = args.title;
      if (args.description !== undefined) body.description = args.description;
      return updateRelease(await context.auth(), String(args.id), body);
    },
  }),
  deleteRelease: t.boolean({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    description: 'A published release cannot be deleted (CONFLICT).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => {
      await deleteRelease(await context.auth(), String(args.id));
      return true;
    },
  }),
  addReleaseItems: t.field({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    type: ReleaseType,
    description: 'At most 100 items per call and 500 per release; an entry appears once per release. Errors are keyed items.<index>.… in extensions.errors.',
    args: { id: t.arg.id({ required: true }), items: t.arg({ type: [ReleaseItemInput], required: true }) },
    resolve: async (_root, args, context) =>
      addReleaseItems(await context.auth(), String(args.id), {
        items: args.items.map((i) => ({ collection: i.collection, uuid: String(i.uuid), action: i.action, ...(i.locale ? { locale: i.locale } : {}) })),
      }),
  }),
  removeReleaseItem: t.field({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    type: ReleaseType,
    args: { id: t.arg.id({ required: true }), itemId: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => removeReleaseItem(await context.auth(), String(args.id), String(args.itemId)),
  }),
  publishRelease: t.field({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    type: ReleaseType,
    description: 'Publishes every item in one transaction; any failing item fails the whole release (errors keyed items.<n>.<field>) and nothing changes.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => publishReleaseNow(await context.auth(), String(args.id)),
  }),
  scheduleRelease: t.field({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    type: ReleaseType,
    description: 'Schedules the release to publish at `publishAt` (in the future); rescheduling replaces the time. The publish runs as publishRelease does; a failure marks the release failed.',
    args: { id: t.arg.id({ required: true }), publishAt: t.arg({ type: 'DateTime', required: true }) },
    resolve: async (_root, args, context) =>
      scheduleRelease(await context.auth(), String(args.id), { publish_at: args.publishAt instanceof Date ? args.publishAt.toISOString() : String(args.publishAt) }),
  }),
  unscheduleRelease: t.field({
    nullable: true,
    extensions: { ability: 'update', ...RELEASE_OPERATION },
    type: ReleaseType,
    description: 'Takes the release off its schedule (back to open).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => unscheduleRelease(await context.auth(), String(args.id)),
  }),
}));
