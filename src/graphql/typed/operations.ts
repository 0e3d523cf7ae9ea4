import { createEntry, deleteEntry, getEntry, updateEntry } from '../../entries/operations/entry.ts';
import { getFirstEntry, listEntriesPage, listEntriesSlice, MAX_PAGE_SIZE, openEntryList } from '../../entries/reads/list.ts';
import { DEFAULT_TRASH_PAGE_SIZE, emptyTrash, listTrash, restoreEntry } from '../../entries/operations/trash.ts';
import { publishEntry, revertToVersion, unpublishEntry } from '../../entries/operations/publish.ts';
import { DEFAULT_PER_PAGE, checkPaging } from '../limits.ts';
import type { TypedBuilder } from './builder.ts';
import type { CollectionLayout } from './layout.ts';
import type { CollectionInputs } from './inputs.ts';
import type { TypeRefs } from './entry-types.ts';
import type { NameRegistry } from './names.ts';
import { toNormalisedWhere, toSortString, toWriteData } from './convert.ts';
import { typedEntry, type TypedEntry, type TypedPage } from './model.ts';
import { collectionRead } from '../content-read.ts';
import { selects } from '../selection.ts';
import { slicePosition } from '../slice-paging.ts';
import { RELAY_ARG_DESCRIPTIONS, edgesOf, pageFromArgs, type Edge } from '../schema/page-info.ts';

/** What a page's selection is multiplied by: the page size it asks for. */
const pageCost = (args: { perPage?: unknown; first?: unknown }, fallback: number): number => {
  const size = args.first ?? args.perPage;
  return typeof size === 'number' && size > 0 ? size : fallback;
};

/**
 * The typed root fields of each collection. Every resolver is a thin adapter over the content and
 * versions operations (the same functions the REST routes call): arguments are converted to the
 * REST input shapes (convert.ts), so validation, authorization, events and error classes are shared.
 */
