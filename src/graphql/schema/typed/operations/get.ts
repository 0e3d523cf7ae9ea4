import { getEntry } from '../../../../entries/operations/entry.ts';
import { collectionRead } from '../../common/content-read.ts';
import { typedEntry } from '../model.ts';
import type { CollectionScope } from './scope.ts';
import { readInView } from '../../../../releases/operations/preview.ts';
import { RELEASE_ARG } from './release-view.ts';

/** One entry of a (non-singleton) collection by UUID. */
export function defineGet({ b, slug, label, n, entry, entryState }: CollectionScope): void {
  b.queryField(n.single, (t) =>
    t.field({
      type: entry,
      description: `One ${label} entry by UUID. Published reads (the default) answer 404 for entries never published.`,
      extensions: { ability: 'read', ...collectionRead(slug) },
      args: {
        uuid: t.arg.id({ required: true }),
        state: t.arg({ type: entryState, defaultValue: 'published' }),
        locale: t.arg.string(),
        translationLocale: t.arg.string({ description: 'Answer the linked translation in this locale instead (404 when there is none).' }),
        fallback: t.arg.boolean({ description: 'Answer the entry\'s translation in the first locale along the fallback chain of `locale` (the default locale when omitted) that has one; `resolvedLocale` says which.' }),
        release: t.arg.id({ description: RELEASE_ARG }),
      },
      resolve: async (_root, args, c) => {
        const read = { locale: args.locale ?? undefined, translationLocale: args.translationLocale ?? undefined, withFallback: args.fallback ?? false, timestamps: true };
        return readInView(await c.auth(), { release: args.release, state: args.state }, async (ctx, state) => typedEntry(await getEntry(ctx, slug, String(args.uuid), { ...read, state }), state));
      },
    }),
  );
}
