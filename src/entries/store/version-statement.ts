import type { Entry, Plan } from '../../db/generated/prisma/client.ts';
import { ENTRY_COLUMNS } from './rows.ts';
import { passwordNamesSql } from './snapshot.ts';
import type { Tx, TxQuery } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import { contentEventsInsertSql, outboxWritten } from '../../events/outbox.ts';

/**
 * The one writer of `entry_versions`, and of the outbox rows that ride in an entry's own statement.
 *
 * A version row, the retention prune, the entry's published pointer and copy, and (on the lock-free
 * paths) the outbox events are written by statements built here, from one set of fragments: the locked
 * mint, the publish that needs no lock, a create that publishes (inside a transaction or lock-free),
 * the draft save that needs no lock, `cms import`, a version's label edit, and (./update-statement.ts,
 * from these fragments) the bulk update that publishes without a lock. Each rule (which columns
 * a version gets, which versions retention drops, what a publish leaves in the entry row) is written
 * once, and the statements that insert events also tell the dispatcher (`outboxWritten`), so no caller
 * can forget to. test/entries/one-writer.test.ts fails if SQL writing either table appears elsewhere.
 *
 * Every write stays the one statement it was: the lock-free paths exist to do a write in one round
 * trip, and statement counts are pinned by tests.
 */

/** Versions kept per entry by plan (docs/foundation.md); null = unlimited. */
export const RETENTION: Record<Plan, number | null> = { basic: 10, grow: 50, pro: null };

/** Versions numbered at or below this go when version `number` is made (0 = keep everything). */
export function retentionFloor(plan: Plan, number: number): number {
  const keep = RETENTION[plan];
  return keep === null ? 0 : Math.max(0, number - keep);
}

// ── Fragments. Arguments are SQL expressions (column references or placeholders) of the caller's statement.

interface VersionValues {
  /** The relation the rows come from (`input i`, `l`, …), optionally with a WHERE condition. */
  from: string;
  where?: string;
  id: string;
  uuid: string;
  entryId: string;
  /** The entry's collection id. */
  collection: string;
  number: string;
  locale: string;
  group: string;
  snapshot: string;
  /** published_at = created_at = updated_at. */
  at: string;
  token: string;
  returning?: string;
}

export const insertVersions = (v: VersionValues): string => `INSERT INTO entry_versions (id, uuid, entry_id, collection_id, version_number, locale, translation_group_id, snapshot, published_at, created_at, updated_at, created_by_token_id)
    SELECT ${v.id}, ${v.uuid}, ${v.entryId}, ${v.collection}, ${v.number}, ${v.locale}, ${v.group}, ${v.snapshot}, ${v.at}, ${v.at}, ${v.at}, ${v.token}
    FROM ${v.from}${v.where ? ` WHERE ${v.where}` : ''}${v.returning ? `\n    RETURNING ${v.returning}` : ''}`;

/**
 * Retention by plan. It runs in the statement that inserts the new version, and a data-modifying CTE
 * cannot see rows inserted by its own statement, so the version just made is never pruned. Only
 * entries with a floor are visited, and through the (entry_id, version_number) index: the planner
 * guesses 100 rows for a JSON input and hash-joined it against a sequential scan of every version of
 * every entry, on each publish, whether the plan prunes anything or not.
 */
export const pruneVersions = (from: string, entryId: string, floor: string): string =>
  `DELETE FROM entry_versions ev USING ${from}
    WHERE ev.entry_id = ANY(ARRAY(SELECT ${entryId} FROM ${from} WHERE ${floor} > 0)) AND ev.entry_id = ${entryId} AND ev.version_number <= ${floor}`;

interface PointerMove {
  from: string;
  /** The condition on `t.collection_id` that names the entries' partitions (a literal or a bound value). */
  collection: string;
  entryId: string;
  versionId: string;
  number: string;
  /** The published copy: the snapshot's fields, passwords left out. */
  fields: string;
  at: string;
  /** Replaces the working draft (revert); omitted = the draft stays. */
  draft?: string;
  returning: string;
}