export function defineOperations(b: TypedBuilder, types: NameRegistry, layouts: CollectionLayout[], refs: TypeRefs, inputs: Map<number, CollectionInputs>): void {
  const { entryState, pageInfo } = refs.shared;
  const deletion = b.objectRef<{ uuid: string; message: string }>(types.claim('DeletionResult')).implement({
    fields: (t) => ({ uuid: t.exposeID('uuid', { nullable: false }), message: t.exposeString('message', { nullable: false }) }),
  });
  const trashEmptied = b.objectRef<{ message: string; deleted: number }>(types.claim('EmptyTrashResult')).implement({
    fields: (t) => ({ message: t.exposeString('message', { nullable: false }), deleted: t.exposeInt('deleted', { nullable: false }) }),
  });

  for (const l of layouts) {
    const slug = l.schema.slug;
    const n = l.names;
    const entry = refs.entries.get(l.schema.id)!;
    const io = inputs.get(l.schema.id)!;
    const label = `"${l.schema.name}"`;
    const edge = b.objectRef<Edge<TypedEntry>>(n.edge).implement({
      fields: (t) => ({
        cursor: t.exposeString('cursor', { nullable: false }),
        node: t.field({ type: entry, nullable: false, resolve: (e) => e.node }),
      }),
    });
    const page = b.objectRef<TypedPage>(n.page).implement({
      description: `One page of ${label} entries: \`data\` and \`pageInfo\` (page + perPage paging), or the same page as \`edges\` (Relay: first + after).`,
      fields: (t) => ({
        data: t.field({ type: [entry], nullable: false, extensions: { complexity: { field: 0, multiplier: 1 } }, resolve: (p) => p.data }),
        edges: t.field({ type: [edge], nullable: false, extensions: { complexity: { field: 0, multiplier: 1 } }, resolve: (p) => edgesOf(p.data, p.currentPage, p.perPage) }),
        pageInfo: t.field({ type: pageInfo, nullable: false, resolve: (p) => ({ ...p, count: p.data.length }) }),
      }),
    });

    if (l.schema.isSingleton) {
      b.queryField(n.single, (t) =>
        t.field({
          type: entry,
          description: `The ${label} entry for a locale (the default locale when omitted). 404 when there is none.`,
          extensions: { ability: 'read', ...collectionRead(slug) },
          args: { state: t.arg({ type: entryState, defaultValue: 'published' }), locale: t.arg.string() },
          resolve: async (_root, args, c) => {
            const ctx = await c.auth();
            const list = await openEntryList(ctx, slug, { state: args.state ?? 'published', locale: args.locale?.toLowerCase() ?? undefined, timestamps: true });
            return typedEntry(await getFirstEntry(list), args.state ?? 'published');
          },
        }),
      );
    } else {
      b.queryField(n.list, (t) =>
        t.field({
          type: page,
          nullable: true,
          description: `Entries of ${label}: filtered, sorted and paged in the database.`,
          args: {
            where: t.arg({ type: io.where }),
            sort: t.arg({ type: [io.sort] }),
            page: t.arg.int({ defaultValue: 1 }),
            perPage: t.arg.int({ defaultValue: DEFAULT_PER_PAGE, description: `Page size, at most 100.` }),
            state: t.arg({ type: entryState, defaultValue: 'published' }),
            locale: t.arg.string(),
            first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
            after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
          },
          // The page's selection is paid once per entry it can hold.
          extensions: {
            ability: 'read',
            ...collectionRead(slug),
            complexity: (args: { perPage?: unknown; first?: unknown }) => ({ field: 1, multiplier: pageCost(args, DEFAULT_PER_PAGE) }),
          },
          resolve: async (_root, args, c, info) => {
            const { page: pageNo, perPage } = pageFromArgs(args, DEFAULT_PER_PAGE);
            checkPaging(pageNo, perPage);
            const ctx = await c.auth();
            const state = args.state ?? 'published';
            const list = await openEntryList(ctx, slug, {
              state,
              locale: args.locale?.toLowerCase() ?? undefined,
              where: args.where ? toNormalisedWhere(args.where, io.wherePlan) : undefined,
              sort: toSortString(args.sort),
              timestamps: true,
            });
            const paging = { page: pageNo, perPage };
            if (!selects(info, ['pageInfo'], ['total', 'lastPage'])) {
              const r = await listEntriesSlice(list, paging);
              return { data: r.data.map((e) => typedEntry(e, state)), ...slicePosition(r.page, r.perPage, r.hasMore) };
            }
            const r = await listEntriesPage(list, paging);
            return {
              data: r.data.map((e) => typedEntry(e, state)),
              total: r.total,
              currentPage: r.page,
              perPage: r.perPage,
              lastPage: Math.max(1, Math.ceil(r.total / r.perPage)),
            };
          },
        }),
      );
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
          },
          resolve: async (_root, args, c) => {
            const ctx = await c.auth();
            const state = args.state ?? 'published';
            const read = { state, locale: args.locale ?? undefined, translationLocale: args.translationLocale ?? undefined, timestamps: true };
            return typedEntry(await getEntry(ctx, slug, String(args.uuid), read), state);
          },
        }),
      );
    }

    b.queryField(n.trashed, (t) =>
      t.field({
        type: page,
        nullable: true,
        description: `Trashed ${label} entries (working drafts), most recently trashed first. \`restore${n.type}\` brings one back.`,
        args: {
          where: t.arg({ type: io.where, description: 'Conditions on the working drafts.' }),
          page: t.arg.int({ defaultValue: 1 }),
          perPage: t.arg.int({ defaultValue: DEFAULT_TRASH_PAGE_SIZE, description: `Page size, at most ${MAX_PAGE_SIZE}.` }),
          locale: t.arg.string(),
          first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
          after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
        },
        extensions: {
          ability: 'read',
          ...collectionRead(slug, true),
          complexity: (args: { perPage?: unknown; first?: unknown }) => ({ field: 1, multiplier: pageCost(args, DEFAULT_TRASH_PAGE_SIZE) }),
        },
        resolve: async (_root, args, c) => {
          const { page: pageNo, perPage } = pageFromArgs(args, DEFAULT_TRASH_PAGE_SIZE);
          checkPaging(pageNo, perPage);
          const r = await listTrash(await c.auth(), slug, {
            locale: args.locale?.toLowerCase() ?? undefined,
            where: args.where ? toNormalisedWhere(args.where, io.wherePlan) : undefined,
            paginate: perPage,
            page: pageNo,
            timestamps: true,
          });
          return { data: r.data.map((e) => typedEntry(e, 'draft')), total: r.total, currentPage: r.page, perPage: r.perPage, lastPage: Math.max(1, Math.ceil(r.total / r.perPage)) };
        },
      }),
    );

    b.mutationFields((t) => ({
      [n.create]: t.field({
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
      [n.update]: t.field({
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
      [n.publish]: t.field({
        type: entry,
        nullable: true,
        description: 'Publishes the working draft as a new version. Returns the published entry.',
        extensions: { ability: 'update' },
        args: { uuid: t.arg.id({ required: true }) },
        resolve: async (_root, args, c) => typedEntry((await publishEntry(await c.auth(), slug, String(args.uuid))).resource, 'published'),
      }),
      [n.unpublish]: t.field({
        type: entry,
        nullable: true,
        description: 'Takes the entry offline; every version is kept. Returns the working draft.',
        extensions: { ability: 'update' },
        args: { uuid: t.arg.id({ required: true }) },
        resolve: async (_root, args, c) => typedEntry((await unpublishEntry(await c.auth(), slug, String(args.uuid))).resource, 'draft'),
      }),
      [n.revert]: t.field({
        type: entry,
        nullable: true,
        description: 'Restores the draft from a version and publishes it as a new version.',
        extensions: { ability: 'update' },
        args: { uuid: t.arg.id({ required: true }), version: t.arg.int({ required: true }) },
        resolve: async (_root, args, c) => typedEntry((await revertToVersion(await c.auth(), slug, String(args.uuid), args.version)).resource, 'published'),
      }),
      [n.delete]: t.field({
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
      [n.restore]: t.field({
        type: entry,
        nullable: true,
        description: 'Brings a trashed entry back; singleton and unique rules are checked again (422). Returns the working draft.',
        extensions: { ability: 'update' },
        args: { uuid: t.arg.id({ required: true }) },
        resolve: async (_root, args, c) => typedEntry(await restoreEntry(await c.auth(), slug, String(args.uuid), { timestamps: true }), 'draft'),
      }),
      [n.emptyTrash]: t.field({
        type: trashEmptied,
        nullable: true,
        description: `Deletes every trashed ${label} entry for good.`,
        extensions: { ability: 'delete' },
        resolve: async (_root, _args, c) => emptyTrash(await c.auth(), slug),
      }),
    }));
  }
}
