import type { Tx } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import type { ErrorBag } from '../../errors.ts';
import { label, type PendingRef } from './common.ts';

const describe = (r: PendingRef) => (r.uuid ? `'${r.uuid}'` : `#${r.id}`);

/** Runs one read of the lookup: in the write's transaction, or straight on the pool outside one. */
export type RefRead = <T>(sql: string, params: unknown[], name?: string) => Promise<T[]>;

/**
 * How validation reads: through the pool (named, so each connection plans the lookup once) when it
 * runs outside a transaction, else in the transaction. Raw SQL either way: a Prisma model query is
 * compiled per call, and that was most of the server time a bulk create spent on its lookups.
 */
export const refRead = (ctx: Ctx, db: Tx, pooled: boolean): RefRead =>
  pooled ? (sql, params, name) => ctx.services.database.query(sql, params, { name }) : (sql, params) => db.$queryRawUnsafe(sql, ...params);

/** Live rows of the project by UUID or id: $1 project, $2 UUIDs, $3 ids. */
const lookup = (table: 'assets' | 'entries', extra: string) => `SELECT id, uuid::text AS uuid${extra} FROM ${table}
    WHERE project_id = $1::int AND deleted_at IS NULL AND (uuid = ANY($2::uuid[]) OR id = ANY($3::int[]))`;
const ASSETS = lookup('assets', '');
// $4 the relation fields' target collections: they name the partitions read (entries are partitioned
// by collection), and the statement is sent unnamed so it is planned with them.
const ENTRIES = `${lookup('entries', ', collection_id AS "collectionId"')} AND collection_id = ANY($4::int[])`;
// A relation with no target collection may link any collection of the project: the project's
// collections are read first and given as $4 like targets. Not in the same statement: a partition set
// chosen by a subquery is known only at run time, and PostgreSQL then plans, and locks, every
// partition of every project (at a few hundred collections the lock table runs out).
const PROJECT_COLLECTIONS = `SELECT id FROM collections WHERE project_id = $1::int`;

/**
 * Resolves every queued media and relation reference of a batch with one query per kind, scoped to the
 * project (and, for relations, to the field's target collection). Found references are rewritten to
 * the target's UUID in place; missing, soft-deleted or foreign ones are 422s on their key.
 */
export async function resolveReferences(ctx: Ctx, read: RefRead, refs: PendingRef[], bag: ErrorBag): Promise<void> {
  const media = refs.filter((r) => r.kind === 'media');
  const relations = refs.filter((r) => r.kind === 'relation');
  const params = (list: PendingRef[]) => [
    ctx.project.id,
    [...new Set(list.flatMap((r) => (r.uuid ? [r.uuid] : [])))],
    [...new Set(list.flatMap((r) => (r.id ? [r.id] : [])))],
  ];

  if (media.length) {
    const assets = await read<{ id: number; uuid: string }>(ASSETS, params(media), 'cms_ref_assets');
    const byUuid = new Map(assets.map((a) => [a.uuid, a]));
    const byId = new Map(assets.map((a) => [a.id, a]));
    for (const r of media) {
      const a = r.uuid ? byUuid.get(r.uuid) : byId.get(r.id!);
      if (a) r.assign(a.uuid);
      else bag.add(r.key, `The selected ${label(r.field)} is invalid: asset ${describe(r)} does not exist in this project.`);
    }
  }

  if (relations.length) {
    const named = relations.map((r) => Number(r.field.options.relation?.collection));
    const targets = named.every((id) => Number.isSafeInteger(id))
      ? [...new Set(named)]
      : (await read<{ id: number }>(PROJECT_COLLECTIONS, [ctx.project.id], 'cms_ref_project_collections')).map((c) => c.id);
    const entries = await read<{ id: number; uuid: string; collectionId: number }>(ENTRIES, [...params(relations), targets], undefined);
    const byUuid = new Map(entries.map((e) => [e.uuid, e]));
    const byId = new Map(entries.map((e) => [e.id, e]));
    for (const r of relations) {
      const e = r.uuid ? byUuid.get(r.uuid) : byId.get(r.id!);
      const target = r.field.options.relation?.collection;
      if (e && (typeof target !== 'number' || e.collectionId === target)) r.assign(e.uuid);
      else bag.add(r.key, `The selected ${label(r.field)} is invalid: entry ${describe(r)} does not exist in the related collection.`);
    }
  }
}
