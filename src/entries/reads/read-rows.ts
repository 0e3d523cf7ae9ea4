import pg from 'pg';
import { Prisma, type Database } from '../../db/client.ts';
import { readSource, type Ctx } from '../../context.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { ENTRY_COLUMNS, sameCollection } from '../store/rows.ts';
import { isVisibleField } from '../../collections/visibility.ts';
import { isUuid, type EntryRow, type ReadState } from '../types.ts';
import type { TargetLookup } from '../../filtering/index.ts';

/**
 * The read repository of the published and draft read paths: entry rows straight through `pg`
 * instead of Prisma's client. An uncached read is a handful of statements, and Prisma's client
 * runtime and query compiler cost more CPU per statement than the statement itself (BENCHMARKS.md,
 * "Uncached reads"). Inside a transaction (a Ctx from txCtx) reads go through the
 * transaction's Prisma client as before: they must see its writes, and on PGlite a read outside the
 * transaction would wait for it. Whether outside a transaction, that is; which database a read then
 * asks (a replica or the primary) is readSource's choice (src/context.ts).
 */
export function plainDatabase(ctx: Ctx): Database | null {
  return ctx.db === ctx.services.database.prisma ? ctx.services.database : null;
}

/**
 * Runs a Prisma.Sql statement through pg when outside a transaction, where readSource says (a
 * database replica for a read-only request, else the primary). `name` prepares it once per
 * connection. Through pg, timestamptz columns arrive as the API's ISO text (isoInstant); through
 * Prisma as Dates: rows read here are ReadRows, which take either.
 */
export async function readRows<T>(ctx: Ctx, statement: Prisma.Sql, name?: string): Promise<T[]> {
  const { db, database } = await readSource(ctx);
  return database ? database.query<T>(statement.text, statement.values, { name, types: ISO_INSTANTS }) : db.$queryRaw<T[]>(statement);
}

/** A timestamp of a read row: a Date (Prisma, PGlite) or already the text the API shows (`toISOString()`'s form). */
export type Instant = Date | string;
type InstantKey = 'publishedAt' | 'publishedUpdatedAt' | 'createdAt' | 'updatedAt' | 'deletedAt';
/** An entry row as the read paths give it to the serializer and the request's loader. */
export type ReadRow = Omit<EntryRow, InstantKey> & {
  publishedAt: Instant | null;
  publishedUpdatedAt: Instant | null;
  createdAt: Instant;
  updatedAt: Instant;
  deletedAt: Instant | null;
};

/** The text an Instant is shown as: `toISOString()` (UTC, milliseconds, `Z`). */
export const instantText = (v: Instant): string => (typeof v === 'string' ? v : v.toISOString());

/**
 * `toISOString()`'s text for a timestamp printed as PostgreSQL prints one (`sep` between date and
 * time: ' ' as a column, 'T' inside JSON; `utc`: the zone suffix of UTC, '+00' or '+00:00'), or
 * null when `v` is in any other form (another session time zone, a year past 9999 or BC, more than
 * millisecond precision, infinity), which the caller parses as before. The columns hold
 * milliseconds (timestamptz(3)); PostgreSQL drops trailing zeros of the fraction.
 */
function isoFromPostgres(v: string, sep: number, utc: string): string | null {
  const fraction = v.length - utc.length - 19;
  if (fraction < 0 || fraction === 1 || fraction > 4 || v.charCodeAt(10) !== sep || v.charCodeAt(4) !== 45 || v.charCodeAt(19) !== (fraction === 0 ? utc.charCodeAt(0) : 46) || !v.endsWith(utc)) return null;
  const time = v.slice(11, 19 + fraction);
  return `${v.slice(0, 10)}T${time}${fraction === 0 ? '.000' : fraction === 2 ? '00' : fraction === 3 ? '0' : ''}Z`;
}

const defaultTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');
/** A timestamptz column as the API's text; any other form through pg's own parser, as before. */
const timestamptzText = (v: string): Instant => isoFromPostgres(v, 32, '+00') ?? (defaultTimestamptz(v) as Date);

