import { publishEntry, revertToVersion, unpublishEntry } from '../../../../entries/operations/publish.ts';
import { typedEntry } from '../model.ts';
import type { CollectionScope } from './scope.ts';

/** The publishing family: publish the draft, take the entry offline, revert to a version. */
export function definePublishing({ b, slug, n, entry }: CollectionScope): void {
  b.mutationField(n.publish, (t) =>
    t.field({
      type: entry,
      nullable: true,
      description: 'Publishes the working draft as a new version. Returns the published entry.',
      extensions: { ability: 'update' },
      args: { uuid: t.arg.id({ required: true }) },
      resolve: async (_root, args, c) => typedEntry((await publishEntry(await c.auth(), slug, String(args.uuid))).resource, 'published'),
    }),
  );
  b.mutationField(n.unpublish, (t) =>
    t.field({
      type: entry,
      nullable: true,
      description: 'Takes the entry offline; every version is kept. Returns the working draft.',
      extensions: { ability: 'update' },
      args: { uuid: t.arg.id({ required: true }) },
      resolve: async (_root, args, c) => typedEntry((await unpublishEntry(await c.auth(), slug, String(args.uuid))).resource, 'draft'),
    }),
  );
  b.mutationField(n.revert, (t) =>
    t.field({
      type: entry,
      nullable: true,
      description: 'Restores the draft from a version and publishes it as a new version.',
      extensions: { ability: 'update' },
      args: { uuid: t.arg.id({ required: true }), version: t.arg.int({ required: true }) },
      resolve: async (_root, args, c) => typedEntry((await revertToVersion(await c.auth(), slug, String(args.uuid), args.version)).resource, 'published'),
    }),
  );
}
