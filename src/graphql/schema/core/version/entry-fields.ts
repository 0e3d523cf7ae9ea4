import { builder } from '../../common/builder.ts';
import { EntryType } from '../entry/types.ts';
import type { EntryResource } from '../../../../entries/reads/serialize.ts';
import { versionByNumber, versionPage } from '../../../../entries/versions/batched.ts';
import { PAGE_DEFAULT, PAGE_MAX } from '../../../../entries/versions/loaders.ts';
import { EntryVersionConnectionType, EntryVersionType } from './types.ts';

builder.objectFields(EntryType, (t) => ({
  versions: t.field({
    type: EntryVersionConnectionType,
    // Needs `read`: nullable so that on a write's result (a create-only token) only this field fails.
    nullable: true,
    description: `Versions of this entry, newest first (first: 1..${PAGE_MAX}, default ${PAGE_DEFAULT}); needs \`read\`.`,
    args: { first: t.arg.int(), after: t.arg.string() },
    resolve: async (e, args, c) => versionPage(await c.auth(), entryIdOf(e), args),
  }),
  version: t.field({
    type: EntryVersionType,
    nullable: true,
    description: 'One version by number; null when the entry has no such version (never minted or pruned).',
    args: { number: t.arg.int({ required: true }) },
    resolve: async (e, args, c) => versionByNumber(await c.auth(), entryIdOf(e), args.number),
  }),
}));

const entryIdOf = (e: EntryResource): number => e.id;