/**
 * pg's parsers with timestamptz kept as text (for this module's statements only: pg's global
 * parsers are shared with Prisma's adapter). pg's own parser builds a Date per timestamp through a
 * regular expression, and the serializer formats it back with toISOString(): 5 per row.
 */
const ISO_INSTANTS = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary') return timestamptzText;
    return pg.types.getTypeParser(oid, (format ?? 'text') as 'text');
  },
};

/**
 * The top-level relation fields a read of `collection` hydrates, by name. Relations inside groups
 * are hydrated too, but by the loader (one more statement): folding those into the row's statement
 * would need a path per group level.
 */
export function hydratedRelationNames(collection: CollectionSchema): string[] {
  return collection.fields.filter((f) => f.type === 'relation' && isVisibleField(f)).map((f) => f.name);
}

/**
 * The collections those relation fields link to, as a condition on `alias.collection_id` with the ids
 * as literals: it names the partitions a linked-row lookup reads, so the lookup is planned over them
 * alone (entries are partitioned by collection), prepared or not. A relation field only ever links
 * entries of its target collection (src/entries/values/references.ts).
 */
export function linkedCollectionsCondition(collection: CollectionSchema, alias: string): Prisma.Sql {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(alias)) throw new Error(`invalid SQL alias ${alias}`);
  const ids = [
    ...new Set(
      collection.fields
        .filter((f) => f.type === 'relation' && isVisibleField(f))
        .map((f) => Number(f.options.relation?.collection))
        .filter((id) => Number.isSafeInteger(id)),
    ),
  ].sort((a, b) => a - b);
  if (ids.length === 0) return Prisma.raw('false');
  return Prisma.raw(ids.length === 1 ? `${alias}.collection_id = ${ids[0]}` : `${alias}.collection_id IN (${ids.join(', ')})`);
}

/** The linked rows of `entries t` as a JSON array under EntryRow keys (see LinkedJson). */
const LINKED_ROWS = Prisma.raw(`json_agg(json_build_object(
    'id', t.id, 'uuid', t.uuid::text, 'projectId', t.project_id, 'collectionId', t.collection_id, 'locale', t.locale,
    'translationGroupId', t.translation_group_id, 'state', t.state::text,
    'data', CASE WHEN t.data = t.published_data THEN NULL ELSE t.data END, 'publishedData', t.published_data,
    'publishedVersionId', t.published_version_id, 'publishedVersionNumber', t.published_version_number,
    'lastVersionNumber', t.last_version_number, 'isDraftDirty', t.is_draft_dirty, 'publishedAt', t.published_at,
    'publishedUpdatedAt', t.published_updated_at, 'createdAt', t.created_at, 'updatedAt', t.updated_at, 'deletedAt', t.deleted_at,
    'dataIsPublished', t.data = t.published_data))`);

/**
 * The linked rows of `entries t` in the slim shape (see slimRow): only what serializing a
 * linked entry's fields reads: its id, UUID, collection, whether it has a published version, and the
 * copies a read of `column` may show (a published read's `includeDraft` relation falls back to the
 * draft of an entry without a published version). No timestamps: printing five of them per linked
 * row was most of the object's cost in PostgreSQL.
 */
const slimLinkedRows = (column: 'data' | 'published_data'): Prisma.Sql => Prisma.raw(`json_agg(json_build_object(
    'id', t.id, 'uuid', t.uuid::text, 'collectionId', t.collection_id, 'publishedVersionId', t.published_version_id,
    ${column === 'data' ? "'data', t.data" : "'data', CASE WHEN t.published_version_id IS NULL THEN t.data END, 'publishedData', t.published_data"}))`);
const LINKED_ROWS_OF = {
  full: { data: LINKED_ROWS, published_data: LINKED_ROWS },
  slim: { data: slimLinkedRows('data'), published_data: slimLinkedRows('published_data') },
} as const;

/**
 * The shape of the rows a read gives, and of the linked rows it carries: `full` rows (every column,
 * as the loader reads them), or `slim` rows for a reader that shows none of the entries' or linked
 * entries' metadata (locale, state, version numbers, draft flag, timestamps) and reads no fallback
 * chain: their other keys hold neutral values (slimRow), which nothing that reader shows reads.
 */
