import { getFirstEntry, openEntryList } from '../../../../entries/reads/list.ts';
import { collectionRead } from '../../common/content-read.ts';
import { typedEntry } from '../model.ts';
import type { CollectionScope } from './scope.ts';

/** A singleton's one query: its entry for a locale. */
export function defineSingleton({ b, slug, label, n, entry, entryState }: CollectionScope): void {
  b.queryField(n.single, (t) =>
    t.field({
      type: entry,
      description: `The ${label} entry for a locale (the default locale when omitted). 404 when there is none.`,
      extensions: { ability: 'read', ...collectionRead(slug) },
      args: {
        state: t.arg({ type: entryState, defaultValue: 'published' }),
        locale: t.arg.string(),
        fallback: t.arg.boolean({ description: 'The entry of the first locale along the fallback chain of `locale` that has one; `resolvedLocale` says which.' }),
      },
      resolve: async (_root, args, c) => {
        const ctx = await c.auth();
        const list = await openEntryList(ctx, slug, { state: args.state ?? 'published', locale: args.locale?.toLowerCase() ?? undefined, fallback: args.fallback ?? false, timestamps: true });
        return typedEntry(await getFirstEntry(list), args.state ?? 'published');
      },
    }),
  );
}
