import type { Project } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { buildCollectionSchema, type CollectionSchema, type FieldDef } from '../collections/model.ts';
import { SCHEMA_FORMAT, SCHEMA_VERSION, webhookDoc, type FieldDoc, type SchemaDocument, type WebhookDoc } from './document.ts';
import { serializeWebhook, WEBHOOK_COLLECTIONS } from '../webhooks/serialize.ts';

/** What the project holds now, as diff and apply compare it (ids kept for the operations). */
export interface LiveModel {
  project: Project;
  collections: CollectionSchema[];
  webhooks: Array<WebhookDoc & { uuid: string }>;
  trusted: { enforced: boolean; documents: Record<string, string> };
}

export async function readLiveModel(db: Tx, project: Project): Promise<LiveModel> {
  const [collections, webhooks, manifest, documents] = await Promise.all([
    db.collection.findMany({ where: { projectId: project.id }, include: { fields: { where: { deletedAt: null } } }, orderBy: [{ order: 'asc' }, { id: 'asc' }] }),
    db.webhook.findMany({
      where: { projectId: project.id },
      include: WEBHOOK_COLLECTIONS,
      orderBy: { id: 'asc' },
    }),
    db.trustedDocumentManifest.findUnique({ where: { projectId: project.id } }),
    db.trustedDocument.findMany({ where: { projectId: project.id }, orderBy: { hash: 'asc' } }),
  ]);
  return {
    project,
    collections: collections.map((c) => buildCollectionSchema(c, c.fields)),
    webhooks: webhooks.map((w) => webhookDoc(serializeWebhook(w))),
    trusted: { enforced: manifest?.enforced ?? false, documents: Object.fromEntries(documents.map((d) => [d.hash, d.document])) },
  };
}

/** Stored options with the relation target as a slug, the form documents carry between databases. */
export function portableOptions(options: Record<string, unknown>, slugOf: (id: number) => string | undefined): Record<string, unknown> {
  const rel = options.relation as { collection?: unknown } | undefined;
  if (!rel || typeof rel.collection !== 'number') return options;
  return { ...options, relation: { ...rel, collection: slugOf(rel.collection) ?? rel.collection } };
}

function fieldDoc(f: FieldDef, slugOf: (id: number) => string | undefined): FieldDoc {
  const doc: FieldDoc = {
    uuid: f.uuid,
    type: f.type,
    label: f.label,
    name: f.name,
    description: f.description ?? null,
    placeholder: f.placeholder ?? null,
    options: portableOptions(f.options as Record<string, unknown>, slugOf),
    validations: f.validations as Record<string, unknown>,
    order: f.order,
  };
  if (f.type === 'group') doc.children = f.children.map((c) => fieldDoc(c, slugOf));
  return doc;
}

export function toDocument(model: LiveModel): SchemaDocument {
  const slugs = new Map(model.collections.map((c) => [c.id, c.slug]));
  const slugOf = (id: number) => slugs.get(id);
  return {
    format: SCHEMA_FORMAT,
    version: SCHEMA_VERSION,
    locales: { available: model.project.locales, default: model.project.defaultLocale },
    collections: model.collections.map((c) => ({
      uuid: c.uuid,
      name: c.name,
      slug: c.slug,
      is_singleton: c.isSingleton,
      order: c.row.order,
      fields: c.fields.map((f) => fieldDoc(f, slugOf)),
    })),
    webhooks: model.webhooks,
    trusted_documents: model.trusted,
  };
}

/** GET /api/project/schema, `cms schema snapshot`: the model as a document (admin: it names webhook URLs). */
export async function snapshotSchema(ctx: Ctx): Promise<SchemaDocument> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.schema);
  return toDocument(await readLiveModel(ctx.db, ctx.project));
}
