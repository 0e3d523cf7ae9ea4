import type { GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Redis } from 'ioredis';
import type { Services } from '../../../context.ts';
import { buildCollectionSchema, type CollectionSchema } from '../../../collections/model.ts';
import { modelInScope } from '../../../collections/token-scope.ts';
import type { TokenScope } from '../../../context.ts';
import { buildTypedSchema } from './build.ts';
import { coreWithoutReleases } from '../common/release-fields.ts';
import { releasesInScope } from '../../../releases/operations/access.ts';
import { SCHEMA_CHANNEL, databaseIdentityOf } from '../../../collections/schema-effects.ts';

export interface SchemaRevisionRef {
  projectId: number;
  schemaRevision: number;
  /** A scoped token's scope: it gets the variant without what it cannot reach, cached per scope digest. */
  scope?: TokenScope;
}

export interface TypedSchemaCache {
  /** The typed schema of a project at a revision: cached, or built once however many requests ask at the same time. */
  schemaFor(project: SchemaRevisionRef): Promise<GraphQLSchema>;
  /** Drops every cached schema of the project older than `revision` (and builds the new one if the project was in use). */
  noticeRevision(projectId: number, revision: number): void;
  /** Revisions held for a project (observability, tests). */
  cachedRevisions(projectId: number): number[];
  readonly size: number;
  close(): Promise<void>;
}

async function loadCollections(services: Services, projectId: number): Promise<CollectionSchema[]> {
  const rows = await services.database.prisma.collection.findMany({
    where: { projectId },
    include: { fields: { where: { deletedAt: null } } },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
  return rows.map((c) => buildCollectionSchema(c, c.fields));
}

/**
 * Typed schemas by (project, schema_revision). The key carries the revision, so a collection or
 * field change (which bumps `projects.schema_revision` in its transaction) is a cache miss on the
 * next request of every replica without any message; the Redis subscription only frees memory and
 * warms the new schema early.
 */
export function createTypedSchemaCache(services: Services, core: GraphQLSchema, opts: { max?: number } = {}): TypedSchemaCache {
  const schemas = new LRUCache<string, GraphQLSchema>({ max: opts.max ?? 200 });
  const building = new Map<string, Promise<GraphQLSchema>>();
  const newest = new Map<number, number>();
  // `project:revision`, then `:digest` for a scoped token's variant (dropOlder reads the first two).
  const keyOf = (projectId: number, revision: number, scope?: TokenScope) => `${projectId}:${revision}${scope ? `:${scope.digest}` : ''}`;

  const build = (projectId: number, revision: number, scope?: TokenScope): Promise<GraphQLSchema> => {
    const key = keyOf(projectId, revision, scope);
    let pending = building.get(key);
    if (!pending) {
      pending = loadCollections(services, projectId)
        .then((all) => {
          const started = performance.now();
          const collections = scope ? modelInScope(scope, all) : all;
          // A token limited to collections may use no release operation: its variant does not list them.
          const schema = buildTypedSchema(releasesInScope(scope) ? core : coreWithoutReleases(core), collections);
          services.log.debug({ projectId, revision, scope: scope?.digest, collections: collections.length, ms: Math.round(performance.now() - started) }, 'typed GraphQL schema built');
          if ((newest.get(projectId) ?? 0) <= revision) schemas.set(key, schema);
          return schema;
        })
        .finally(() => building.delete(key));
      building.set(key, pending);
    }
    return pending;
  };

  const dropOlder = (projectId: number, revision: number): boolean => {
    let had = false;
    for (const key of [...schemas.keys()]) {
      const [p, r] = key.split(':').map(Number);
      if (p === projectId && r < revision) {
        schemas.delete(key);
        had = true;
      }
    }
    return had;
  };

  const cache: TypedSchemaCache = {
    async schemaFor({ projectId, schemaRevision, scope }) {
      const hit = schemas.get(keyOf(projectId, schemaRevision, scope));
      if (hit) return hit;
      if ((newest.get(projectId) ?? 0) < schemaRevision) cache.noticeRevision(projectId, schemaRevision);
      return build(projectId, schemaRevision, scope);
    },
    noticeRevision(projectId, revision) {
      if ((newest.get(projectId) ?? 0) >= revision) return;
      newest.set(projectId, revision);
      if (dropOlder(projectId, revision) && !schemas.has(keyOf(projectId, revision))) {
        build(projectId, revision).catch((err: unknown) => services.log.warn({ err: (err as Error).message, projectId }, 'typed schema prebuild failed'));
      }
    },
    cachedRevisions(projectId) {
      const revisions = [...schemas.keys()]
        .map((k) => k.split(':').map(Number))
        .filter(([p]) => p === projectId)
        .map(([, r]) => r);
      return [...new Set(revisions)].sort((a, b) => a - b);
    },
    get size() {
      return schemas.size;
    },
    async close() {
      await subscriber?.quit().catch(() => subscriber?.disconnect());
    },
  };

  let subscriber: Redis | undefined;
  if (services.redis) {
    subscriber = services.redis.duplicate({ enableOfflineQueue: true, lazyConnect: false });
    subscriber.on('error', (err) => services.log.warn({ err: err.message }, 'schema subscription error'));
    // Until this database's identity is known, announcements are taken as ours (harmless: a notice
    // only makes a schema rebuild early; every request still checks the revision it authenticated).
    let ours: string | undefined;
    databaseIdentityOf(services.database).then(
      (identity) => (ours = identity),
      () => {},
    );
    subscriber.on('message', (_channel, message) => {
      try {
        const { database, projectId, revision } = JSON.parse(message) as { database?: unknown; projectId: unknown; revision: unknown };
        if (ours !== undefined && database !== ours) return;
        if (typeof projectId === 'number' && typeof revision === 'number') cache.noticeRevision(projectId, revision);
      } catch {
        // Not ours or malformed: revision checks on requests still keep schemas right.
      }
    });
    subscriber.subscribe(SCHEMA_CHANNEL).catch((err: unknown) => services.log.warn({ err: (err as Error).message }, 'schema subscription failed'));
  }
  return cache;
}