/** What a publish leaves in the entry row: the pointer, the published copy, a clean draft. */
const movePointers = (p: PointerMove): string => `UPDATE entries AS t SET${p.draft ? `\n      data = COALESCE(${p.draft}, t.data),` : ''}
      state = 'published',
      published_data = ${p.fields},
      published_version_id = ${p.versionId},
      published_version_number = ${p.number},
      last_version_number = ${p.number},
      is_draft_dirty = false,
      published_at = COALESCE(t.published_at, ${p.at}),
      updated_at = ${p.at}
    FROM ${p.from}
    WHERE t.collection_id ${p.collection} AND t.id = ${p.entryId}
    RETURNING ${p.returning}`;

/** The placeholders of an event insert: project id, source, and the two contentEventParams. */
type EventPlaceholders = { project: string; source: string; rows: string; entries: string };

/**
 * The outbox rows of the change, inserted by its own statement (so in its commit) when `gate` holds.
 * `written` is the CTE whose `RETURNING *` holds the entry rows as the statement leaves them: what
 * each event's `committed` records (src/events/outbox.ts).
 */
export const eventsCte = (p: EventPlaceholders, written: string, gate: string): string => `inserted AS (
    ${contentEventsInsertSql({ ...p, written, withheld: passwordNamesSql }, gate)}
  )`;

/**
 * Runs a statement that inserts events: true when it wrote, and then this process's dispatcher is
 * told. No NOTIFY rides in it: a NOTIFY takes a cluster-wide lock at commit, and other replicas'
 * readers are woken by the hint sent after the write (src/db/change-hints.ts) or their poll.
 */
export async function writeWithEvents(ctx: Ctx, text: string, params: unknown[], name?: string): Promise<boolean> {
  const written = await ctx.services.database.query(text, params, { name });
  if (written.length === 0) return false;
  outboxWritten(ctx);
  return true;
}

// ── The locked mint (inside the transaction that holds the entry rows' locks).

/** One version to mint on a locked entry (src/entries/store/mint.ts computes it from the locked row). */
export interface MintRow {
  entry_id: number;
  collection_id: number;
  uuid: string;
  number: number;
  locale: string;
  translation_group_id: number | null;
  snapshot: unknown;
  fields: Record<string, unknown>;
  draft: Record<string, unknown> | null;
  floor: number;
}

const MINT = `WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS r(entry_id int, collection_id int, uuid uuid, number int, locale text, translation_group_id int, snapshot jsonb, fields jsonb, draft jsonb, floor int)
  ),
  v AS (
    ${insertVersions({ from: 'input i', id: `nextval('entry_versions_id_seq')`, uuid: 'i.uuid', entryId: 'i.entry_id', collection: 'i.collection_id', number: 'i.number', locale: 'i.locale', group: 'i.translation_group_id', snapshot: 'i.snapshot', at: '$2::timestamptz', token: '$3::int', returning: 'id, entry_id' })}
  ),
  pruned AS (
    ${pruneVersions('input i', 'i.entry_id', 'i.floor')}
  ),
  e AS (
    ${movePointers({ from: 'input i JOIN v ON v.entry_id = i.entry_id', collection: '= ANY($4::int[])', entryId: 'i.entry_id', versionId: 'v.id', number: 'i.number', fields: 'i.fields', at: '$2::timestamptz', draft: 'i.draft', returning: 't.*, v.id AS version_id' })}
  )
  SELECT ${ENTRY_COLUMNS.text}, e.version_id AS "versionId" FROM e`;

/** Inserts the versions, prunes by plan and moves every pointer, in one statement; the entry rows as left, each with its new version's id. */
export function writeMintedVersions(tx: Tx, rows: MintRow[], at: Date, tokenId: number | null): Promise<Array<Entry & { versionId: number }>> {
  const collections = [...new Set(rows.map((r) => r.collection_id))];
  return tx.$queryRawUnsafe<Array<Entry & { versionId: number }>>(MINT, JSON.stringify(rows), at.toISOString(), tokenId, collections);
}

// ── The publish that needs no lock (src/entries/operations/publish-without-lock.ts).

