import { updateEntry } from '../../../../entries/operations/entry.ts';
import { toWriteData } from '../convert.ts';
import { typedEntry } from '../model.ts';
import type { CollectionScope } from './scope.ts';

/** Changing the fields sent (PATCH semantics) from the typed patch input. */
export function defineUpdate({ b, slug, n, entry, io }: CollectionScope): void {
  b.mutationField(n.update, (t) =>
    t.field({
      type: entry,
      nullable: true,
      description: `Changes the fields sent (PATCH semantics). Never publishes. Returns the working draft.`,
      extensions: { ability: 'update' },
      args: { uuid: t.arg.id({ required: true }), data: t.arg({ type: io.patchInput, required: true }), locale: t.arg.string() },
      resolve: async (_root, args, c) => {
        const ctx = await c.auth();
        const body = { data: toWriteData(args.data, io.inputPlan), locale: args.locale ?? undefined };
        return typedEntry(await updateEntry(ctx, slug, String(args.uuid), body, 'patch', { timestamps: true }), 'draft');
      },
    }),
  );
}
