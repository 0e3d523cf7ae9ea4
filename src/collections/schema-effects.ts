import type { Field } from '../db/generated/prisma/client.ts';
import type { Database, Tx } from '../db/client.ts';
import type { Services } from '../context.ts';
import { dropOrphanPartitions } from './partitions.ts';
import { dropFieldIndexStatements, dropFieldIndexes, ensureFieldIndexes, fieldIndexStatements } from './field-indexes.ts';
import { toFieldDef } from './model.ts';
import { dropUniqueIndexStatements, isUniqueField, syncUniqueIndex, uniqueIndexStatements, uniqueIndexSyncStatements } from './unique-indexes.ts';
import { syncCollectionIndexes } from './collection-indexes.ts';
import { COLLECTION_INDEXES } from './collection-repair.ts';

/** Redis channel on which schema changes are announced to every replica. */
export const SCHEMA_CHANNEL = 'cms:graphql:schema-revision';

const identities = new WeakMap<Database, Promise<string>>();

/**
 * Which database an announcement is about: `<database name>@<cluster system identifier>`. Project ids
 * are only unique within one database, so deployments (or test runs) sharing one Redis must not act
 * on each other's announcements: a foreign "project 7 moved" made replicas drop and rebuild a schema
 * nothing had changed. Every announcement carries it, and listeners ignore other databases'.
 */
export function databaseIdentityOf(database: Database): Promise<string> {
  let identity = identities.get(database);
  if (!identity) {
    identity = (async () => {
      const [db] = await database.query<{ name: string }>('SELECT current_database() AS name');
      // Not every PostgreSQL exposes its control data (embedded builds): the name alone then.
      const cluster = await database
        .query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')
        .then(([row]) => row?.id ?? '')
        .catch(() => '');
      return `${db?.name ?? ''}@${cluster}`;
    })();
    // A failure (database unreachable) is not remembered: the next caller asks again.
    identity.catch(() => identities.delete(database));
    identities.set(database, identity);
  }
  return identity;
}

/**
 * What a schema change must do besides its rows: the per-field filter and unique indexes and the collections'
 * search and fallback indexes to build or drop.
 * Collected inside the transaction, applied by `applyAfterCommit` (or `applyInTransaction` when the
 * change joins a caller's transaction).
 */
export class SchemaEffects {
  readonly created: Array<{ collectionId: number; field: Field }> = [];
  readonly dropped: number[] = [];
  /**
   * Collections whose searchable fields may have changed: their search indexes are built or dropped
   * (search-indexes.ts), and their fallback indexes built if new or dropped with the collection
   * (fallback-indexes.ts): every collection gains a field when it is made.
   */
  readonly searchCollections = new Set<number>();
  /** Fields that gained or lost the unique rule and nothing else their indexes depend on (unique-indexes.ts). */
  readonly uniqueChanged: Array<{ collectionId: number; field: Field }> = [];

  fieldAdded(collectionId: number, field: Field): void {
    this.created.push({ collectionId, field });
    this.searchCollections.add(collectionId);
  }

  /**
   * A rename or type change alters the indexed expressions: rebuild. Of the validations, only the
   * unique rule has an index (built or dropped on its own); nothing else touches them.
   */
  fieldChanged(collectionId: number, before: Field, after: Field): void {
    this.searchCollections.add(collectionId);
    if (before.name === after.name && before.type === after.type && JSON.stringify(before.options) === JSON.stringify(after.options)) {
      if (isUniqueField(toFieldDef(before)) !== isUniqueField(toFieldDef(after))) this.uniqueChanged.push({ collectionId, field: after });
      return;
    }
    this.dropped.push(before.id);
    this.created.push({ collectionId, field: after });
  }

  /** Collections deleted: their (now empty) entry partitions are dropped after the commit. */
  readonly removedCollections: number[] = [];

  collectionRemoved(collectionId: number): void {
    this.removedCollections.push(collectionId);
  }

  fieldsRemoved(fieldIds: number[], collectionIds: number[] = []): void {
    this.dropped.push(...fieldIds);
    for (const id of collectionIds) this.searchCollections.add(id);
  }
}

/**
 * After the commit: drops, then builds (CONCURRENTLY on PostgreSQL, so entry writers are not blocked
 * while a large collection is scanned; that cannot run inside a transaction), then announces the new
 * revision. The field itself is already saved, so an index failure is logged, not thrown: filters stay
 * correct without the index, only slower, and `npx cms` / the next change can rebuild it.
 */
export async function applyAfterCommit(
  services: Pick<Services, 'database' | 'redis' | 'log'>,
  effects: SchemaEffects,
  projectId: number,
  revision: number,
): Promise<void> {
  try {
    for (const id of effects.dropped) {
      await dropFieldIndexes(services.database, id);
      for (const stmt of dropUniqueIndexStatements(id)) await services.database.runScript(stmt);
    }
    for (const { collectionId, field } of effects.created) {
      await ensureFieldIndexes(services.database, collectionId, toFieldDef(field));
      await syncUniqueIndex(services.database, collectionId, toFieldDef(field));
    }
    for (const { collectionId, field } of effects.uniqueChanged) await syncUniqueIndex(services.database, collectionId, toFieldDef(field));
    await syncCollectionIndexes(services.database, COLLECTION_INDEXES, effects.searchCollections);
  } catch (err) {
    services.log.error({ err: (err as Error).message, projectId }, 'filter index maintenance failed');
  }
  // Not awaited: a concurrent detach waits for every transaction that may still read the partition,
  // and the request that deleted the collection need not. A partition left behind holds no rows and is
  // dropped by the next deletion (or `cms migrate`).
  if (effects.removedCollections.length) {
    dropOrphanPartitions(services.database).catch((err: Error) => services.log.warn({ err: err.message, projectId }, 'dropping deleted collections\' partitions failed'));
  }
  await announceSchemaRevision(services, projectId, revision);
}

/** Inside a caller's transaction (seeding a new model): plain, non-concurrent statements on the same connection. */
export async function applyInTransaction(tx: Tx, effects: SchemaEffects): Promise<void> {
  const statements = [
    ...effects.dropped.flatMap((id) => [...dropFieldIndexStatements(id), ...dropUniqueIndexStatements(id)]),
    ...effects.created.flatMap(({ collectionId, field }) => [
      ...fieldIndexStatements(collectionId, toFieldDef(field)),
      ...uniqueIndexStatements(collectionId, toFieldDef(field)),
    ]),
    ...effects.uniqueChanged.flatMap(({ collectionId, field }) => uniqueIndexSyncStatements(collectionId, toFieldDef(field))),
  ];
  for (const sql of statements) await tx.$executeRawUnsafe(sql);
  await syncCollectionIndexes({ tx }, COLLECTION_INDEXES, effects.searchCollections);
}

/**
 * Tells every replica (through Redis, when configured) that a project's schema moved to `revision`.
 * Correctness never depends on it (each request compares the revision on the project row it
 * authenticated with), but replicas then drop stale schemas and build the new one before the first
 * request needs it. Call after the transaction that bumped the revision has committed.
 */
export async function announceSchemaRevision(services: Pick<Services, 'redis' | 'log' | 'database'>, projectId: number, revision: number): Promise<void> {
  if (!services.redis) return;
  try {
    const database = await databaseIdentityOf(services.database);
    await services.redis.publish(SCHEMA_CHANNEL, JSON.stringify({ database, projectId, revision }));
  } catch (err) {
    services.log.warn({ err: (err as Error).message }, 'schema revision announcement failed');
  }
}