export type RowShape = 'full' | 'slim';

/**
 * The UUIDs that the relation fields `names` (a text[] expression) of row `row` name in `column`:
 * FROM and WHERE of a select list `l.v::uuid`, after `from` (other FROM items, ending in a comma).
 * Values that are not UUIDs are skipped before the cast, as the loader skips them.
 */
const linkTargets = (from: Prisma.Sql, row: string, column: 'data' | 'published_data', names: Prisma.Sql): Prisma.Sql => {
  const value = Prisma.raw(`${row}.${column} -> f.name`);
  return Prisma.sql`FROM ${from}unnest(${names}::text[]) AS f(name),
        LATERAL jsonb_array_elements_text(CASE jsonb_typeof(${value})
          WHEN 'array' THEN ${value}
          WHEN 'string' THEN jsonb_build_array(${value}) END) AS l(v)
       WHERE l.v ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`;
};

/**
 * A `linked` column: the live entries of the project that the row's top-level relation fields
 * (`$names`, a text[] parameter) name in the copy being read, as a JSON array of rows under
 * EntryRow keys. Served by the unique UUID index (one probe per link).
 */
const linkedColumn = (column: 'data' | 'published_data', names: Prisma.Sql, targets: Prisma.Sql, shape: RowShape): Prisma.Sql => Prisma.sql`(
  SELECT ${LINKED_ROWS_OF[shape][column]}
  FROM entries t
  WHERE ${targets} AND t.uuid = ANY (ARRAY(SELECT l.v::uuid ${linkTargets(Prisma.empty, 'e', column, names)}))
    AND t.project_id = e.project_id AND t.deleted_at IS NULL)`;

/**
 * The `linked` column of a page read from the materialized CTE `p` (src/entries/reads/page-rows.ts): the
 * links of every row of the page in one read, carried by the page's lowest id (takeLinked gathers
 * them from any row). `names` and `projectId` are SQL literals, so the text has no parameter.
 */
export const pageLinkedColumn = (state: ReadState, names: Prisma.Sql, targets: Prisma.Sql, projectId: number, shape: RowShape): Prisma.Sql => Prisma.sql`CASE WHEN e.id = (SELECT min(id) FROM p) THEN (
  SELECT ${LINKED_ROWS_OF[shape][state === 'draft' ? 'data' : 'published_data']}
  FROM entries t
  WHERE ${targets} AND t.uuid = ANY (ARRAY(SELECT DISTINCT l.v::uuid ${linkTargets(Prisma.raw('p AS q, '), 'q', state === 'draft' ? 'data' : 'published_data', names)}))
    AND t.project_id = ${Prisma.raw(String(Math.trunc(projectId)))} AND t.deleted_at IS NULL) END`;

/**
 * A linked row as json_build_object gives it: timestamps arrive as ISO text, and `data` is null when
 * it equals `publishedData` (`dataIsPublished`), as it does for every entry published without a
 * draft since: the same JSON is not printed, sent and parsed twice. jsonb equality is exact up to
 * number spelling (`1.0` = `1`), which JSON.parse does not keep either.
 */
type LinkedJson = Omit<EntryRow, InstantKey> & {
  dataIsPublished?: boolean | null;
  publishedAt: string | null;
  publishedUpdatedAt: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
};

/**
 * A JSON timestamp (json_build_object prints `2026-11-21T09:05:03.12+00:00`) as an Instant. Other
 * forms go through pg's parser as a column would (`new Date` took neither a year past 9999 nor BC).
 */
const jsonInstant = (v: string): Instant => isoFromPostgres(v, 84, '+00:00') ?? (defaultTimestamptz(v.replace('T', ' ')) as Date);
const jsonInstantOrNull = (v: string | null): Instant | null => (v === null ? null : jsonInstant(v));

/** The keys a slim row (linked, slimLinkedRows, or read, SLIM_COLUMNS) has; `searchScore` when the list searches. */
type SlimRow = Pick<EntryRow, 'id' | 'uuid' | 'collectionId' | 'publishedVersionId' | 'data'> & { publishedData?: EntryRow['publishedData']; searchScore?: unknown };

