import { LRUCache } from 'lru-cache';
import type { Ctx, Services } from '../context.ts';
import { loadCollectionBySlug, type CollectionSchema } from './model.ts';

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

export async function collectionForRequest(ctx: Ctx, slug: string): Promise<CollectionSchema> {
  const key = `${ctx.project.id}:${ctx.project.schemaRevision}:${slug}`;
  const hit = cacheOf(ctx).get(key);
  if (hit) return hit;
  const schema = await loadCollectionBySlug(ctx.db, ctx.project.id, slug);
  cacheOf(ctx).set(key, schema);
  rememberCollection(ctx, schema);
  return schema;
}

const idKey = (ctx: Ctx, id: number) => `${ctx.project.id}:${ctx.project.schemaRevision}:#${id}`;

/** A cached schema by collection id (relation targets), or undefined. */
export function cachedCollectionById(ctx: Ctx, id: number): CollectionSchema | undefined {
  return cacheOf(ctx).get(idKey(ctx, id));
}

export function rememberCollection(ctx: Ctx, schema: CollectionSchema): void {
  cacheOf(ctx).set(idKey(ctx, schema.id), schema);
}
