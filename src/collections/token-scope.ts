import type { Ctx, TokenScope } from '../context.ts';
import type { Collection, Field } from '../db/generated/prisma/client.ts';
import { forbidden, notFound } from '../errors.ts';
import { collectionsWhollyInScope } from '../admin-scope.ts';
import type { CollectionSchema, FieldDef } from './model.ts';
import type { FieldDraft } from './field-rules.ts';

/**
 * Tokens scoped to collections and fields (docs/auth.md, "API tokens"). The rule is applied here,
 * once, where operations obtain a collection's schema (./schema-cache.ts) or list the model: a
 * collection outside the scope does not exist for the token (404; a preview token is told 403), and
 * a field outside it is marked `outOfScope` on the token's own copy of the schema, which
 * ./visibility.ts treats like a hidden field (never shown, unknown to `where` and `sort`); writes
 * naming one are refused here (403). Relation fields whose target collection is outside the scope
 * are outside it too, so linked content of an unreachable collection never leaks through a relation.
 */

/** Whether the caller may act on collection `slug` at all. */
export function collectionInScope(scope: TokenScope | undefined, slug: string): boolean {
  return !scope?.collections || scope.collections.has(slug);
}

/** 404 (403 for a preview token) unless the caller may act on collection `slug`. */
export function requireCollectionInScope(ctx: Pick<Ctx, 'scope'>, slug: string): void {
  if (collectionInScope(ctx.scope, slug)) return;
  if (ctx.scope?.preview) throw forbidden('Forbidden. This preview token cannot read this collection.');
  throw notFound('Collection not found.');
}

/**
 * Changing a collection or its fields (src/admin-scope.ts): the collection must be in the caller's
 * collections (404 otherwise, as for reads) and whole: a token limited to some of its fields would
 * change, rename or drop fields it may not see (403).
 */
export function requireWholeCollection(ctx: Pick<Ctx, 'scope'>, slug: string): void {
  requireCollectionInScope(ctx, slug);
  if (!collectionsWhollyInScope(ctx.scope, [slug])) {
    throw forbidden(`Forbidden. This token is limited to some fields of ${slug}: it cannot change the collection or its fields.`);
  }
}

/**
 * A relation field written by a limited token must point into its collections: a link to a
 * collection it cannot reach would be out of its scope the moment it exists (403). Run after the
 * targets are resolved to ids; a collection's relation to itself (a negative placeholder) is in scope.
 */
export function refuseRelationsOutOfScope(ctx: Pick<Ctx, 'scope' | 'collectionGenerations'>, drafts: ReadonlyArray<FieldDraft>): void {
  const ids = collectionIdsInScope(ctx);
  if (ids === null) return;
  for (const d of drafts.flatMap((x) => [x, ...x.children])) {
    const target = d.type === 'relation' ? d.options.relation?.collection : undefined;
    if (typeof target === 'number' && target >= 0 && !ids.has(target)) {
      throw forbidden(`Forbidden. The relation field "${d.name}" points at a collection outside the collections this token is limited to.`);
    }
  }
}

/** Whether a top-level field of collection `slug` is within the scope (ignoring relation targets). */
export function fieldInScope(scope: TokenScope | undefined, slug: string, name: string): boolean {
  const names = scope?.fields.get(slug);
  return !names || names.has(name);
}

/** Whether the caller may act on the collection with id `id` (a row that names its collection by id). */
export function collectionIdInScope(ctx: Pick<Ctx, 'scope' | 'collectionGenerations'>, id: number): boolean {
  const ids = collectionIdsInScope(ctx);
  return ids === null || ids.has(id);
}

/** Ids of the collections in scope, from the slugs authentication saw; null when every collection is. */
function collectionIdsInScope(ctx: Pick<Ctx, 'scope' | 'collectionGenerations'>): Set<number> | null {
  const allowed = ctx.scope?.collections;
  if (!allowed) return null;
  const ids = new Set<number>();
  for (const [slug, g] of Object.entries(ctx.collectionGenerations ?? {})) if (allowed.has(slug)) ids.add(g[0]);
  return ids;
}

function outOfScope(field: Pick<FieldDef, 'name' | 'type' | 'options'>, slug: string, scope: TokenScope, ids: Set<number> | null): boolean {
  if (!fieldInScope(scope, slug, field.name)) return true;
  const target = field.type === 'relation' ? field.options.relation?.collection : undefined;
  return ids !== null && target !== undefined && !ids.has(target);
}

const scopedCopies = new WeakMap<CollectionSchema, Map<string, CollectionSchema>>();

/**
 * The schema as the caller may see it: the same object for an unscoped caller; for a scoped one a
 * copy (made once per schema and scope) whose out-of-scope fields carry `outOfScope`.
 */
