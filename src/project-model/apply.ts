import type { Tx } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { AppError, validationFailed } from '../errors.ts';
import {
  createCollection,
  createField,
  deleteCollection,
  deleteField,
  inJoinedTransaction,
  joinTransaction,
  reorderCollectionsReturning,
  updateCollection,
  updateField,
} from '../collections/operations.ts';
import { SchemaEffects, applyAfterCommit } from '../collections/schema-effects.ts';
import { createWebhook, deleteWebhook, updateWebhook } from '../webhooks/operations.ts';
import { replaceManifest } from '../persisted/operations.ts';
import { addLocale, removeLocale, setDefaultLocale } from '../projects/operations.ts';
import { parseSchemaDocument, type FieldDoc, type SchemaDocument } from './document.ts';
import { describePlan, type SchemaDiff } from './changes.ts';
import { planChanges, type CollectionPlan, type FieldPlan, type Plan } from './plan.ts';
import { readLiveModel } from './snapshot.ts';

/** How long one apply's transaction may run (a large model builds its filter indexes inside it). */
export const SCHEMA_APPLY_TIMEOUT_MS = 120_000;

export interface ApplyResult extends SchemaDiff {
  schema_revision: number;
}

/** POST /api/project/schema/diff, `cms schema diff`: what apply would change, changing nothing. */
export async function diffSchema(ctx: Ctx, input: unknown): Promise<SchemaDiff> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.schema);
  const doc = parseSchemaDocument(input);
  return describePlan(planChanges(await readLiveModel(ctx.db, ctx.project), doc));
}

/**
 * POST /api/project/schema/apply, `cms schema apply`: makes the project match the document in one
 * transaction, through the collection, field, webhook, trusted-document and locale operations (so
 * their rules apply and their errors name the part of the document at fault). Applying the same
 * document twice changes nothing the second time. Destructive changes (see changes.ts) are refused
 * with 422 unless `allowDestructive`.
 */
export async function applySchema(ctx: Ctx, input: unknown, opts: { allowDestructive: boolean }): Promise<ApplyResult> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.schema);
  const doc = parseSchemaDocument(input);
  // Filter indexes are built after the commit (CONCURRENTLY on PostgreSQL), as for single changes.
  const effects = new SchemaEffects();
  const run = async (tx: Tx) => {
    const joined = joinTransaction(ctx, tx, effects);
    const diff = await applyDocumentIn(joined, tx, doc, opts);
    return { ...diff, project: joined.project };
  };
  const { project, ...diff } = inJoinedTransaction(ctx) ? await run(ctx.db) : await ctx.db.$transaction(run, { timeout: SCHEMA_APPLY_TIMEOUT_MS, maxWait: 10_000 });
  const moved = project.schemaRevision !== ctx.project.schemaRevision;
  ctx.project = project;
  // A manifest replaced inside the transaction was forgotten before its commit; a read in between
  // may have kept the old one, so it is forgotten again now that the commit is visible.
  ctx.services.trustedDocuments?.forgetProject(project.id);
  if (moved) await applyAfterCommit(ctx.services, effects, project.id, project.schemaRevision);
  return { ...diff, schema_revision: project.schemaRevision };
}

/**
 * Inside the caller's transaction (`joined` from joinTransaction, with deferred effects the caller
 * applies after its commit): lock, plan, refuse or execute. `joined.project` follows the changes.
 */
export async function applyDocumentIn(joined: Ctx, tx: Tx, doc: SchemaDocument, opts: { allowDestructive: boolean }): Promise<SchemaDiff> {
  // Serialises concurrent applies (and every other schema change) of the project from the start.
  await tx.$queryRaw`SELECT id FROM projects WHERE id = ${joined.project.id} FOR UPDATE`;
  joined.project = await tx.project.findUniqueOrThrow({ where: { id: joined.project.id } });
  const plan = planChanges(await readLiveModel(tx, joined.project), doc);
  const diff = describePlan(plan);
  if (diff.destructive > 0 && !opts.allowDestructive) {
    const errors = Object.fromEntries(
      diff.changes.filter((c) => c.destructive).map((c) => [`${c.kind}.${c.target}`, [`Applying would delete the ${c.kind.replace(/_/g, ' ')} "${c.target}".`]]),
    );
    throw validationFailed(
      errors,
      `The document removes ${diff.destructive} thing${diff.destructive === 1 ? '' : 's'} the project has (see errors); pass allow_destructive=true (cms: --allow-destructive) to apply anyway.`,
    );
  }
  await executePlan(joined, tx, plan);
  return diff;
}

/** An operation's 422 keyed under the part of the document it came from. */
async function under<T>(prefix: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION_FAILED' && err.errors) {
      const errors = Object.fromEntries(Object.entries(err.errors).map(([k, v]) => [`${prefix}${k}`, v]));
      throw validationFailed(errors, `${prefix.replace(/\.$/, '')}: ${err.message}`);
    }
    throw err;
  }
}

type Table = 'collections' | 'fields' | 'webhooks';

/** Gives a new row the document's uuid when no other row has it, so the next diff matches by uuid. */
async function keepUuid(tx: Tx, table: Table, id: number, uuid: string | undefined): Promise<void> {
  if (!uuid) return;
  await tx.$executeRawUnsafe(`UPDATE ${table} SET uuid = $1::uuid WHERE id = $2 AND NOT EXISTS (SELECT 1 FROM ${table} WHERE uuid = $1::uuid)`, uuid, id);
}

