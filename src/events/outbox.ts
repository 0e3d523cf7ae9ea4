import { Prisma, type Tx } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import type { AuthEventName, ContentEventName, ReleaseEventName, ScheduleEventName } from './names.ts';
import { OUTBOX_CHANNEL } from './port.ts';

/** What writing an event needs of its caller: end-user auth flows have a project but no token actor. */
type EventCtx = Pick<Ctx, 'project' | 'source' | 'services'>;

export interface ContentEventInput {
  event: ContentEventName;
  collection: { id: number; uuid: string; slug: string };
  entryUuid: string;
  locale: string;
  /**
   * The entry resource as the API returns it, captured at the moment of the change so a delivery
   * sends what was true then. Omitted for `content.deleted` (deliveries carry ids only). Callers pass
   * what src/entries/reads/serialize.ts rendered, so it went through the visibility rule
   * (src/collections/visibility.ts): the body sent and the delivery log's copy of it hold no hidden value.
   */
  entry?: unknown;
  /**
   * For `content.deleted`: the row as the deletion found it (its revision and published version),
   * which no longer exists when the event is written. The event's `revision` is one past it, and a
   * published view hears of the deletion only when the entry had published content (src/live).
   */
  removed?: RemovedRow;
}

/** What a deletion's event keeps of the row it deleted. */
export interface RemovedRow {
  revision: number;
  publishedVersionId: number | null;
}

/**
 * The columns of `entries` that `committed` records: every column but the full-text vectors
 * (`search_draft`, `search_published`: derived from `data` and `published_data`, read by no renderer,
 * and converting them to JSON text cost more than the rest of the row). Named one by one for that
 * reason; test/events/committed-columns.test.ts fails when a column of the table is neither here
 * nor left out on purpose.
 */
export const COMMITTED_COLUMNS = [
  'id', 'uuid', 'project_id', 'collection_id', 'locale', 'translation_group_id', 'state', 'published_data', 'published_version_id',
  'published_version_number', 'last_version_number', 'is_draft_dirty', 'published_at', 'published_updated_at', 'created_at', 'updated_at',
  'deleted_at', 'revision',
] as const;

/**
 * The stored row an event's change left (`committed` in the outbox payload), as SQL over the row
 * alias `c` of `entries` (or of a statement's RETURNING of it): the COMMITTED_COLUMNS, and `data`
 * without the password hashes, so that a reader can render the entry exactly as this commit wrote it
 * (live subscriptions, src/live/entry.ts) instead of as it is when the event is read. A later commit of
 * the same entry has its own row here. Webhook deliveries leave it out (src/delivery/store.ts).
 */
const committedSql = (c: string, withheld: WithheldKeys): string =>
  `jsonb_build_object(${COMMITTED_COLUMNS.map((k) => `'${k}', ${c}.${k}`).join(', ')}, 'data', ${c}.data - ${withheld('r.collection_id')})`;

/**
 * The keys of an entry's stored `data` that stay out of `committed`: the writers' rule for password
 * hashes (they never leave the entry row), as SQL text[] for the collection id expression given.
 */
export type WithheldKeys = (collectionId: string) => string;

