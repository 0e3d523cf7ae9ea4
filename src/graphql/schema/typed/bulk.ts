import type { ObjectRef } from '@pothos/core';
import type { GraphQLSchema } from 'graphql';
import {
  bulkCreateEntries,
  bulkDeleteEntries,
  bulkUpdateEntries,
  type BulkDeleteResult,
  type BulkWriteResult,
} from '../../../entries/operations/bulk.ts';
import { MAX_DELETE_UUIDS, MAX_WRITE_ITEMS } from '../../../entries/operations/bulk-input.ts';
import type { Ctx } from '../../../context.ts';
import { drawBudget } from '../../../edge/pipeline/stages.ts';
import type { GraphQLContext } from '../../context.ts';
import type { TypedBuilder, TypedTypes } from './builder.ts';
import { toWriteData } from './convert.ts';
import type { TypeRefs } from './entry-types.ts';
import type { CollectionInputs } from './inputs.ts';
import type { CollectionLayout } from './layout.ts';
import { typedEntry, type TypedEntry } from './model.ts';
import type { NameRegistry } from './names.ts';
import type { Input } from './shared.ts';

type T = PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>;

interface TypedBulkPayload {
  message: string;
  data: TypedEntry[];
}

/** Authenticates, then draws from the `bulk` budget the generic bulk mutations and REST bulk routes share. */
async function bulkCtx(context: GraphQLContext): Promise<Ctx> {
  const ctx = await context.auth();
  await drawBudget(context.services, ctx, 'bulk');
  return ctx;
}

/** GraphQL null means "not sent", as a missing key does in the REST body. */
const sent = <V>(v: V | null | undefined): V | undefined => (v === null ? undefined : v);

const asWritePayload = (r: BulkWriteResult): TypedBulkPayload => ({ message: r.message, data: r.data.map((e) => typedEntry(e, 'draft')) });

/**
 * The core schema's `BulkDeletePayload` when it has one (one delete result for the generic and the
 * typed bulk delete), otherwise an own type with the same fields.
 */
function deletePayload(b: TypedBuilder, types: NameRegistry, core: GraphQLSchema): ObjectRef<T, BulkDeleteResult> {
  if (core.getType('BulkDeletePayload')) return 'BulkDeletePayload' as unknown as ObjectRef<T, BulkDeleteResult>;
  return b.objectRef<BulkDeleteResult>(types.claim('BulkDeletePayload')).implement({
    fields: (t) => ({
      message: t.exposeString('message', { nullable: false }),
      count: t.exposeInt('count', { nullable: false, description: 'Entries this request deleted; unknown UUIDs are skipped.' }),
      force: t.exposeBoolean('force', { nullable: false }),
    }),
  });
}

/**
 * Typed bulk mutations per collection (`bulkCreatePosts`, `bulkUpdatePosts`, `bulkDeletePosts`):
 * the items take the same typed `data` inputs as `createPost` / `updatePost`, converted back to the
 * REST body shape and handed to the same bulk operations the generic `bulkCreateEntries` and the
 * REST bulk routes call, so limits, per-index error keys (`items.N.data.<field>`), atomicity, events
 * and the `bulk` rate budget are the same on every surface.
 */
export function defineBulkOperations(
  b: TypedBuilder,
  types: NameRegistry,
  core: GraphQLSchema,
  layouts: CollectionLayout[],
  refs: TypeRefs,
  inputs: Map<number, CollectionInputs>,
): void {
  const { entryState } = refs.shared;
  const deleted = deletePayload(b, types, core);

  for (const l of layouts) {
    const slug = l.schema.slug;
    const n = l.names;
    const entry = refs.entries.get(l.schema.id)!;
    const io = inputs.get(l.schema.id)!;
    const label = `"${l.schema.name}"`;

    const payload = b.objectRef<TypedBulkPayload>(n.bulkPayload).implement({
      fields: (t) => ({
        message: t.exposeString('message', { nullable: false }),
        data: t.field({ type: [entry], nullable: false, description: 'The entries (working drafts) in the order of the items.', resolve: (p) => p.data }),
      }),
    });
    const createItem = b.inputRef<Input>(n.bulkCreateItem).implement({
      description: `One ${n.type} of \`${n.bulkCreate}\`.`,
      fields: (t) => ({
        data: t.field({ type: io.input, required: true }),
        locale: t.string({ description: 'Defaults to the project default locale.' }),
        state: t.field({ type: entryState, description: '`published` publishes the entry as version 1; otherwise it is a draft.' }),
      }),
    });
    const updateItem = b.inputRef<Input>(n.bulkUpdateItem).implement({
      description: `One change of \`${n.bulkUpdate}\`: only the fields sent are replaced.`,
      fields: (t) => ({
        uuid: t.id({ required: true }),
        data: t.field({ type: io.patchInput, required: true }),
        locale: t.string(),
        state: t.field({ type: entryState, description: '`published` publishes the result as a new version, `draft` unpublishes; omitted leaves the publish state alone.' }),
      }),
    });

    b.mutationFields((t) => ({
      [n.bulkCreate]: t.field({
        type: payload,
        nullable: true,
        description: `Creates 1-${MAX_WRITE_ITEMS} ${label} entries in one transaction (all or nothing). Errors are keyed items.<index>.… in extensions.errors.`,
        extensions: { ability: 'create' },
        args: { items: t.arg({ type: [createItem], required: true }) },
        resolve: async (_root, args, c) => {
          const items = args.items.map((i) => ({ data: toWriteData(i.data, io.inputPlan), locale: sent(i.locale), state: sent(i.state) }));
          return asWritePayload(await bulkCreateEntries(await bulkCtx(c), slug, { items }, { timestamps: true }));
        },
      }),
      [n.bulkUpdate]: t.field({
        type: payload,
        nullable: true,
        description: `Patches 1-${MAX_WRITE_ITEMS} ${label} entries in one transaction (all or nothing); \`state\` publishes or unpublishes.`,
        extensions: { ability: 'update' },
        args: { items: t.arg({ type: [updateItem], required: true }) },
        resolve: async (_root, args, c) => {
          const items = args.items.map((i) => ({
            uuid: String(i.uuid),
            data: toWriteData(i.data, io.inputPlan),
            locale: sent(i.locale),
            state: sent(i.state),
          }));
          return asWritePayload(await bulkUpdateEntries(await bulkCtx(c), slug, { items }, { timestamps: true }));
        },
      }),
      [n.bulkDelete]: t.field({
        type: deleted,
        nullable: true,
        description: `Trashes 1-${MAX_DELETE_UUIDS} ${label} entries (\`force\`: deletes them for good) in one transaction. Unknown UUIDs are skipped.`,
        extensions: { ability: 'delete' },
        args: { uuids: t.arg({ type: ['ID'], required: true }), force: t.arg.boolean({ defaultValue: false }) },
        resolve: async (_root, args, c) => bulkDeleteEntries(await bulkCtx(c), slug, { uuids: args.uuids.map(String), force: args.force ?? false }),
      }),
    }));
  }
}
