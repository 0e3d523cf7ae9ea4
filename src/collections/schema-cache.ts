import { LRUCache } from 'lru-cache';
import type { Ctx, Services } from '../context.ts';
import { loadCollectionBySlug, type CollectionSchema } from './model.ts';
import { requireCollectionInScope, scopedSchema } from './token-scope.ts';

/**
 * Collection schemas by (project, schema_revision, slug). Every collection or field change bumps the
 * project's `schema_revision` in its own transaction, and each request reads the project row afresh,
 * so a changed schema is a miss on the next request of every replica; stale keys age out. Saves the
 * collection + fields lookup on every entry read and write. Schemas are shared: treat them as immutable.
 * One cache per services instance, i.e. per database: project ids are only unique within one, and a
 * process may serve several (the embedded and server paths side by side, the test suite).
 */
const caches = new WeakMap<Services, LRUCache<string, CollectionSchema>>();

function cacheOf(ctx: Ctx): LRUCache<string, CollectionSchema> {
  let cache = caches.get(ctx.services);
  if (!cache) caches.set(ctx.services, (cache = new LRUCache<string, CollectionSchema>({ max: 5000 })));
  return cache;
}

/**
 * The schema of collection `slug` as the caller may see it: a scoped token's out-of-scope collection
 * is refused before any lookup, and its copy marks the fields it may not reach (./token-scope.ts).
 */
export async function collectionForRequest(ctx: Ctx, slug: string): Promise<CollectionSchema> {
  requireCollectionInScope(ctx, slug);
  const key = `${ctx.project.id}:${ctx.project.schemaRevision}:${slug}`;
  const hit = cacheOf(ctx).get(key);
  if (hit) return scopedSchema(ctx, hit);
  const schema = await loadCollectionBySlug(ctx.db, ctx.project.id, slug);
  cacheOf(ctx).set(key, schema);
  rememberCollection(ctx, schema);
  return scopedSchema(ctx, schema);
}

const idKey = (ctx: Ctx, id: number) => `${ctx.project.id}:${ctx.project.schemaRevision}:#${id}`;

/** A cached schema by collection id (relation targets), or undefined. */
export function cachedCollectionById(ctx: Ctx, id: number): CollectionSchema | undefined {
  const hit = cacheOf(ctx).get(idKey(ctx, id));
  return hit && scopedSchema(ctx, hit);
}

export function rememberCollection(ctx: Ctx, schema: CollectionSchema): void {
  cacheOf(ctx).set(idKey(ctx, schema.id), schema);
}

/** Per services instance: whether a project has a collection of a slug, by (project, schema revision, slug). */
const existence = new WeakMap<Services, LRUCache<string, boolean>>();

/**
 * Whether the project has a collection of this slug, whatever the caller's token may reach: the
 * answer is the project's, shared by every caller, so it must not depend on one token's scope, and a
 * database error is an error, not a "no". A collection change bumps the schema revision: a new key.
 */
export async function projectHasCollection(ctx: Ctx, slug: string): Promise<boolean> {
  let known = existence.get(ctx.services);
  if (!known) existence.set(ctx.services, (known = new LRUCache<string, boolean>({ max: 5000 })));
  const key = `${ctx.project.id}:${ctx.project.schemaRevision}:${slug}`;
  const hit = known.get(key) ?? (cacheOf(ctx).has(key) ? true : undefined);
  if (hit !== undefined) return hit;
  const row = await ctx.db.collection.findUnique({ where: { projectId_slug: { projectId: ctx.project.id, slug } }, select: { id: true } });
  known.set(key, row !== null);
  return row !== null;
}