/** A timestamptz as JavaScript's toISOString writes it (the API's timestamps: milliseconds, `Z`). */
const isoSql = (t: string): string => `to_char(${t} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The payload of an outbox row: its own fields, the entry resource, the committed row, and the
 * entry's `revision` and `updated_at` as this commit left them, by which a receiver orders an entry's
 * events (docs/webhooks.md, "Ordering"). A deletion has no row left: its revision is one past the
 * deleted row's (contentEventParams) and its `updated_at` the deleting transaction's time.
 */
const payloadSql = (withheld: WithheldKeys): string =>
  `CASE WHEN r.entry IS NULL THEN r.payload ELSE r.payload || jsonb_build_object('content_entry', x.entry) END
        || CASE WHEN c.id IS NOT NULL THEN jsonb_build_object('committed', ${committedSql('c', withheld)}, 'revision', c.revision, 'updated_at', ${isoSql('c.updated_at')})
                WHEN r.event = 'content.deleted' THEN jsonb_build_object('updated_at', ${isoSql('now()')})
                ELSE '{}'::jsonb END`;

/**
 * Records a content event in the outbox, inside the caller's transaction: the event exists if and
 * only if the change committed. Readers consume it after commit (./port.ts).
 */
export async function emitContentEvent(tx: Tx, ctx: Ctx, input: ContentEventInput, withheld: WithheldKeys): Promise<void> {
  await emitContentEvents(tx, ctx, [input], withheld);
}

/**
 * Many events in one statement (bulk operations). Raw SQL with the rows as one JSON parameter: Prisma's
 * createMany costs ~10x more client-side time for JSON payloads (measured in bench/bulk.ts), and ids
 * follow input order, so deliveries keep the order of the changes.
 *
 * An entry resource shared by several events (`content.created` + `content.published` of a publish on
 * create carry the same object) is sent once and copied into each payload by PostgreSQL: the resources
 * are most of the bytes, and every byte is escaped and parsed again by Prisma's parameter handling
 * before the pg client writes it to the socket.
 */
export async function emitContentEvents(tx: Tx, ctx: Ctx, inputs: ContentEventInput[], withheld: WithheldKeys): Promise<void> {
  if (inputs.length === 0) return;
  const { rows, entries } = contentEventParams(inputs);
  // The collections name the partitions the committed rows are read from (entries are partitioned by collection).
  const collections = [...new Set(inputs.map((i) => i.collection.id))];
  // `content_entry` is set only for rows that carry an entry (a JSON null entry stays a JSON null).
  // Every writer in a transaction records its events after its row writes, which it holds locked
  // until commit, so the row read here is the one that commits (`committed`, see committedSql).
  // No NOTIFY inside the transaction (it takes a cluster-wide lock at commit): other replicas' readers
  // are woken by the hint sent after the write (src/db/change-hints.ts), or poll.
  await tx.$executeRaw(Prisma.sql`
    WITH inserted AS (
      INSERT INTO outbox_events (project_id, event, source, collection_id, entry_uuid, payload)
      SELECT ${ctx.project.id}, r.event, ${ctx.source}, r.collection_id, r.entry_uuid, ${Prisma.raw(payloadSql(withheld))}
      FROM ROWS FROM (jsonb_to_recordset(${rows}::jsonb) AS (event text, collection_id int, entry_uuid uuid, payload jsonb, entry int))
          WITH ORDINALITY AS r(event, collection_id, entry_uuid, payload, entry, n)
        LEFT JOIN jsonb_array_elements(${entries}::jsonb) WITH ORDINALITY AS x(entry, n) ON x.n = r.entry + 1
        LEFT JOIN entries c ON c.collection_id = ANY(${collections}::int[]) AND c.collection_id = r.collection_id
          AND c.uuid = r.entry_uuid AND r.event <> 'content.deleted'
      ORDER BY r.n
      RETURNING 1
    )
    SELECT count(*) FROM inserted`);
  tellReaders(ctx);
}

/**
 * The two JSON parameters of an outbox insert: one row per event, and the entry resources, each
 * shared object once (see emitContentEvents).
 */
export function contentEventParams(inputs: ContentEventInput[]): { rows: string; entries: string } {
  const entries: unknown[] = [];
  const slot = new Map<unknown, number>();
  const rows = inputs.map((i) => {
    let entry: number | null = null;
    if (i.event !== 'content.deleted' && i.entry !== undefined) {
      entry = slot.get(i.entry) ?? entries.push(i.entry) - 1;
      slot.set(i.entry, entry);
    }
    const payload: Record<string, unknown> = { collection: i.collection, entry_uuid: i.entryUuid, locale: i.locale };
    if (i.event === 'content.deleted' && i.removed) {
      payload.revision = i.removed.revision + 1;
      payload.removed = { revision: i.removed.revision, published_version_id: i.removed.publishedVersionId };
    }
    return { event: i.event, collection_id: i.collection.id, entry_uuid: i.entryUuid, payload, entry };
  });
  return { rows: JSON.stringify(rows), entries: JSON.stringify(entries) };
}

/**
 * The outbox insert of emitContentEvents as part of a caller's single statement (plain SQL text for
 * `Database.query`): the events are written by the same statement as the change, so they commit with
 * it. `p` names the placeholders of the project id, the source and the two contentEventParams, and
 * `written` the statement's relation of the entry rows it leaves (a data-modifying CTE's `RETURNING *`:
 * the table itself would show this statement the rows as they were before it); rows are inserted
 * only when the SQL condition `gate` holds. The caller must call `outboxWritten` after.
 */
export function contentEventsInsertSql(p: { project: string; source: string; rows: string; entries: string; written: string; withheld: WithheldKeys }, gate: string): string {
  return `INSERT INTO outbox_events (project_id, event, source, collection_id, entry_uuid, payload)
      SELECT ${p.project}, r.event, ${p.source}, r.collection_id, r.entry_uuid, ${payloadSql(p.withheld)}
      FROM ROWS FROM (jsonb_to_recordset(${p.rows}::jsonb) AS (event text, collection_id int, entry_uuid uuid, payload jsonb, entry int))
          WITH ORDINALITY AS r(event, collection_id, entry_uuid, payload, entry, n)
        LEFT JOIN jsonb_array_elements(${p.entries}::jsonb) WITH ORDINALITY AS x(entry, n) ON x.n = r.entry + 1
        LEFT JOIN ${p.written} c ON c.uuid = r.entry_uuid
      WHERE ${gate}
      ORDER BY r.n
      RETURNING 1`;
}

/** Tells this process's readers (./port.ts) that a statement outside emitContentEvents wrote outbox rows. */
export function outboxWritten(ctx: EventCtx): void {
  tellReaders(ctx);
}

function tellReaders(ctx: EventCtx): void {
  for (const reader of ctx.services.outboxReaders ?? []) reader.outboxWritten();
}

/**
 * An `auth.*` event (project end-user flows). `data` becomes the body's event-specific fields, e.g.
 * `{ user: { uuid, email } }`. Whatever the source, auth events only reach webhooks whose sources
 * include `api` (docs/webhooks.md).
 */
export async function emitAuthEvent(tx: Tx, ctx: EventCtx, event: AuthEventName, data: Record<string, unknown>): Promise<void> {
  await tx.outboxEvent.create({
    data: { projectId: ctx.project.id, event, source: ctx.source, collectionId: null, entryUuid: null, payload: data as object },
  });
  await announce(tx, ctx);
}

/**
 * A `release.*` event (docs/releases.md), inside the caller's transaction: with the entries' own
 * `content.published` / `content.unpublished` of the same release it commits or rolls back as one, so
 * a subscriber sees all of a release or none of it. Not tied to a collection: every webhook that
 * subscribes to the event receives it, whatever its collections. `data` is the body's `release`.
 */
export async function emitReleaseEvent(tx: Tx, ctx: EventCtx, event: ReleaseEventName, release: unknown): Promise<void> {
  await tx.outboxEvent.create({
    data: { projectId: ctx.project.id, event, source: ctx.source, collectionId: null, entryUuid: null, payload: { release } as object },
  });
  await announce(tx, ctx);
}

/**
 * A `schedule.*` event inside the caller's transaction. It names the schedule's collection, so
 * webhooks limited to collections see only their own; `data` becomes the body's event-specific fields.
 */
export async function emitScheduleEvent(
  tx: Tx,
  ctx: EventCtx,
  event: ScheduleEventName,
  input: { collectionId: number | null; entryUuid: string | null; data: Record<string, unknown> },
): Promise<void> {
  await tx.outboxEvent.create({
    data: { projectId: ctx.project.id, event, source: ctx.source, collectionId: input.collectionId, entryUuid: input.entryUuid, payload: input.data as object },
  });
  await announce(tx, ctx);
}

/**
 * NOTIFY inside the transaction is delivered when it commits (and dropped if it rolls back), so
 * dispatchers on every replica wake exactly when the rows become visible.
 */
async function announce(tx: Tx, ctx: EventCtx): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
  tellReaders(ctx);
}

/**
 * The claim of a dispatch pass, as the leading CTEs of a reader's own statement (`WITH ${...}, ...`):
 * locks up to `limit` undispatched rows in id order (SKIP LOCKED, so dispatchers on several replicas
 * split the work instead of doubling it), marks them dispatched, and names them `marked` (id,
 * project_id, event, source, collection_id, payload) for the rest of the statement. The claim commits
 * with whatever the statement makes of the rows, so a crash between the two cannot lose an event.
 */
export const claimUndispatchedSql = (limit: string): string => `batch AS (
  SELECT id FROM outbox_events WHERE dispatched_at IS NULL ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED
), marked AS (
  UPDATE outbox_events o SET dispatched_at = now() FROM batch WHERE o.id = batch.id
  RETURNING o.id, o.project_id, o.event, o.source, o.collection_id, o.payload
)`;

/**
 * Retention: deletes one slice (at most `limit` rows) of the events dispatched more than `hours` ago,
 * whose deliveries hold what they need; answers `n`, the rows deleted. A live resume from before the
 * cut is refused by its anchor check (src/live/resume.ts), so deleting cannot hide a gap.
 */
export const pruneDispatchedSql = (hours: string, limit: string): string => `WITH gone AS (DELETE FROM outbox_events WHERE id IN (
           SELECT id FROM outbox_events WHERE dispatched_at < now() - make_interval(hours => ${hours}::int) LIMIT ${limit}) RETURNING 1)
         SELECT count(*)::int AS n FROM gone`;
