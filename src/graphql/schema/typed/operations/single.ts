import { listEntries } from '../../../../content/list.ts';
import { AppError } from '../../../../errors.ts';
import { collectionRead } from '../../shared/content-read.ts';
import { typedEntry } from '../model.ts';
import type { CollectionScope } from './scope.ts';

/** A singleton's one query: its entry for a locale. */
export function defineSingleton({ b, slug, label, n, entry, entryState }: CollectionScope): void {
  b.queryField(n.single, (t) =>
    t.field({
      type: entry,
      description: `The ${label} entry for a locale (the default locale when omitted). 404 when there is none.`,
      extensions: { ability: 'read', ...collectionRead(slug) },
      args: { state: t.arg({ type: entryState, defaultValue: 'published' }), locale: t.arg.string() },
      resolve: async (_root, args, c) => {
        const ctx = await c.auth();
        const r = await listEntries(ctx, slug, { state: args.state ?? 'published', locale: args.locale?.toLowerCase() ?? undefined, timestamps: true });
        if (r.kind !== 'one') throw new AppError('NOT_FOUND', 'Entry not found.');
        return typedEntry(r.entry, args.state ?? 'published');
      },
    }),
  );
}
