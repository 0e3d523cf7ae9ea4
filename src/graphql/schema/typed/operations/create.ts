import { createEntry } from '../../../../entries/operations/entry.ts';
import { toWriteData } from '../convert.ts';
import { typedEntry } from '../model.ts';
import type { CollectionScope } from './scope.ts';

/** Creating an entry from the typed input, converted to the REST body. */
export function defineCreate({ b, slug, label, n, entry, io, entryState }: CollectionScope): void {
  b.mutationField(n.create, (t) =>
    t.field({
      type: entry,
      nullable: true,
      description: `Creates a ${label} entry; \`state: published\` publishes it as version 1. Returns the working draft.`,
      extensions: { ability: 'create' },
      args: { data: t.arg({ type: io.input, required: true }), locale: t.arg.string(), state: t.arg({ type: entryState }) },
      resolve: async (_root, args, c) => {
        const ctx = await c.auth();
        const body = { data: toWriteData(args.data, io.inputPlan), locale: args.locale ?? undefined, state: args.state ?? undefined };
        return typedEntry(await createEntry(ctx, slug, body, { timestamps: true }), 'draft');
      },
    }),
  );
}