/**
 * A slim row as a ReadRow: the keys it does not carry hold neutral values rather than being
 * absent, so that the serializer's resource (which formats every timestamp) runs unchanged; a slim
 * read is only asked for where none of them is shown. A new object of one literal shape: adding
 * the missing keys to the row pg built cost more than parsing the columns saved.
 */
function slimRow(j: SlimRow): ReadRow {
  const row: ReadRow = {
    id: j.id, uuid: j.uuid, projectId: 0, collectionId: j.collectionId, locale: '', translationGroupId: null, state: 'draft',
    data: j.data ?? null, publishedData: j.publishedData ?? null, publishedVersionId: j.publishedVersionId, publishedVersionNumber: null,
    lastVersionNumber: 0, isDraftDirty: false, publishedAt: null, publishedUpdatedAt: null, createdAt: '', updatedAt: '', deletedAt: null,
  };
  if (j.searchScore !== undefined) (row as ReadRow & { searchScore?: unknown }).searchScore = j.searchScore;
  return row;
}

/** The columns of a slim read (RowShape): as the linked rows of slimLinkedRows. */
const SLIM_COLUMNS = {
  draft: Prisma.raw(`e.id, e.uuid::text AS uuid, e.collection_id AS "collectionId", e.published_version_id AS "publishedVersionId", e.data`),
  published: Prisma.raw(
    `e.id, e.uuid::text AS uuid, e.collection_id AS "collectionId", e.published_version_id AS "publishedVersionId", CASE WHEN e.published_version_id IS NULL THEN e.data END AS data, e.published_data AS "publishedData"`,
  ),
} as const;

/** The linked row as a ReadRow: the parsed JSON object itself, its timestamps replaced. */
function linkedRow(j: LinkedJson): ReadRow {
  if (j.dataIsPublished) j.data = j.publishedData;
  // The last key JSON.parse added: V8 deletes it without leaving the object's fast shape.
  delete j.dataIsPublished;
  const row = j as unknown as ReadRow;
  row.publishedAt = jsonInstantOrNull(j.publishedAt);
  row.publishedUpdatedAt = jsonInstantOrNull(j.publishedUpdatedAt);
  row.createdAt = jsonInstant(j.createdAt);
  row.updatedAt = jsonInstant(j.updatedAt);
  row.deletedAt = jsonInstantOrNull(j.deletedAt);
  return row;
}

/** Rows as read with their linked entries (ReadRow keys plus `linked`). */
export type RowWithLinks = ReadRow & { linked?: LinkedJson[] | null };

/**
 * What a read statement selects: the entry columns, plus the `linked` column when the collection
 * has top-level relations and the read goes through pg (the transaction path keeps the loader).
 */
export function readColumns(ctx: Ctx, collection: CollectionSchema, state: ReadState, withLinks = true, shape: RowShape = 'full'): ReadColumns {
  if (!withLinks || !plainDatabase(ctx)) return PLAIN;
  // Per schema object (cached per schema revision, src/collections/schema-cache.ts), so built once per shape.
  let built = columnsBySchema.get(collection);
  if (!built) {
    const links = hydratedRelationNames(collection);
    const targets = linkedCollectionsCondition(collection, 't');
    const make = (base: Prisma.Sql, column: 'data' | 'published_data', linked: RowShape): ReadColumns =>
      links.length === 0
        ? { columns: base, entry: base, links, shape: linked }
        : { columns: Prisma.sql`${base}, ${linkedColumn(column, Prisma.sql`${links}`, targets, linked)} AS linked`, entry: base, links, targets, shape: linked };
    built = {
      full: { draft: make(ENTRY_COLUMNS, 'data', 'full'), published: make(PUBLISHED_COLUMNS, 'published_data', 'full') },
      slim: { draft: make(SLIM_COLUMNS.draft, 'data', 'slim'), published: make(SLIM_COLUMNS.published, 'published_data', 'slim') },
    };
    columnsBySchema.set(collection, built);
  }
  return built[shape][state];
}