const PUBLISH_IF_UNCHANGED = `WITH l AS (
    SELECT id, locale, translation_group_id FROM entries WHERE collection_id = $15::int AND id = $1::int AND xmin = $2::text::xid AND deleted_at IS NULL FOR UPDATE
  ),
  v AS (
    ${insertVersions({ from: 'l', id: '$3::int', uuid: '$4::uuid', entryId: 'l.id', collection: '$15::int', number: '$5::int', locale: 'l.locale', group: 'l.translation_group_id', snapshot: '$6::jsonb', at: '$8::timestamptz', token: '$9::int', returning: 'id, entry_id' })}
  ),
  pruned AS (
    ${pruneVersions('l', 'l.id', '$10::int')}
  ),
  e AS (
    ${movePointers({ from: 'v', collection: '= $15::int', entryId: 'v.entry_id', versionId: 'v.id', number: '$5::int', fields: '$7::jsonb', at: '$8::timestamptz', returning: 't.*' })}
  ),
  ${eventsCte({ project: '$11::int', source: '$12::text', rows: '$13', entries: '$14' }, 'e', 'EXISTS (SELECT 1 FROM e)')}
  SELECT 1 FROM e`;

export interface UnlockedPublish {
  entryId: number;
  collectionId: number;
  /** The row version the publish was computed from; nothing is written when the row has changed since. */
  xmin: string;
  versionId: number;
  versionUuid: string;
  number: number;
  snapshot: unknown;
  fields: Record<string, unknown>;
  at: Date;
  tokenId: number | null;
  /** contentEventParams of the `content.published` event. */
  events: { rows: string; entries: string };
}

/** The publish as one statement, if the row is still the one read: true when it was written (events included). */
export function publishIfUnchanged(ctx: Ctx, p: UnlockedPublish): Promise<boolean> {
  return writeWithEvents(
    ctx,
    PUBLISH_IF_UNCHANGED,
    [
      p.entryId, p.xmin, p.versionId, p.versionUuid, p.number, JSON.stringify(p.snapshot), JSON.stringify(p.fields), p.at.toISOString(), p.tokenId,
      retentionFloor(ctx.project.plan, p.number), ctx.project.id, ctx.source, p.events.rows, p.events.entries, p.collectionId,
    ],
    // Unnamed: planned with the collection id, so over that collection's partition alone.
  );
}

// ── A create that publishes: the entries and their version 1 in one statement.

/**
 * The entries of a create and version 1 of those that publish on create. The version id is known
 * before the row is written, so the row points at it; both foreign keys (entry -> version, version ->
 * entry) are checked at the end of the statement, when both rows exist. Password values are left out
 * of the snapshot and `published_data` by the mint's rule (`passwordNames`). Retention never prunes
 * version 1 (every plan keeps at least 10). `input` gives id, uuid, locale, data, version_id, published.
 */
const createCtes = (c: { project: string; collection: string; group: string; at: string; token: string; returning: string }): string => `e AS (
    INSERT INTO entries AS e (id, uuid, project_id, collection_id, locale, translation_group_id, data, is_draft_dirty, created_at, updated_at,
      state, published_data, published_version_id, published_version_number, last_version_number, published_at)
    SELECT i.id, i.uuid, ${c.project}, ${c.collection}, i.locale, ${c.group}, i.data, i.version_id IS NULL, ${c.at}, ${c.at},
      (CASE WHEN i.version_id IS NULL THEN 'draft' ELSE 'published' END)::"EntryState", i.published, i.version_id,
      CASE WHEN i.version_id IS NOT NULL THEN 1 END, CASE WHEN i.version_id IS NULL THEN 0 ELSE 1 END,
      CASE WHEN i.version_id IS NOT NULL THEN ${c.at} END
    FROM input i
    ORDER BY i.id
    RETURNING ${c.returning}
  ),
  v AS (
    ${insertVersions({
      from: 'input i JOIN e ON e.id = i.id',
      where: 'i.version_id IS NOT NULL',
      id: 'i.version_id',
      uuid: 'gen_random_uuid()',
      entryId: 'i.id',
      collection: c.collection,
      number: '1',
      locale: 'i.locale',
      group: c.group,
      snapshot: `jsonb_build_object('fields', i.published, 'meta', jsonb_build_object('locale', i.locale, 'translation_group_id', ${c.group}))`,
      at: c.at,
      token: c.token,
    })}
  )`;

/**
 * Inside a transaction (src/entries/store/persist.ts): ids are drawn by the statement itself.
 * $1 the rows (uuid, locale, data, publish), $2 project, $3 collection, $4 translation group, $5 token.
 */
