import { Prisma } from '../../db/client.ts';
import { authorize, type Ctx } from '../../context.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { requireReadView } from '../../collections/token-scope.ts';
import { publishedReadCondition, textLiteral } from '../../collections/field-indexes.ts';
import { isVisibleField } from '../../collections/visibility.ts';
import { ENTRY_COLUMNS } from '../store/rows.ts';
import { plainDatabase, readRows, statementName, takeLinked, type RowWithLinks } from './read-rows.ts';
import { compileSort } from './sort.ts';
import { serializeEntries } from './serialize.ts';
import { contentLoaders } from './loaders.ts';
import type { EntrySlice } from './list.ts';
import type { ReadState } from '../types.ts';

/** What a reader shows of a list's entries and of the entries their relation fields link. */
export interface SelectedValues {
  state: ReadState;
  perPage: number;
  /** Keys of the entries' values the reader shows (relation fields included). */
  keys: string[];
  /** Keys of the linked entries' values it shows; none of them a relation, media, group or rich-text field. */
  linkedKeys: string[];
}

/** The largest page this read serves (the list's own cap). */
const MAX_PER_PAGE = 100;

/** `column` with only `keys` (absent keys stay absent, a null column stays null), as SQL text. */
function picked(column: string, keys: string[]): string {
  if (keys.length === 0) return `CASE WHEN ${column} IS NULL THEN NULL ELSE '{}'::jsonb END`;
  const parts = keys.map((k) => `CASE WHEN ${column} ? ${textLiteral(k)} THEN jsonb_build_object(${textLiteral(k)}, ${column} -> ${textLiteral(k)}) ELSE '{}'::jsonb END`);
  return `CASE WHEN ${column} IS NULL THEN NULL ELSE ${parts.join(' || ')} END`;
}

/**
 * The first page of a collection's list, unfiltered, in its default order, read with only the values
 * the reader shows: what an uncached GraphQL list that selects a few fields reads. The page statement
 * of `openEntryList` (src/entries/reads/page-rows.ts) sends and parses every value of every entry and
 * of every linked entry (each post's whole body to show its title), which was most of its cost in
 * PostgreSQL and most of the client's parsing. Same conditions, order, links and serialization as that
 * read; null when this read does not apply (a singleton, a transaction or PGlite, a later page, a read
 * whose CDN tags are collected), and the caller reads the list as usual.
 *
 * The linked entries are primed into the request's loader with only `linkedKeys`: the caller asks for
 * this read only when nothing else in the request reads entries through that loader (one root field,
 * and nothing below the linked entries' values).
 */
export async function listSelectedSlice(ctx: Ctx, slug: string, opts: SelectedValues): Promise<EntrySlice | null> {
  authorize(ctx, 'read');
  requireReadView(ctx, { state: opts.state });
  const collection = await collectionForRequest(ctx, slug);
  if (collection.isSingleton || ctx.shown || plainDatabase(ctx)?.kind !== 'postgres') return null;
  const perPage = Math.min(opts.perPage, MAX_PER_PAGE);
  if (!Number.isSafeInteger(perPage) || perPage < 1 || !Number.isSafeInteger(collection.projectId)) return null;
  const column = opts.state === 'draft' ? 'data' : 'published_data';
  const order = compileSort(undefined, collection, column);
  if (order.values.length > 0) return null;

  const conds = [`e.collection_id = ${Number(collection.id)}`, 'e.deleted_at IS NULL'];
  if (opts.state === 'published') conds.push(publishedReadCondition('e').text);
  const keys = [...new Set(opts.keys)].sort();
  const linkedKeys = [...new Set(opts.linkedKeys)].sort();
  const byName = new Map(collection.fields.map((f) => [f.name, f]));
  const links = keys.filter((k) => byName.get(k)?.type === 'relation' && isVisibleField(byName.get(k)!));
  // A published read shows no working draft of its entries (the list's PUBLISHED_COLUMNS rule).
  const data = opts.state === 'draft' ? picked('e.data', keys) : `CASE WHEN e.published_version_id IS NULL THEN ${picked('e.data', keys)} END`;
  const page = `SELECT e.id, e.uuid, e.project_id, e.collection_id, e.locale, e.translation_group_id, e.state, ${data} AS data,
      ${picked('e.published_data', keys)} AS published_data, e.published_version_id, e.published_version_number, e.last_version_number,
      e.is_draft_dirty, e.published_at, e.published_updated_at, e.created_at, e.updated_at, e.deleted_at
    FROM entries e WHERE ${conds.join(' AND ')} ORDER BY ${order.text} LIMIT ${perPage + 1}`;
  let linked = '';
  if (links.length > 0) {
    const names = `ARRAY[${links.map(textLiteral).join(', ')}]::text[]`;
    const value = `q.${column} -> f.name`;
    linked = `, CASE WHEN e.id = (SELECT min(id) FROM p) THEN (
    SELECT json_agg(json_build_object(
      'id', t.id, 'uuid', t.uuid::text, 'projectId', t.project_id, 'collectionId', t.collection_id, 'locale', t.locale,
      'translationGroupId', t.translation_group_id, 'state', t.state::text,
      'data', ${picked('t.data', linkedKeys)}, 'publishedData', ${picked('t.published_data', linkedKeys)},
      'publishedVersionId', t.published_version_id, 'publishedVersionNumber', t.published_version_number,
      'lastVersionNumber', t.last_version_number, 'isDraftDirty', t.is_draft_dirty, 'publishedAt', t.published_at,
      'publishedUpdatedAt', t.published_updated_at, 'createdAt', t.created_at, 'updatedAt', t.updated_at, 'deletedAt', t.deleted_at))
    FROM entries t
    WHERE t.uuid = ANY (ARRAY(SELECT DISTINCT l.v::uuid FROM p AS q, unnest(${names}) AS f(name),
          LATERAL jsonb_array_elements_text(CASE jsonb_typeof(${value}) WHEN 'array' THEN ${value} WHEN 'string' THEN jsonb_build_array(${value}) END) AS l(v)
         WHERE l.v ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'))
      AND t.project_id = ${Math.trunc(collection.projectId)} AND t.deleted_at IS NULL) END AS linked`;
  }
  const text = `WITH p AS MATERIALIZED (${page})
  SELECT ${ENTRY_COLUMNS.text}${linked} FROM p e ORDER BY ${order.text}`;
  // Prepared like the list's own first pages (bounded names; past the bound, unnamed).
  const name = statementName(text, 'page');
  const rows = await readRows<RowWithLinks>(ctx, Prisma.raw(text), name);
  const loader = contentLoaders(ctx).entryByUuid;
  const settled = takeLinked(rows, links, opts.state, (u, r) => loader.prime(u, r));
  const shown = settled.slice(0, perPage);
  const resources = await serializeEntries(ctx, collection, shown, { state: opts.state, timestamps: true });
  return { data: resources, hasMore: settled.length > perPage, page: 1, perPage };
}
