import { z } from 'zod';
import type { Tx } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { ErrorBag, forbidden, validationFailed } from '../errors.ts';
import { KEBAB_RE, checkSiblings, parseFieldDoc, type FieldDraft } from './field-rules.ts';
import { insertFields, resolveRelationTargets } from './field-write.ts';
import { isUuid } from '../uuid.ts';
import { bagZod, findCollection, liveFields, parseOrThrow, schemaChange, type CollectionWithFields } from './shared.ts';

export { serializeCollection, serializeField, flattenFields } from './serialize.ts';
export type { CollectionResource, FieldResource } from './serialize.ts';
export { createField, updateField, deleteField, reorderFields, reorderFieldsReturning } from './field-operations.ts';

/**
 * Slugs that would shadow a fixed route under /api (content routes are `/api/{collection}`), plus a
 * few names kept free for future top-level routes. A collection made before its slug joined the list
 * keeps it (renaming it is allowed, keeping the slug on update too) and keeps its routes: the fixed
 * routes under that slug step aside for such a project (src/rest/reserved-slugs.ts, docs/releases.md).
 */
export const RESERVED_SLUGS = ['collections', 'files', 'webhooks', 'bulk', 'project', 'auth', 'graphql', 'docs', 'openapi', 'releases', 'schedules', 'preview-tokens'] as const; // docs, openapi: /api/docs and /api/openapi.json

export type { CollectionWithFields } from './shared.ts';
export { findCollection, inJoinedTransaction, joinTransaction } from './shared.ts';
import { requireCollectionInScope, requireWholeCollection, rowsInScope } from './token-scope.ts';
import { WHOLE_PROJECT, requireWholeProject } from '../admin-scope.ts';
const byOrder = [{ order: 'asc' as const }, { id: 'asc' as const }];

const isReserved = (s: string) => (RESERVED_SLUGS as readonly string[]).includes(s);
const RESERVED_MESSAGE = `This slug is reserved (it would shadow a fixed route); choose another. Reserved: ${RESERVED_SLUGS.join(', ')}.`;
const anySlug = z
  .string({ error: 'The slug is required.' })
  .trim()
  .min(1, 'The slug is required.')
  .max(60)
  .regex(KEBAB_RE, 'The slug may only contain lowercase letters, digits and single dashes (e.g. "blog-posts").');
const slugSchema = anySlug.refine((s) => !isReserved(s), { message: RESERVED_MESSAGE });
const nameSchema = z.string({ error: 'The name is required.' }).trim().min(1, 'The name is required.').max(60);

const createInput = z.object({
  name: nameSchema,
  slug: slugSchema,
  is_singleton: z.boolean().optional(),
  fields: z.array(z.unknown()).max(500).nullish(),
});
// A reserved slug the collection already has may stay (checked in updateCollection).
const updateInput = z.object({ name: nameSchema, slug: anySlug });
const reorderInput = z.object({
  collections: z
    .array(z.object({ uuid: z.string(), order: z.number().int().min(0).max(1_000_000) }))
    .min(1)
    .max(1000),
});

async function assertSlugFree(tx: Tx, projectId: number, slug: string, exceptId?: number): Promise<void> {
  const clash = await tx.collection.findUnique({ where: { projectId_slug: { projectId, slug } }, select: { id: true } });
  if (clash && clash.id !== exceptId) throw validationFailed({ slug: ['The slug has already been taken.'] });
}

/** The project's content model, as far as the caller's token scope reaches (./token-scope.ts). */
export async function listCollections(ctx: Ctx): Promise<CollectionWithFields[]> {
  authorize(ctx, 'read');
  return rowsInScope(ctx, await ctx.db.collection.findMany({ where: { projectId: ctx.project.id }, include: liveFields, orderBy: byOrder }));
}

export async function getCollection(ctx: Ctx, slug: string): Promise<CollectionWithFields> {
  authorize(ctx, 'read');
  requireCollectionInScope(ctx, slug);
  return rowsInScope(ctx, [await findCollection(ctx.db, ctx.project.id, slug)])[0];
}

/** POST /collections: `{ name, slug, is_singleton?, fields? }`, fields may carry group `children`. */
export async function createCollection(ctx: Ctx, input: unknown): Promise<CollectionWithFields> {
  authorize(ctx, 'admin');
  // A new collection lies outside every list of collections, so a limited token makes none.
  requireWholeProject(ctx, WHOLE_PROJECT.newCollections);
  const bag = new ErrorBag();
  const parsed = createInput.safeParse(input ?? {});
  if (!parsed.success) bagZod(bag, parsed.error);
  const rawFields = parsed.success ? (parsed.data.fields ?? []) : [];
  const drafts = rawFields.map((f, i) => parseFieldDoc(f, bag, { path: `fields.${i}.`, inGroup: false, allowChildren: true }));
  checkSiblings(drafts, bag, 'fields.');
  bag.throwIfAny();
  const { name, slug, is_singleton } = parsed.data!;
  const top = drafts as FieldDraft[];
  for (const d of top) d.parentFieldId = null;

  return schemaChange(ctx, async (tx, effects) => {
    await assertSlugFree(tx, ctx.project.id, slug);
    const last = await tx.collection.aggregate({ where: { projectId: ctx.project.id }, _max: { order: true } });
    const c = await tx.collection.create({
      data: { projectId: ctx.project.id, name, slug, isSingleton: is_singleton ?? false, order: (last._max.order ?? -1) + 1 },
    });
    const refs = top.flatMap((d, i) => [
      { draft: d, key: `fields.${i}.` },
      ...d.children.map((child, j) => ({ draft: child, key: `fields.${i}.children.${j}.` })),
    ]);
    const relBag = new ErrorBag();
    await resolveRelationTargets(tx, ctx.project.id, refs, relBag, { id: c.id, slug, name });
    relBag.throwIfAny();
    const fields = await insertFields(tx, c.id, top, null, 0, { clearLeftovers: false });
    for (const f of fields) effects.fieldAdded(c.id, f);
    return { ...c, fields };
  });
}