const CREATE_PUBLISHING = `WITH pw AS (
    SELECT ${passwordNamesSql('$3::int')} AS names
  ),
  input AS MATERIALIZED (
    SELECT nextval('entries_id_seq')::int AS id, r.uuid, r.locale, r.data,
      CASE WHEN r.publish THEN nextval('entry_versions_id_seq')::int END AS version_id,
      CASE WHEN r.publish THEN r.data - pw.names END AS published
    FROM jsonb_to_recordset($1::jsonb) AS r(uuid uuid, locale text, data jsonb, publish boolean), pw
  ),
  ${createCtes({ project: '$2::int', collection: '$3::int', group: '$4::int', at: 'now()', token: '$5::int', returning: 'e.*' })}
  SELECT ${ENTRY_COLUMNS.text} FROM e`;

export interface CreatedItem {
  uuid: string;
  locale: string;
  data: unknown;
  publish: boolean;
}

/** Inserts the entries (in input order of ids), version 1 of those that publish; the rows as written. */
export function insertEntriesPublishing(tx: Tx, ctx: Ctx, collectionId: number, group: number | null, items: CreatedItem[], tokenId: number | null): Promise<Entry[]> {
  return tx.$queryRawUnsafe<Entry[]>(CREATE_PUBLISHING, JSON.stringify(items), ctx.project.id, collectionId, group, tokenId);
}

/**
 * Lock-free (src/entries/operations/create-without-lock.ts): ids and times given, the events in the
 * same statement. $1 project, $2 collection, $3 the rows, $4 time, $5 token, $6-$7 the events,
 * $8 the source.
 */
const CREATE_WITHOUT_LOCK = `WITH pw AS (
    SELECT ${passwordNamesSql('$2::int')} AS names
  ),
  input AS (
    SELECT r.id, r.uuid, r.locale, r.data, r.version_id, CASE WHEN r.version_id IS NOT NULL THEN r.data - pw.names END AS published
    FROM jsonb_to_recordset($3::jsonb) AS r(id int, uuid uuid, locale text, data jsonb, version_id int), pw
  ),
  ${createCtes({ project: '$1::int', collection: '$2::int', group: 'NULL::int', at: '$4::timestamptz', token: '$5::int', returning: 'e.*' })},
  ${eventsCte({ project: '$1::int', source: '$8::text', rows: '$6', entries: '$7' }, 'e', 'EXISTS (SELECT 1 FROM e)')}
  SELECT 1 WHERE EXISTS (SELECT 1 FROM inserted)`;

export interface PreparedCreate {
  collectionId: number;
  /** Drawn ids; version_id set for the items that publish on create. */
  rows: Array<{ id: number; uuid: string; locale: string; data: unknown; version_id: number | null }>;
  at: Date;
  tokenId: number | null;
  events: { rows: string; entries: string };
}

const createParams = (ctx: Ctx, c: PreparedCreate): unknown[] => [
  ctx.project.id, c.collectionId, JSON.stringify(c.rows), c.at.toISOString(), c.tokenId, c.events.rows, c.events.entries, ctx.source,
];

export async function createWithEvents(ctx: Ctx, c: PreparedCreate): Promise<void> {
  await writeWithEvents(ctx, CREATE_WITHOUT_LOCK, createParams(ctx, c), 'cms_bulk_create_without_lock');
}

/** Thrown inside the transaction of writeWithEventsIfAccepted to roll it back. */
class Refused extends Error {}

/**
 * A writing statement in a transaction of its own on one pooled connection, then `accept` in that
 * transaction (it may take locks and read what committed meanwhile): committed when it answers true,
 * rolled back, events included, when it answers false. `changed`: the statement wrote nothing (a row
 * it names moved since it was read); `refused`: `accept` said no and nothing was kept.
 */
export async function writeWithEventsIfAccepted(
  ctx: Ctx,
  text: string,
  params: unknown[],
  name: string | undefined,
  accept: (query: TxQuery) => Promise<boolean>,
): Promise<'written' | 'changed' | 'refused'> {
  const db = ctx.services.database;
  if (!db.transaction) throw new Error('writeWithEventsIfAccepted needs a database with transactions outside Prisma.');
  try {
    const outcome = await db.transaction(async (query) => {
      if ((await query(text, params, { name })).length === 0) return 'changed' as const;
      if (!(await accept(query))) throw new Refused();
      return 'written' as const;
    });
    if (outcome === 'written') outboxWritten(ctx);
    return outcome;
  } catch (err) {
    if (err instanceof Refused) return 'refused';
    throw err;
  }
}

