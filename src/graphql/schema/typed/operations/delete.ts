import { deleteEntry } from '../../../../entries/operations/entry.ts';
import type { CollectionScope, SharedResults } from './scope.ts';

/** Trashing an entry, or removing it for good with `force`. */
export function defineDelete({ b, slug, n }: CollectionScope, { deletion }: SharedResults): void {
  b.mutationField(n.delete, (t) =>
    t.field({
      type: deletion,
      nullable: true,
      description: 'Moves the entry to the trash, or removes it for good with `force: true`.',
      extensions: { ability: 'delete' },
      args: { uuid: t.arg.id({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
      resolve: async (_root, args, c) => {
        const r = await deleteEntry(await c.auth(), slug, String(args.uuid), args.force ?? false);
        return { uuid: String(args.uuid), message: r.message };
      },
    }),
  );
}
