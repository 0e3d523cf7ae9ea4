import type { Field } from '../db/generated/prisma/client.ts';
import type { Prisma, Tx } from '../db/client.ts';
import type { ErrorBag } from '../errors.ts';
import type { FieldDraft } from './field-rules.ts';
import { clearStoredValues } from './field-storage.ts';

/** The collection being created, so a relation may point at it before it has an id. */
export interface SelfRef {
  slug: string;
  name: string;
  id?: number;
}

const SELF = -1;

/**
 * Resolves `options.relation.collection` (id, slug or name, docs/foundation.md) of every draft to the target
 * collection's internal id, in place. Unresolvable targets are reported under `key(i)`.
 * Drafts pointing at the collection being created get a placeholder fixed by `insertFields`.
 */
export async function resolveRelationTargets(
  tx: Tx,
  projectId: number,
  drafts: Array<{ draft: FieldDraft; key: string }>,
  bag: ErrorBag,
  self?: SelfRef,
): Promise<void> {
  const wanted = drafts.filter((d) => d.draft.type === 'relation' && d.draft.options.relation);
  if (wanted.length === 0) return;
  const collections = await tx.collection.findMany({ where: { projectId }, select: { id: true, slug: true, name: true } });
  for (const { draft, key } of wanted) {
    const rel = draft.options.relation!;
    const ref = rel.collection;
    let id: number | undefined;
    if (typeof ref === 'number' || /^\d+$/.test(ref)) {
      const n = Number(ref);
      if (self?.id === n) id = n;
      else id = collections.find((c) => c.id === n)?.id;
    } else {
      if (self && (self.slug === ref || self.name === ref)) id = self.id ?? SELF;
      else id = (collections.find((c) => c.slug === ref) ?? collections.find((c) => c.name === ref))?.id;
    }
    if (id === undefined) bag.add(`${key}options.relation.collection`, `The related collection "${ref}" does not exist.`);
    else rel.collection = id;
  }
}

function fieldData(draft: FieldDraft, collectionId: number, parentFieldId: number | null, order: number) {
  const options = structuredClone(draft.options) as Record<string, unknown> & { relation?: { collection: number | string } };
  if (options.relation && options.relation.collection === SELF) options.relation.collection = collectionId;
  return {
    collectionId,
    parentFieldId,
    type: draft.type,
    label: draft.label,
    name: draft.name,
    description: draft.description,
    placeholder: draft.placeholder,
    options: options as Prisma.InputJsonObject,
    validations: draft.validations as Prisma.InputJsonObject,
    order,
  };
}

/**
 * Stored values only ever hold keys of the collection's fields (writes are validated, renames move
 * values), so leftovers exist only under the name of a soft-deleted field at the same level. Checking
 * first keeps adding a field to a large collection a catalog change, not a scan of every entry.
 */
async function hasDeletedNamesake(tx: Tx, collectionId: number, parentFieldId: number | null, name: string): Promise<boolean> {
  const found = await tx.field.findFirst({ where: { collectionId, parentFieldId, name, deletedAt: { not: null } }, select: { id: true } });
  return found !== null;
}

/**
 * Inserts drafts (and group children) at one level. `nextOrder` is where appended fields start;
 * a draft's explicit `order` wins. Leftover values of deleted fields with the same name are cleared
 * (see field-storage.ts).
 */
export async function insertFields(
  tx: Tx,
  collectionId: number,
  drafts: FieldDraft[],
  parent: { id: number; name: string } | null,
  nextOrder: number,
  opts: { clearLeftovers: boolean },
): Promise<Field[]> {
  const rows: Field[] = [];
  let order = nextOrder;
  for (const draft of drafts) {
    const row = await tx.field.create({ data: fieldData(draft, collectionId, parent?.id ?? null, draft.order ?? order++) });
    rows.push(row);
    if (opts.clearLeftovers && (await hasDeletedNamesake(tx, collectionId, parent?.id ?? null, draft.name))) {
      await clearStoredValues(tx, collectionId, parent?.name ?? null, draft.name);
    }
    if (draft.children.length) {
      // A new group's children can have no leftovers of their own: any were under the group's key.
      rows.push(...(await insertFields(tx, collectionId, draft.children, { id: row.id, name: row.name }, 0, { clearLeftovers: false })));
    }
  }
  return rows;
}
