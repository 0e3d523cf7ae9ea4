import { builder } from '../../common/builder.ts';
import { EntryType } from '../entry/types.ts';
import type { EntryResource } from '../../../../entries/reads/serialize.ts';
import { publishEntry, revertToVersion, unpublishEntry } from '../../../../entries/operations/publish.ts';
import type { VersionRecord } from '../../../../entries/versions/serialize.ts';
import type { SkippedReference } from '../../../../entries/operations/restore.ts';
import { EntryVersionType } from './types.ts';

interface PublishPayload {
  message: string;
  versionNumber: number;
  entry: EntryResource;
}
interface UnpublishPayload {
  message: string;
  entry: EntryResource;
}
interface RevertPayload {
  message: string;
  version: VersionRecord;
  entry: EntryResource;
  skipped: SkippedReference[];
}

const SkippedType = builder.objectRef<SkippedReference>('SkippedReference').implement({
  description: 'A relation or media reference left out of a reverted draft because its target no longer exists.',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'Path of the value, e.g. `author` or `blocks.2.image`.' }),
    uuid: t.exposeString('uuid'),
  }),
});

const PublishPayloadType = builder.objectRef<PublishPayload>('PublishEntryPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    versionNumber: t.exposeInt('versionNumber'),
    entry: t.field({ type: EntryType, resolve: (p) => p.entry }),
  }),
});

const UnpublishPayloadType = builder.objectRef<UnpublishPayload>('UnpublishEntryPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    entry: t.field({ type: EntryType, resolve: (p) => p.entry }),
  }),
});

const RevertPayloadType = builder.objectRef<RevertPayload>('RevertEntryVersionPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    version: t.field({ type: EntryVersionType, resolve: (p) => p.version }),
    entry: t.field({ type: EntryType, resolve: (p) => p.entry }),
    skipped: t.field({ type: [SkippedType], resolve: (p) => p.skipped }),
  }),
});

builder.mutationFields((t) => ({
  publishEntry: t.field({
    nullable: true,
    type: PublishPayloadType,
    extensions: { ability: 'update' },
    description: 'Publishes the working draft as version N+1 (same as POST /api/{collection}/{uuid}/publish).',
    args: { collection: t.arg.string({ required: true, description: 'Collection slug.' }), uuid: t.arg.id({ required: true }) },
    resolve: async (_root, args, c) => {
      const r = await publishEntry(await c.auth(), args.collection, String(args.uuid));
      const n = r.version.row.versionNumber;
      return { message: `Content published as v${n}.`, versionNumber: n, entry: r.resource };
    },
  }),
  unpublishEntry: t.field({
    nullable: true,
    type: UnpublishPayloadType,
    extensions: { ability: 'update' },
    description: 'Takes the entry offline; every version is kept.',
    args: { collection: t.arg.string({ required: true, description: 'Collection slug.' }), uuid: t.arg.id({ required: true }) },
    resolve: async (_root, args, c) => {
      const r = await unpublishEntry(await c.auth(), args.collection, String(args.uuid));
      return { message: 'Content unpublished.', entry: r.resource };
    },
  }),
  revertEntryVersion: t.field({
    nullable: true,
    type: RevertPayloadType,
    extensions: { ability: 'update' },
    description: 'Restores the working draft from a version and publishes it as a new version, in one transaction.',
    args: {
      collection: t.arg.string({ required: true, description: 'Collection slug.' }),
      uuid: t.arg.id({ required: true }),
      version: t.arg.int({ required: true }),
    },
    resolve: async (_root, args, c) => {
      const r = await revertToVersion(await c.auth(), args.collection, String(args.uuid), args.version);
      return {
        message: `Reverted to v${r.revertedFrom} and published as v${r.version.row.versionNumber}.`,
        version: r.version,
        entry: r.resource,
        skipped: r.skipped,
      };
    },
  }),
}));