/** PUT /collections/{slug}: `{ name, slug }`, both required. Relations store ids, so a rename needs no rewrite. */
export async function updateCollection(ctx: Ctx, slug: string, input: unknown): Promise<CollectionWithFields> {
  requireCollectionInScope(ctx, slug);
  authorize(ctx, 'admin');
  requireWholeCollection(ctx, slug);
  await findCollection(ctx.db, ctx.project.id, slug);
  const data = parseOrThrow(updateInput, input);
  // Scopes name collections by slug: a limited token renaming one would lose it, and the old slug,
  // still in its scope, would reach whichever collection takes that slug next.
  if (ctx.scope?.collections && data.slug !== slug) throw forbidden('Forbidden. A token limited to collections names them by slug, so it cannot change a collection\'s slug.');
  return schemaChange(ctx, async (tx) => {
    const current = await findCollection(tx, ctx.project.id, slug);
    if (data.slug !== current.slug && isReserved(data.slug)) throw validationFailed({ slug: [RESERVED_MESSAGE] });
    await assertSlugFree(tx, ctx.project.id, data.slug, current.id);
    const c = await tx.collection.update({ where: { id: current.id }, data: { name: data.name, slug: data.slug } });
    return { ...c, fields: current.fields };
  });
}

/**
 * DELETE /collections/{slug} with body `{ slug }` repeating the path slug (a guard against deleting
 * the wrong collection). Fields, entries, versions and webhook links go with it (FK cascades);
 * relation fields of other collections that pointed here leave the schema too, since every value
 * they could hold is gone.
 */
export async function deleteCollection(ctx: Ctx, slug: string, body: unknown): Promise<void> {
  requireCollectionInScope(ctx, slug);
  authorize(ctx, 'admin');
  requireWholeCollection(ctx, slug);
  await findCollection(ctx.db, ctx.project.id, slug);
  const confirm = (body as { slug?: unknown } | null | undefined)?.slug;
  if (confirm !== slug) {
    throw validationFailed({ slug: ['The collection slug does not match.'] }, 'The collection slug does not match.');
  }
  await schemaChange(ctx, async (tx, effects) => {
    const c = await findCollection(tx, ctx.project.id, slug);
    if (ctx.scope?.collections) await refuseOrphansOutOfScope(tx, ctx.project.id, c.id, ctx.scope.collections);
    const orphaned = await tx.$queryRaw<Array<{ id: number }>>`
      UPDATE fields SET deleted_at = now(), updated_at = now()
      WHERE deleted_at IS NULL AND type = 'relation'
        AND options -> 'relation' -> 'collection' = to_jsonb(${c.id}::int)
        AND collection_id IN (SELECT id FROM collections WHERE project_id = ${ctx.project.id} AND id <> ${c.id})
      RETURNING id`;
    effects.fieldsRemoved([...c.fields.map((f) => f.id), ...orphaned.map((r) => r.id)], [c.id]);
    await tx.collection.delete({ where: { id: c.id } });
    effects.collectionRemoved(c.id);
  });
}

/**
 * Deleting a collection drops the relation fields of other collections that point at it: a limited
 * token may do that only to collections it is limited to, else its delete would change their schema (403).
 */
async function refuseOrphansOutOfScope(tx: Tx, projectId: number, collectionId: number, allowed: ReadonlySet<string>): Promise<void> {
  const holders = await tx.$queryRaw<Array<{ slug: string }>>`
    SELECT DISTINCT c.slug FROM fields f JOIN collections c ON c.id = f.collection_id
    WHERE f.deleted_at IS NULL AND f.type = 'relation' AND c.project_id = ${projectId} AND c.id <> ${collectionId}
      AND f.options -> 'relation' -> 'collection' = to_jsonb(${collectionId}::int)`;
  const outside = holders.map((h) => h.slug).filter((s) => !allowed.has(s));
  if (outside.length) throw forbidden(`Forbidden. Relation fields of ${outside.join(', ')} point at this collection; deleting it would change collections outside this token's limit.`);
}

/** POST /collections/reorder: `{ collections: [{ uuid, order }] }`; unknown uuids are skipped. */
export async function reorderCollections(ctx: Ctx, input: unknown): Promise<{ message: string }> {
  await reorderCollectionsReturning(ctx, input);
  return { message: 'Collections reordered successfully.' };
}

/**
 * The same write, returning the collections in their new order as its transaction left them: a
 * result an `admin`-only caller may have (reading them again would need `read`, after the commit).
 */
export async function reorderCollectionsReturning(ctx: Ctx, input: unknown): Promise<CollectionWithFields[]> {
  authorize(ctx, 'admin');
  requireWholeProject(ctx, WHOLE_PROJECT.collectionOrder);
  const { collections } = parseOrThrow(reorderInput, input);
  return schemaChange(ctx, async (tx) => {
    for (const item of collections) {
      if (!isUuid(item.uuid)) continue;
      await tx.collection.updateMany({ where: { projectId: ctx.project.id, uuid: item.uuid.toLowerCase() }, data: { order: item.order } });
    }
    return tx.collection.findMany({ where: { projectId: ctx.project.id }, include: liveFields, orderBy: byOrder });
  });
}
