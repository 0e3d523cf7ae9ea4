import { builder } from '../../common/builder.ts';
import { edgeType } from '../../common/page-info.ts';
import { versionCount, versionDiff, versionSnapshot, type VersionConnection } from '../../../../entries/versions/batched.ts';
import type { CreatedBy, VersionRecord } from '../../../../entries/versions/serialize.ts';
import type { FieldChange, FieldValue } from '../../../../entries/versions/diff.ts';
import type { VersionDiff } from '../../../../entries/versions/operations.ts';
import type { Snapshot } from '../../../../entries/store/mint.ts';


const VersionCreatorType = builder.objectRef<CreatedBy>('VersionCreator').implement({
  description: 'The API token that published the version.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
  }),
});

const SnapshotMetaType = builder.objectRef<Snapshot['meta']>('VersionSnapshotMeta').implement({
  fields: (t) => ({
    locale: t.exposeString('locale'),
    translationGroupId: t.int({ nullable: true, resolve: (m) => m.translation_group_id }),
  }),
});

const SnapshotType = builder.objectRef<Snapshot>('VersionSnapshot').implement({
  description: 'The immutable published content: field values in the write shape (password and `hiddenInAPI` fields never included).',
  fields: (t) => ({
    fields: t.field({ type: 'JSON', resolve: (s) => s.fields }),
    meta: t.field({ type: SnapshotMetaType, resolve: (s) => s.meta }),
  }),
});

const FieldValueType = builder.objectRef<FieldValue>('VersionFieldValue').implement({
  fields: (t) => ({
    field: t.exposeString('field'),
    value: t.field({ type: 'JSON', nullable: true, resolve: (v) => v.value }),
  }),
});

const FieldChangeType = builder.objectRef<FieldChange>('VersionFieldChange').implement({
  fields: (t) => ({
    field: t.exposeString('field'),
    from: t.field({ type: 'JSON', nullable: true, resolve: (v) => v.from }),
    to: t.field({ type: 'JSON', nullable: true, resolve: (v) => v.to }),
  }),
});

const DiffType = builder.objectRef<VersionDiff>('VersionDiff').implement({
  description: 'Field-by-field difference between two snapshots of one entry (top-level fields; null counts as no value).',
  fields: (t) => ({
    from: t.exposeInt('from'),
    to: t.exposeInt('to'),
    added: t.field({ type: [FieldValueType], description: 'Fields with a value in `to` only.', resolve: (d) => d.added }),
    removed: t.field({ type: [FieldValueType], description: 'Fields with a value in `from` only.', resolve: (d) => d.removed }),
    changed: t.field({ type: [FieldChangeType], resolve: (d) => d.changed }),
  }),
});

export const EntryVersionType = builder.objectRef<VersionRecord>('EntryVersion').implement({
  description: 'An immutable published snapshot of one entry in one locale: its content never changes, only its label and description.',
  fields: (t) => ({
    uuid: t.id({ resolve: (v) => v.row.uuid }),
    versionNumber: t.int({ resolve: (v) => v.row.versionNumber }),
    label: t.string({ nullable: true, resolve: (v) => v.row.label }),
    description: t.string({ nullable: true, resolve: (v) => v.row.description }),
    locale: t.string({ resolve: (v) => v.row.locale }),
    translationGroupId: t.int({ nullable: true, resolve: (v) => v.row.translationGroupId }),
    publishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.row.publishedAt }),
    createdAt: t.field({ type: 'DateTime', resolve: (v) => v.row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (v) => v.row.updatedAt }),
    createdBy: t.field({ type: VersionCreatorType, nullable: true, resolve: (v) => v.createdBy }),
    isCurrentPublished: t.boolean({ resolve: (v) => v.currentVersionId === v.row.id }),
    // Content, so it needs `read` even on a mutation's result: nullable, so a token without it gets
    // null and a FORBIDDEN error on this field alone while the rest of the result (and the write) stands.
    snapshot: t.field({
      type: SnapshotType,
      nullable: true,
      description: 'The published content (needs `read`; hidden and password fields never included).',
      resolve: async (v, _args, c) => versionSnapshot(await c.auth(), v),
    }),
    diff: t.field({
      type: DiffType,
      nullable: true,
      description: 'Compares this version with version `to` of the same entry (needs `read`).',
      args: { to: t.arg.int({ required: true }) },
      resolve: async (v, args, c) => versionDiff(await c.auth(), v, args.to),
    }),
  }),
});

const versionCursor = (v: VersionRecord): string => String(v.row.versionNumber);

/** The Relay fields of `PageInfo`, for a list that pages forward by cursor only. */
const PageInfoType = builder.objectRef<VersionConnection>('EntryVersionPageInfo').implement({
  fields: (t) => ({
    hasNextPage: t.boolean({ resolve: (c) => c.hasNextPage }),
    hasPreviousPage: t.boolean({ description: 'Always false: versions page forward only (first / after), which Relay allows.', resolve: () => false }),
    startCursor: t.string({ nullable: true, resolve: (c) => (c.nodes[0] ? versionCursor(c.nodes[0]) : null) }),
    endCursor: t.string({ nullable: true, description: 'Pass as `after` for the next (older) page.', resolve: (c) => c.endCursor }),
  }),
});

const EntryVersionEdgeType = edgeType('EntryVersionEdge', EntryVersionType);

export const EntryVersionConnectionType = builder.objectRef<VersionConnection>('EntryVersionConnection').implement({
  description: 'A page of versions, newest first. Cursors are version numbers, so pages stay stable while new versions are published.',
  fields: (t) => ({
    nodes: t.field({ type: [EntryVersionType], resolve: (c) => c.nodes }),
    edges: t.field({ type: [EntryVersionEdgeType], resolve: (c) => c.nodes.map((node) => ({ cursor: versionCursor(node), node })) }),
    pageInfo: t.field({ type: PageInfoType, resolve: (c) => c }),
    totalCount: t.int({ description: 'Versions kept for the entry (after retention).', resolve: async (c, _args, ctx) => versionCount(await ctx.auth(), c.entryId) }),
  }),
});
