import { Prisma, type Database } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { ENTRY_COLUMNS, sameCollection } from './rows.ts';
import { isVisibleField } from './visibility.ts';
import { isUuid, type EntryRow, type ReadState } from './types.ts';

/**
 * The read repository of the published and draft read paths: entry rows straight through `pg`
 * instead of Prisma's client. An uncached read is a handful of statements, and Prisma's client
 * runtime and query compiler cost more CPU per statement than the statement itself (BENCHMARKS.md,
 * "The uncached read path"). Inside a transaction (a Ctx from txCtx) reads go through the
 * transaction's Prisma client as before: they must see its writes, and on PGlite a read outside the
 * transaction would wait for it.
 */
export function plainDatabase(ctx: Ctx): Database | null {
  return ctx.db === ctx.services.database.prisma ? ctx.services.database : null;
}

/** Runs a Prisma.Sql statement through pg when outside a transaction. `name` prepares it once per connection. */
export function readRows<T>(ctx: Ctx, statement: Prisma.Sql, name?: string): Promise<T[]> {
  const plain = plainDatabase(ctx);
  return plain ? plain.query<T>(statement.text, statement.values, { name }) : ctx.db.$queryRaw<T[]>(statement);
}

/**
 * The top-level relation fields a read of `collection` hydrates, by name. Relations inside groups
 * are hydrated too, but by the loader (one more statement): folding those into the row's statement
 * would need a path per group level.
 */
export function hydratedRelationNames(collection: CollectionSchema): string[] {
  return collection.fields.filter((f) => f.type === 'relation' && isVisibleField(f)).map((f) => f.name);
}

/**
 * A `linked` column: the live entries of the project that the row's top-level relation fields
 * (`$names`, a text[] parameter) name in the copy being read, as a JSON array of rows under
 * EntryRow keys. Served by the unique UUID index (one probe per link). Values that are not UUIDs
 * are skipped before the cast, as the loader skips them.
 */
const linkedColumn = (column: 'data' | 'published_data', names: Prisma.Sql): Prisma.Sql => Prisma.sql`(
  SELECT json_agg(json_build_object(
    'id', t.id, 'uuid', t.uuid::text, 'projectId', t.project_id, 'collectionId', t.collection_id, 'locale', t.locale,
    'translationGroupId', t.translation_group_id, 'state', t.state::text, 'data', t.data, 'publishedData', t.published_data,
    'publishedVersionId', t.published_version_id, 'publishedVersionNumber', t.published_version_number,
    'lastVersionNumber', t.last_version_number, 'isDraftDirty', t.is_draft_dirty, 'publishedAt', t.published_at,
    'publishedUpdatedAt', t.published_updated_at, 'createdAt', t.created_at, 'updatedAt', t.updated_at, 'deletedAt', t.deleted_at))
  FROM entries t
  WHERE t.uuid = ANY (ARRAY(
      SELECT l.v::uuid FROM unnest(${names}::text[]) AS f(name),
        LATERAL jsonb_array_elements_text(CASE jsonb_typeof(e.${Prisma.raw(column)} -> f.name)
          WHEN 'array' THEN e.${Prisma.raw(column)} -> f.name
          WHEN 'string' THEN jsonb_build_array(e.${Prisma.raw(column)} -> f.name) END) AS l(v)
       WHERE l.v ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'))
    AND t.project_id = e.project_id AND t.deleted_at IS NULL)`;

/** A linked row as json_build_object gives it: timestamps arrive as ISO text. */
type LinkedJson = Omit<EntryRow, 'publishedAt' | 'publishedUpdatedAt' | 'createdAt' | 'updatedAt' | 'deletedAt'> & {
  publishedAt: string | null;
  publishedUpdatedAt: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
};

const date = (v: string | null): Date | null => (v === null ? null : new Date(v));

function linkedRow(j: LinkedJson): EntryRow {
  return {
    ...j,
    publishedAt: date(j.publishedAt),
    publishedUpdatedAt: date(j.publishedUpdatedAt),
    createdAt: new Date(j.createdAt),
    updatedAt: new Date(j.updatedAt),
    deletedAt: date(j.deletedAt),
  };
}

