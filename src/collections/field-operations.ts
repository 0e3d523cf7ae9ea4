import { refuseRelationsOutOfScope, requireWholeCollection } from './token-scope.ts';
import { z } from 'zod';
import type { Field } from '../db/generated/prisma/client.ts';
import type { Prisma, Tx } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { ErrorBag, notFound } from '../errors.ts';
import { checkSiblings, parseFieldDoc, shapeOf, type FieldDraft } from './field-rules.ts';
import { renameStoredValues } from './field-storage.ts';
import { insertFields, resolveRelationTargets } from './field-write.ts';
import { isUuid } from '../uuid.ts';
import { findCollection, parseOrThrow, schemaChange, type CollectionWithFields } from './shared.ts';

const reorderInput = z.object({
  fields: z
    .array(z.object({ uuid: z.string(), order: z.number().int().min(0).max(1_000_000) }))
    .min(1)
    .max(1000),
});

function findField(c: CollectionWithFields, uuid: string): Field {
  const f = isUuid(uuid) ? c.fields.find((x) => x.uuid === uuid.toLowerCase()) : undefined;
  if (!f) throw notFound('Field not found.');
  return f;
}

const siblingsOf = (c: CollectionWithFields, parentFieldId: number | null, except?: number) =>
  c.fields.filter((f) => f.parentFieldId === parentFieldId && f.id !== except);

/** A group's children may not be groups or passwords, and group children cannot be unique: parse knowing the level. */
function peekParent(input: unknown): number | null {
  const v = input as { parent_field_id?: unknown; type?: unknown } | null | undefined;
  return v && v.type !== 'group' && typeof v.parent_field_id === 'number' ? v.parent_field_id : null;
}

function parseOne(input: unknown, inGroup: boolean): FieldDraft {
  const bag = new ErrorBag();
  const draft = parseFieldDoc(input, bag, { path: '', inGroup, allowChildren: false });
  bag.throwIfAny();
  return draft!;
}

/** POST /collections/{slug}/fields: one field document; `parent_field_id` puts it inside a group. */
export async function createField(ctx: Ctx, slug: string, input: unknown): Promise<Field> {
  authorize(ctx, 'admin');
  requireWholeCollection(ctx, slug);
  await findCollection(ctx.db, ctx.project.id, slug);
  const draft = parseOne(input, peekParent(input) !== null);
  return schemaChange(ctx, async (tx, effects) => {
    const c = await findCollection(tx, ctx.project.id, slug);
    const bag = new ErrorBag();
    let parent: Field | undefined;
    if (draft.parentFieldId !== null) {
      parent = c.fields.find((f) => f.id === draft.parentFieldId && f.type === 'group');
      if (!parent) bag.add('parent_field_id', 'The parent field must be a group field of this collection.');
    }
    const siblings = siblingsOf(c, draft.parentFieldId);
    checkSiblings([draft], bag, '', siblings, () => '');
    await resolveRelationTargets(tx, ctx.project.id, [{ draft, key: '' }], bag);
    refuseRelationsOutOfScope(ctx, [draft]);
    bag.throwIfAny();
    const next = siblings.reduce((m, f) => Math.max(m, f.order + 1), 0);
    const [row] = await insertFields(tx, c.id, [draft], parent ? { id: parent.id, name: parent.name } : null, next, { clearLeftovers: true });
    effects.fieldAdded(c.id, row);
    return row;
  });
}

/**
 * PUT /collections/{slug}/fields/{uuid}: the full field document. A field keeps its level (group or
 * top). Renames move stored values to the new key. Options that fix the stored value shape (type,
 * repeatable, multiple, media/relation type, relation target, date mode) change only while the
 * collection has no entries, so existing values never silently stop matching their field.
 */
