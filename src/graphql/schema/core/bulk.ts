import { builder } from '../common/builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { EntryType } from './entry/types.ts';
import type { Ctx } from '../../../context.ts';
import { drawBudget } from '../../../edge/pipeline/stages.ts';
import {
  bulkCreateEntries,
  bulkDeleteEntries,
  bulkUpdateEntries,
  type BulkDeleteResult,
  type BulkWriteResult,
} from '../../../entries/operations/bulk.ts';

/** Bulk entry mutations: the GraphQL twin of src/rest/bulk-routes.ts (same operations, same errors). */

const BulkEntriesPayload = builder.objectRef<BulkWriteResult>('BulkEntriesPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    data: t.field({ type: [EntryType], description: 'The entries in the order of the items.', resolve: (r) => r.data }),
  }),
});

const BulkDeletePayload = builder.objectRef<BulkDeleteResult>('BulkDeletePayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    count: t.exposeInt('count', { description: 'Entries this request deleted; unknown UUIDs are skipped.' }),
    force: t.exposeBoolean('force'),
  }),
});

const stateDescription = '`draft` or `published`. On create anything else is a draft; on update anything else leaves the publish state alone.';

const BulkCreateEntryInput = builder.inputType('BulkCreateEntryInput', {
  fields: (t) => ({
    locale: t.string({ description: 'Defaults to the project default locale.' }),
    state: t.string({ description: stateDescription }),
    data: t.field({ type: 'JSON', required: true, description: 'Field values by field name (may be {}).' }),
  }),
});

const BulkUpdateEntryInput = builder.inputType('BulkUpdateEntryInput', {
  fields: (t) => ({
    uuid: t.string({ required: true }),
    locale: t.string(),
    state: t.string({ description: stateDescription }),
    data: t.field({ type: 'JSON', required: true, description: 'Only the keys present are replaced (may be {}).' }),
  }),
});

/** Authenticates, then draws from the same `bulk` rate-limit budget as the REST bulk routes. */
async function bulkCtx(context: GraphQLContext): Promise<Ctx> {
  const ctx = await context.auth();
  await drawBudget(context.services, ctx, 'bulk');
  return ctx;
}

/** GraphQL null means "not sent", as a missing key does in the REST body. */
const sent = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

builder.mutationFields((t) => ({
  bulkCreateEntries: t.field({
    extensions: { ability: 'create' },
    nullable: true,
    type: BulkEntriesPayload,
    description: 'Creates 1-50 entries in one transaction (POST /api/bulk/{collection}/entries). Errors are keyed items.<index>.… in extensions.errors.',
    args: {
      collection: t.arg.string({ required: true }),
      items: t.arg({ type: [BulkCreateEntryInput], required: true }),
    },
    resolve: async (_root, args, context) =>
      bulkCreateEntries(
        await bulkCtx(context),
        args.collection,
        { items: args.items.map((i) => ({ locale: sent(i.locale), state: sent(i.state), data: i.data })) },
        { timestamps: true },
      ),
  }),
  bulkUpdateEntries: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: BulkEntriesPayload,
    description: 'Patches 1-50 entries in one transaction (PATCH /api/bulk/{collection}/entries); state publishes or unpublishes.',
    args: {
      collection: t.arg.string({ required: true }),
      items: t.arg({ type: [BulkUpdateEntryInput], required: true }),
    },
    resolve: async (_root, args, context) =>
      bulkUpdateEntries(
        await bulkCtx(context),
        args.collection,
        { items: args.items.map((i) => ({ uuid: i.uuid, locale: sent(i.locale), state: sent(i.state), data: i.data })) },
        { timestamps: true },
      ),
  }),
  bulkDeleteEntries: t.field({
    extensions: { ability: 'delete' },
    nullable: true,
    type: BulkDeletePayload,
    description: 'Trashes 1-100 entries (force: deletes them for good) in one transaction (DELETE /api/bulk/{collection}/entries).',
    args: {
      collection: t.arg.string({ required: true }),
      uuids: t.arg.stringList({ required: true }),
      force: t.arg.boolean({ defaultValue: false }),
    },
    resolve: async (_root, args, context) =>
      bulkDeleteEntries(await bulkCtx(context), args.collection, { uuids: args.uuids, force: args.force ?? false }),
  }),
}));