/** Rows as read with their linked entries (EntryRow keys plus `linked`). */
export type RowWithLinks = EntryRow & { linked?: LinkedJson[] | null };

/**
 * What a read statement selects: the entry columns, plus the `linked` column when the collection
 * has top-level relations and the read goes through pg (the transaction path keeps the loader).
 */
export function readColumns(ctx: Ctx, collection: CollectionSchema, state: ReadState, withLinks = true): ReadColumns {
  if (!withLinks || !plainDatabase(ctx)) return PLAIN;
  // Per schema object (cached per schema revision, src/content/schemas.ts), so built once per shape.
  let built = columnsBySchema.get(collection);
  if (!built) {
    const links = hydratedRelationNames(collection);
    const make = (base: Prisma.Sql, column: 'data' | 'published_data'): ReadColumns =>
      links.length === 0 ? { columns: base, links } : { columns: Prisma.sql`${base}, ${linkedColumn(column, Prisma.sql`${links}`)} AS linked`, links };
    built = { draft: make(ENTRY_COLUMNS, 'data'), published: make(PUBLISHED_COLUMNS, 'published_data') };
    columnsBySchema.set(collection, built);
  }
  return built[state];
}

export interface ReadColumns {
  columns: Prisma.Sql;
  /** The relation fields whose targets the `linked` column carries (none: no such column). */
  links: string[];
}
const PLAIN: ReadColumns = { columns: ENTRY_COLUMNS, links: [] };

/**
 * The entry columns for the rows a published read answers with: the working draft (`data`) only
 * where the entry has no published version (those rows are a 404 or filtered out), since a
 * published read shows nothing of it. Half the JSON to send, parse and collect per row. Only the
 * rows the read answers with: linked rows go to the request's loader, where another root field of
 * the same request may read them as drafts, so they stay whole.
 */
const PUBLISHED_COLUMNS = Prisma.raw(
  ENTRY_COLUMNS.text.replace(/\be\.data,/, 'CASE WHEN e.published_version_id IS NULL THEN e.data END AS data,'),
);
const columnsBySchema = new WeakMap<CollectionSchema, Record<ReadState, ReadColumns>>();

/**
 * Splits rows read with `readColumns` into plain entry rows and the linked entries they carry, which
 * are handed to the request's entryByUuid loader so serialization finds them without a statement.
 * Every UUID the rows' relation fields name is settled: found (live, of this project) or null.
 */
export function takeLinked(rows: RowWithLinks[], links: string[], state: ReadState, prime: (uuid: string, row: EntryRow | null) => void): EntryRow[] {
  if (links.length === 0) return rows;
  const found = new Map<string, EntryRow>();
  const out = rows.map(({ linked, ...row }) => {
    for (const j of linked ?? []) if (!found.has(j.uuid)) found.set(j.uuid, linkedRow(j));
    return row as EntryRow;
  });
  const asked = new Set<string>();
  for (const row of out) {
    const value = state === 'draft' ? row.data : row.publishedData;
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    for (const name of links) {
      const v = Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
      for (const u of Array.isArray(v) ? v : [v]) if (isUuid(u)) asked.add(u.toLowerCase());
    }
  }
  for (const uuid of asked) prime(uuid, found.get(uuid) ?? null);
  return out;
}

/** The UUID lookup of a single-entry read (see sameCollection), with its links. */
export function entryByUuidStatement(columns: Prisma.Sql, collectionId: number, uuid: string): Prisma.Sql {
  return Prisma.sql`SELECT ${columns} FROM entries e WHERE e.uuid = ${uuid.toLowerCase()}::uuid AND ${sameCollection('e.collection_id', collectionId)} AND e.deleted_at IS NULL`;
}

const statementNames = new Map<string, string>();
/**
 * A prepared-statement name for a statement text that repeats (one per shape, not per value), so
 * PostgreSQL parses and plans it once per connection. Names are per process and bounded: past the
 * bound a text runs unnamed, as it did before.
 */
export function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < 256) {
    name = `cms_read_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}