const fieldBody = (d: FieldDoc, extra: Record<string, unknown> = {}) => ({
  type: d.type,
  label: d.label,
  name: d.name,
  description: d.description,
  placeholder: d.placeholder,
  options: d.options,
  validations: d.validations,
  ...(d.order !== undefined ? { order: d.order } : {}),
  ...extra,
});

/** One level of fields: updates first (renames free names), then creates, slug fields after their sources. */
async function applyFields(ctx: Ctx, tx: Tx, slug: string, plans: FieldPlan[], parentId: number | null, prefix: string): Promise<void> {
  const ids = new Map<FieldPlan, number>();
  for (const p of plans) {
    if (!p.current) continue;
    ids.set(p, p.current.id);
    const current = p.current;
    if (Object.keys(p.changes).length) await under(`${prefix}${current.name}.`, () => updateField(ctx, slug, current.uuid, fieldBody(p.doc)));
  }
  const creates = plans.filter((p) => !p.current).sort((a, b) => Number(a.draft.type === 'slug') - Number(b.draft.type === 'slug'));
  for (const p of creates) {
    const row = await under(`${prefix}${p.draft.name}.`, () => createField(ctx, slug, fieldBody(p.doc, parentId === null ? {} : { parent_field_id: parentId })));
    await keepUuid(tx, 'fields', row.id, p.doc.uuid);
    ids.set(p, row.id);
  }
  for (const p of plans) {
    if (p.draft.type !== 'group') continue;
    const groupId = ids.get(p)!;
    for (const f of p.removedChildren) await deleteField(ctx, slug, f.uuid);
    await applyFields(ctx, tx, slug, p.children, groupId, `${prefix}${p.draft.name}.children.`);
  }
}

async function executePlan(ctx: Ctx, tx: Tx, plan: Plan): Promise<void> {
  if (plan.locales) {
    for (const l of plan.locales.add) await under('locales.', () => addLocale(ctx, l));
    if (plan.locales.default) await under('locales.', () => setDefaultLocale(ctx, plan.locales!.default![1]));
  }
  for (const w of plan.webhooks?.removed ?? []) await deleteWebhook(ctx, w.uuid);
  for (const c of plan.removedCollections) await deleteCollection(ctx, c.slug, { slug: c.slug });

  const withCurrent = plan.collections.filter((c): c is CollectionPlan & { current: NonNullable<CollectionPlan['current']> } => !!c.current);
  for (const c of withCurrent) {
    for (const f of c.removedFields) await deleteField(ctx, c.current.slug, f.uuid);
    if ('name' in c.changes || 'slug' in c.changes) {
      await under(`collections.${c.doc.slug}.`, () => updateCollection(ctx, c.current.slug, { name: c.doc.name, slug: c.doc.slug }));
    }
  }
  const uuids = new Map<CollectionPlan, string>(withCurrent.map((c) => [c, c.current.uuid]));
  for (const c of plan.collections.filter((x) => !x.current)) {
    const row = await under(`collections.${c.doc.slug}.`, () => createCollection(ctx, { name: c.doc.name, slug: c.doc.slug, is_singleton: c.doc.is_singleton, fields: [] }));
    await keepUuid(tx, 'collections', row.id, c.doc.uuid);
    uuids.set(c, (await tx.collection.findUniqueOrThrow({ where: { id: row.id }, select: { uuid: true } })).uuid);
  }
  // Every collection exists under its new slug before any field is written, so relations can name any of them.
  for (const c of plan.collections) await applyFields(ctx, tx, c.doc.slug, c.fields, null, `collections.${c.doc.slug}.fields.`);
  const reorder = plan.collections.filter((c) => c.doc.order !== undefined && (!c.current || 'order' in c.changes));
  if (reorder.length) await reorderCollectionsReturning(ctx, { collections: reorder.map((c) => ({ uuid: uuids.get(c)!, order: c.doc.order! })) });

  if (plan.webhooks) {
    const rows = await tx.collection.findMany({ where: { projectId: ctx.project.id }, select: { id: true, slug: true } });
    const idOf = new Map(rows.map((r) => [r.slug, r.id]));
    for (const [i, w] of plan.webhooks.plans.entries()) {
      const body = {
        name: w.doc.name,
        description: w.doc.description,
        url: w.doc.url,
        events: w.doc.events,
        sources: w.doc.sources,
        payload: w.doc.payload,
        status: w.doc.status,
        collection_ids: w.doc.collections.map((s) => idOf.get(s)),
      };
      if (!w.current) {
        const created = await under(`webhooks.${i}.`, () => createWebhook(ctx, body));
        const row = await tx.webhook.findUniqueOrThrow({ where: { uuid: created.uuid }, select: { id: true } });
        await keepUuid(tx, 'webhooks', row.id, w.doc.uuid);
      } else if (Object.keys(w.changes).length) {
        const uuid = w.current.uuid;
        await under(`webhooks.${i}.`, () => updateWebhook(ctx, uuid, body));
      }
    }
  }
  const t = plan.trusted;
  if (t && (t.add.length || t.remove.length || t.enforced)) {
    await under('trusted_documents.', () => replaceManifest(ctx.db, ctx.project.id, { documents: t.documents, enforced: t.enforce }, ctx.services.trustedDocuments));
  }
  for (const l of plan.locales?.remove ?? []) await under('locales.', () => removeLocale(ctx, l));
}