export interface ReadColumns {
  columns: Prisma.Sql;
  /** `columns` without the `linked` column. */
  entry: Prisma.Sql;
  /** The relation fields whose targets the `linked` column carries (none: no such column). */
  links: string[];
  /** The condition naming the collections those fields link to, over `entries t` (linkedCollectionsCondition). */
  targets?: Prisma.Sql;
  /** The shape of the `linked` column's rows. */
  shape: RowShape;
}
const PLAIN: ReadColumns = { columns: ENTRY_COLUMNS, entry: ENTRY_COLUMNS, links: [], shape: 'full' };

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
const columnsBySchema = new WeakMap<CollectionSchema, Record<RowShape, Record<ReadState, ReadColumns>>>();

/**
 * Splits rows read with `readColumns` into plain entry rows and the linked entries they carry, which
 * are handed to the request's entryByUuid loader so serialization finds them without a statement.
 * Every UUID the rows' relation fields name is settled: found (live, of this project) or null.
 * Rows and linked rows read in the `slim` shape (`shape`, as readColumns was asked) are given as slimRow makes them.
 */
export function takeLinked(rows: RowWithLinks[], links: string[], state: ReadState, prime: (uuid: string, row: ReadRow | null) => void, shape: RowShape = 'full'): ReadRow[] {
  if (links.length === 0) return shape === 'slim' ? rows.map(slimRow) : rows;
  const found = new Map<string, ReadRow>();
  const out: ReadRow[] = shape === 'slim' ? rows.map(slimRow) : rows;
  const toRow = shape === 'slim' ? slimRow : linkedRow;
  for (const row of rows) {
    for (const j of row.linked ?? []) if (!found.has(j.uuid)) found.set(j.uuid, toRow(j));
    // Cleared, not destructured away: a copy of every row only to drop one key.
    row.linked = undefined;
  }
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

/**
 * Prepared-statement names by statement text, per kind, each map with its own bound: `read` for
 * the statements of one shape per collection and state (single-entry reads, the live hub), `page`
 * for list pages (src/entries/reads/page-rows.ts), whose texts also vary with the page size and sort, so
 * that a client walking through page sizes cannot use up the names of the other reads, and `targets`
 * for nested relation filters' target lookups (one text per filter shape, which clients choose).
 */
const statementNames = { read: new Map<string, string>(), page: new Map<string, string>(), targets: new Map<string, string>() };
// A page statement's cached plan is ~200 kB of a PostgreSQL backend's memory (pg_backend_memory_contexts),
// per pooled connection that ran it: 64 of them is at most ~13 MB per connection. A target lookup
// (src/filtering/compile.ts) scans one collection: its plan is a small fraction of that.
export const STATEMENT_NAME_BOUNDS = { read: 256, page: 64, targets: 128 } as const;
export type StatementKind = keyof typeof statementNames;

/**
 * A prepared-statement name for a statement text that repeats (one per shape, not per value), so
 * PostgreSQL parses and plans it once per connection. Names are per process and bounded: past the
 * bound a text runs unnamed, as it did before. A name is never given to another text (pg refuses a
 * name prepared on a connection with another text, and no connection is told to forget one).
 */
export function statementName(text: string, kind: StatementKind = 'read'): string | undefined {
  const names = statementNames[kind];
  let name = names.get(text);
  if (name === undefined && names.size < STATEMENT_NAME_BOUNDS[kind]) {
    name = `cms_${kind}_${names.size}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs a nested relation filter's target lookup (src/filtering/compile.ts) for a read, prepared per
 * connection on PostgreSQL: its text is the filter's shape with every value a parameter, and planning
 * it over the entries table's partial indexes cost several times what running it does (a
 * 200-entry target collection: ~0.3 ms of PostgreSQL CPU unnamed, ~0.05 ms prepared).
 */
export const targetLookup = (ctx: Ctx): TargetLookup => (statement) =>
  readRows(ctx, statement, plainDatabase(ctx)?.kind === 'postgres' ? statementName(statement.text, 'targets') : undefined);