export function scopedSchema(ctx: Pick<Ctx, 'scope' | 'collectionGenerations'>, schema: CollectionSchema): CollectionSchema {
  const scope = ctx.scope;
  if (!scope || (!scope.collections && !scope.fields.has(schema.slug))) return schema;
  let copies = scopedCopies.get(schema);
  const hit = copies?.get(scope.digest);
  if (hit) return hit;
  const ids = collectionIdsInScope(ctx);
  let changed = false;
  const fields = schema.fields.map((f) => {
    if (!outOfScope(f, schema.slug, scope, ids)) return f;
    changed = true;
    return { ...f, outOfScope: true as const };
  });
  const copy = changed ? { ...schema, fields, byName: new Map(fields.map((f) => [f.name, f])) } : schema;
  if (!copies) scopedCopies.set(schema, (copies = new Map()));
  copies.set(scope.digest, copy);
  return copy;
}

/**
 * The content model as a scope sees it, for the documents describing it (the typed GraphQL schema,
 * the OpenAPI document): collections out of scope left out, out-of-scope fields removed. `collections`
 * is the whole model, so relation targets are known by id without the request's generations.
 */
export function modelInScope(scope: TokenScope | undefined, collections: CollectionSchema[]): CollectionSchema[] {
  if (!scope) return collections;
  const view = { scope, collectionGenerations: Object.fromEntries(collections.map((c) => [c.slug, [c.id, 0, 0] as [number, number, number]])) };
  return collections
    .filter((c) => collectionInScope(scope, c.slug))
    .map((c) => {
      const scoped = scopedSchema(view, c);
      if (scoped === c) return c;
      const fields = scoped.fields.filter((f) => !f.outOfScope);
      return { ...scoped, fields, byName: new Map(fields.map((f) => [f.name, f])) };
    });
}

/** Collection rows with their fields, as the caller may see them (GET /api/collections and the project's model). */
export function rowsInScope<C extends Collection & { fields: Field[] }>(ctx: Pick<Ctx, 'scope' | 'collectionGenerations'>, rows: C[]): C[] {
  const scope = ctx.scope;
  if (!scope) return rows;
  const ids = collectionIdsInScope(ctx);
  return rows
    .filter((c) => collectionInScope(scope, c.slug))
    .map((c) => {
      const fields = c.fields.filter((f) => f.parentFieldId !== null || !outOfScope({ name: f.name, type: f.type as FieldDef['type'], options: (f.options ?? {}) as FieldDef['options'] }, c.slug, scope, ids));
      return fields.length === c.fields.length ? c : { ...c, fields };
    });
}

/**
 * A write naming a field the caller may not write is refused whole (403), before anything is
 * validated or stored: the rest of the write is not applied either.
 */
export function refuseOutOfScopeWrite(collection: CollectionSchema, data: unknown): void {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return;
  const names = Object.keys(data).filter((k) => collection.byName.get(k)?.outOfScope);
  if (names.length) throw forbidden(`Forbidden. This token may not write the field${names.length > 1 ? 's' : ''} ${names.map((n) => `"${n}"`).join(', ')}.`);
}

/** Whether the caller's copy of `collection` has fields it may not write (a replace must then keep their values). */
export const hasOutOfScopeFields = (collection: CollectionSchema): boolean => collection.fields.some((f) => f.outOfScope);

/** Which view of the content a read asks for: the published view, the working drafts, or a release's preview. */
export interface ReadView {
  state?: 'published' | 'draft';
  release?: string | null;
}

/**
 * The one rule for which views a preview token may read. A preview token without a release reads
 * the published, draft and any release view (within its collections). A release-scoped one reads
 * the published view and `?release=<its release>` only: drafts, version history and other releases
 * are refused (403). A delivery token reads the published view only. Other tokens are not limited here (their abilities are checked elsewhere).
 * Entry reads call it (src/entries/reads/list.ts, src/entries/operations/entry.ts, versions); a read
 * that takes a release parameter passes it as `release`.
 */
export function requireReadView(ctx: Pick<Ctx, 'scope'>, view: ReadView): void {
  const scope = ctx.scope;
  if (scope?.delivery && (view.state === 'draft' || (view.release !== undefined && view.release !== null))) {
    throw forbidden('Forbidden. A delivery token reads only published content: no drafts, release previews or version history.');
  }
  if (!scope?.preview || scope.release === null) return;
  const release = view.release?.toLowerCase();
  if (view.state === 'draft' || (release !== undefined && release !== scope.release)) {
    throw forbidden('Forbidden. This preview token reads only the published view and its own release.');
  }
}