export async function updateField(ctx: Ctx, slug: string, uuid: string, input: unknown): Promise<Field> {
  authorize(ctx, 'admin');
  requireWholeCollection(ctx, slug);
  findField(await findCollection(ctx.db, ctx.project.id, slug), uuid);
  return schemaChange(ctx, async (tx, effects) => {
    const c = await findCollection(tx, ctx.project.id, slug);
    const current = findField(c, uuid);
    const draft = parseOne(input, current.parentFieldId !== null);
    if (current.type === 'group' && draft.type === 'group') draft.parentFieldId = null;
    const bag = new ErrorBag();
    const siblings = siblingsOf(c, current.parentFieldId, current.id);
    checkSiblings([draft], bag, '', siblings, () => '');
    await resolveRelationTargets(tx, ctx.project.id, [{ draft, key: '' }], bag);
    refuseRelationsOutOfScope(ctx, [draft]);
    if (current.type === 'group' && draft.type !== 'group' && c.fields.some((f) => f.parentFieldId === current.id)) {
      bag.add('type', 'A group that still has children cannot change its type.');
    }
    if (shapeOf(current.type, current.options as object) !== shapeOf(draft.type, draft.options)) {
      const hasEntries = await tx.entry.findFirst({ where: { collectionId: c.id }, select: { id: true } });
      if (hasEntries) {
        bag.add(
          current.type !== draft.type ? 'type' : 'options',
          'This change would alter the shape of stored values; it is only possible while the collection has no entries. Add a new field instead.',
        );
      }
    }
    bag.throwIfAny();

    const parent = current.parentFieldId === null ? null : c.fields.find((f) => f.id === current.parentFieldId)!;
    if (draft.name !== current.name) {
      await renameStoredValues(tx, c.id, parent?.name ?? null, current.name, draft.name);
      await retargetSlugSources(tx, siblings, current.name, draft.name);
    }
    const updated = await tx.field.update({
      where: { id: current.id },
      data: {
        type: draft.type,
        label: draft.label,
        name: draft.name,
        description: draft.description,
        placeholder: draft.placeholder,
        options: draft.options as Prisma.InputJsonObject,
        validations: draft.validations as Prisma.InputJsonObject,
        ...(draft.order !== null ? { order: draft.order } : {}),
      },
    });
    effects.fieldChanged(c.id, current, updated);
    return updated;
  });
}

/** Slug fields name their source field; keep them pointing at it across a rename, or detach on delete. */
async function retargetSlugSources(tx: Tx, siblings: Field[], from: string, to: string | null): Promise<void> {
  for (const f of siblings) {
    const opts = f.options as { slug?: { field?: string | null } } | null;
    if (f.type !== 'slug' || opts?.slug?.field !== from) continue;
    await tx.field.update({ where: { id: f.id }, data: { options: { ...opts, slug: { ...opts.slug, field: to } } as Prisma.InputJsonObject } });
  }
}

/** DELETE /collections/{slug}/fields/{uuid}: soft delete; a group takes its children with it. */
export async function deleteField(ctx: Ctx, slug: string, uuid: string): Promise<void> {
  authorize(ctx, 'admin');
  requireWholeCollection(ctx, slug);
  findField(await findCollection(ctx.db, ctx.project.id, slug), uuid);
  await schemaChange(ctx, async (tx, effects) => {
    const c = await findCollection(tx, ctx.project.id, slug);
    const f = findField(c, uuid);
    const now = new Date();
    effects.fieldsRemoved(c.fields.filter((x) => x.id === f.id || x.parentFieldId === f.id).map((x) => x.id), [c.id]);
    await tx.field.updateMany({ where: { OR: [{ id: f.id }, { parentFieldId: f.id }], deletedAt: null }, data: { deletedAt: now } });
    await retargetSlugSources(tx, siblingsOf(c, f.parentFieldId, f.id), f.name, null);
  });
}

/** POST /collections/{slug}/fields/reorder: `{ fields: [{ uuid, order }] }`; unknown uuids are skipped. */
export async function reorderFields(ctx: Ctx, slug: string, input: unknown): Promise<{ message: string }> {
  await reorderFieldsReturning(ctx, slug, input);
  return { message: 'Fields reordered successfully.' };
}

/** The same write, returning the collection with its fields as the transaction left them (no `read` needed). */
export async function reorderFieldsReturning(ctx: Ctx, slug: string, input: unknown): Promise<CollectionWithFields> {
  authorize(ctx, 'admin');
  requireWholeCollection(ctx, slug);
  await findCollection(ctx.db, ctx.project.id, slug);
  const { fields } = parseOrThrow(reorderInput, input);
  return schemaChange(ctx, async (tx) => {
    const c = await findCollection(tx, ctx.project.id, slug);
    const byUuid = new Map(c.fields.map((f) => [f.uuid, f]));
    for (const item of fields) {
      const f = byUuid.get(item.uuid.toLowerCase());
      if (f) await tx.field.update({ where: { id: f.id }, data: { order: item.order } });
    }
    return findCollection(tx, ctx.project.id, slug);
  });
}