/** The create statement, then `accept` (writeWithEventsIfAccepted): true when the rows were written. */
export async function createWithEventsIfAccepted(ctx: Ctx, c: PreparedCreate, accept: (query: TxQuery) => Promise<boolean>): Promise<boolean> {
  return (await writeWithEventsIfAccepted(ctx, CREATE_WITHOUT_LOCK, createParams(ctx, c), 'cms_bulk_create_without_lock', accept)) === 'written';
}

// ── The draft save that needs no lock (no version; the event rides in the row's statement).

const SAVE_IF_UNCHANGED = `WITH u AS (
    UPDATE entries AS e SET data = $1::jsonb, locale = $2::text, is_draft_dirty = true, updated_at = $3::timestamptz
    WHERE e.collection_id = $10::int AND e.id = $4::int AND e.xmin = $5::text::xid AND e.deleted_at IS NULL
    RETURNING e.*
  ),
  ${eventsCte({ project: '$6::int', source: '$7::text', rows: '$8', entries: '$9' }, 'u', 'EXISTS (SELECT 1 FROM u)')}
  SELECT 1 FROM u`;

export interface UnlockedSave {
  entryId: number;
  collectionId: number;
  xmin: string;
  data: unknown;
  locale: string;
  at: Date;
  events: { rows: string; entries: string };
}

/** The save as one statement, if the row is still the one read: true when it was written (event included). */
export function saveDraftIfUnchanged(ctx: Ctx, s: UnlockedSave): Promise<boolean> {
  return writeWithEvents(
    ctx,
    SAVE_IF_UNCHANGED,
    [JSON.stringify(s.data), s.locale, s.at.toISOString(), s.entryId, s.xmin, ctx.project.id, ctx.source, s.events.rows, s.events.entries, s.collectionId],
    // Unnamed: planned with the collection id, so over that collection's partition alone.
  );
}

// ── cms import: versions copied as exported (numbers, labels, times), then the pointers.

/** The record columns of an imported version, as `jsonb_to_recordset` declares them. */
const IMPORTED_VERSION = `uuid uuid, entry_id int, collection_id int, version_number int, label text, description text, locale text, translation_group_id int,
  snapshot jsonb, published_at timestamptz, created_at timestamptz, updated_at timestamptz`;

export async function insertImportedVersions(tx: Tx, versions: object[]): Promise<void> {
  if (versions.length === 0) return;
  await tx.$executeRawUnsafe(
    `INSERT INTO entry_versions (uuid, entry_id, collection_id, version_number, label, description, locale, translation_group_id, snapshot, published_at, created_at, updated_at)
     SELECT x.uuid, x.entry_id, x.collection_id, x.version_number, x.label, x.description, x.locale, x.translation_group_id, x.snapshot, x.published_at, x.created_at, x.updated_at
     FROM jsonb_to_recordset($1::jsonb) AS x(${IMPORTED_VERSION})`,
    JSON.stringify(versions),
  );
}

/**
 * `cms import --new-ids` rewrites the rich-text links of the snapshots it has just written, in the
 * import's own transaction, before anyone can read them: the one change a snapshot ever sees.
 */
export async function rewriteImportedSnapshot(tx: Tx, collectionId: number, versionId: number, snapshot: object): Promise<void> {
  await tx.$executeRaw`UPDATE entry_versions SET snapshot = ${JSON.stringify(snapshot)}::jsonb WHERE collection_id = ${collectionId} AND id = ${versionId}`;
}

/** Points each imported entry at its published version, found by the number the export gave. */
export async function pointAtImportedVersions(tx: Tx, collectionIds: number[], entryIds: number[]): Promise<void> {
  await tx.$executeRaw`
    UPDATE entries e SET published_version_id = v.id
    FROM entry_versions v WHERE e.collection_id = ANY(${collectionIds}::int[]) AND e.id = ANY(${entryIds}::int[]) AND v.entry_id = e.id AND v.version_number = e.published_version_number`;
}

// ── A version's notes: the only columns of a version that ever change (the snapshot is immutable).

/** Sets label/description of one version; the number of versions changed (0: none, e.g. pruned by a concurrent publish). */
export async function updateVersionNotes(
  db: Pick<Tx, 'entryVersion'>,
  entryId: number,
  versionNumber: number,
  notes: { label?: string | null; description?: string | null },
): Promise<number> {
  const updated = await db.entryVersion.updateMany({ where: { entryId, versionNumber }, data: { ...notes, updatedAt: new Date() } });
  return updated.count;
}
