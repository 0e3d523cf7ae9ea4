import { Prisma } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import { notFound, validationFailed } from '../../errors.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { publishedReadCondition } from '../../collections/field-indexes.ts';
import { localeChain } from '../../projects/locale-chain.ts';
import { ENTRY_COLUMNS } from '../store/rows.ts';
import { readColumns, readRows, takeLinked, type ReadRow, type RowWithLinks } from './read-rows.ts';
import { contentLoaders } from './loaders.ts';
import type { LocaleFallback, ReadState } from '../types.ts';

/**
 * Reads along a locale fallback chain (docs/entries.md, "Locale fallback"). Entries that translate
 * each other share a translation group (an entry without one is a group of its own); a read of
 * `de-at` with fallback answers, per group, the entry of the first locale of the chain
 * (`de-at → de → en`, src/projects/locale-chain.ts) that has one the read can show (published, or
 * any live entry for a draft read), and says so (`meta.requested_locale`, GraphQL `resolvedLocale`).
 *
 * A list keeps its plan: the chain is one more condition on `entries e` (resolvedCondition), so
 * `where`, `sort`, paging, totals and the prepared first-page form apply to the resolved entries
 * unchanged; only the total of an unfiltered list has a form of its own (resolvedCountStatement).
 */

/** The chain a fallback read of `locale` follows: the project's default locale's when none is given. */
export function fallbackFor(ctx: Ctx, locale: string | undefined): LocaleFallback {
  const requested = (locale ?? ctx.project.defaultLocale).toLowerCase();
  return { requested, chain: localeChain(ctx.project, requested) };
}

/** Conditions on the entries row `alias` of what a read of `state` can show. */
const visible = (alias: string, state: ReadState): Prisma.Sql =>
  state === 'published' ? Prisma.sql` AND ${publishedReadCondition(alias)}` : Prisma.empty;

/**
 * The rows of `entries e` that a fallback read answers with: of a chain locale, and with no entry of
 * its group before it that the read could show: of an earlier chain locale, or (a group holding two
 * entries of one locale, which linking refuses but older data may hold) of the same locale with a
 * smaller id, so each group answers once. The NOT EXISTS is a top-level conjunct, so the planner
 * makes it an anti join: for a page that walks an index in its order and stops, or a filtered list,
 * one index-only probe per row of the collection's `(translation_group_id, locale, id)` index
 * (src/collections/fallback-indexes.ts), which the literal collection id lets the planner pick.
 * An entry without a group (NULL) has no sibling: the probe finds nothing without a descent.
 * A chain of one is the plain locale condition.
 */
export function resolvedCondition(fallback: LocaleFallback, state: ReadState, collectionId: number): Prisma.Sql {
  const { chain } = fallback;
  if (chain.length === 1) return Prisma.sql`e.locale = ${chain[0]}`;
  const id = Prisma.raw(String(Number(collectionId)));
  return Prisma.sql`e.locale = ANY(${chain}::text[]) AND NOT EXISTS (
    SELECT 1 FROM entries x
     WHERE x.translation_group_id = e.translation_group_id AND x.collection_id = ${id}
       AND x.deleted_at IS NULL${visible('x', state)}
       AND (array_position(${chain}::text[], x.locale), x.id) < (array_position(${chain}::text[], e.locale), e.id))`;
}

/**
 * The total of an unfiltered fallback list (`live`: the list's conditions but the chain's), as
 * resolvedCondition answers it: each entry without a group, and each group with an entry of a chain
 * locale the read can show, once. Counted that way it is one index-only pass over the collection's
 * fallback index in group order (src/collections/fallback-indexes.ts) instead of an anti join of every
 * chain entry against every earlier one. With a filter the total is the filtered rows' COUNT: the
 * filter applies to the entry that answers, which only the anti join knows.
 */
export function resolvedCountStatement(fallback: LocaleFallback, live: Prisma.Sql): Prisma.Sql {
  const chain = Prisma.sql`e.locale = ANY(${fallback.chain}::text[])`;
  return Prisma.sql`SELECT ((SELECT count(*) FROM entries e WHERE ${live} AND ${chain} AND e.translation_group_id IS NULL)
    + (SELECT count(*) FROM (SELECT DISTINCT e.translation_group_id FROM entries e
         WHERE ${live} AND ${chain} AND e.translation_group_id IS NOT NULL) g))::int AS total`;
}

/**
 * GET /api/{collection}/{uuid} with fallback: the uuid names an entry, and the answer is its
 * translation group's entry in the first chain locale that has one the read can show (the named
 * entry itself when it is that one). 404 when no locale of the chain has one.
 */
export async function readEntryAlongChain(ctx: Ctx, collection: CollectionSchema, uuid: string, fallback: LocaleFallback, state: ReadState): Promise<ReadRow> {
  const { columns, links } = readColumns(ctx, collection, state);
  const statement = alongChainStatement(columns, collection.id, uuid, fallback, state);
  const loader = contentLoaders(ctx).entryByUuid;
  const [row] = takeLinked(await readRows<RowWithLinks>(ctx, statement), links, state, (u, r) => loader.prime(u, r));
  if (!row) throw notFound('Entry not found.');
  return row;
}

/** The statement of readEntryAlongChain: at most one row, `columns` of `entries e`. */
export function alongChainStatement(columns: Prisma.Sql, collectionId: number, uuid: string, fallback: LocaleFallback, state: ReadState): Prisma.Sql {
  const id = Prisma.raw(String(Number(collectionId)));
  const named = Prisma.sql`SELECT s.translation_group_id FROM entries s WHERE s.uuid = ${uuid.toLowerCase()}::uuid AND s.collection_id = ${id} AND s.deleted_at IS NULL`;
  return Prisma.sql`SELECT ${columns} FROM entries e
    WHERE e.collection_id = ${id} AND e.deleted_at IS NULL${visible('e', state)} AND e.locale = ANY(${fallback.chain}::text[])
      AND (e.uuid = ${uuid.toLowerCase()}::uuid OR e.translation_group_id = (${named}))
    ORDER BY array_position(${fallback.chain}::text[], e.locale), e.id LIMIT 1`;
}

/** A fallback read answers along one chain: asking for a linked translation at the same time is a contradiction. */
export function refuseTranslationLocale(): never {
  throw validationFailed({ fallback: ['fallback cannot be combined with translation_locale: fallback already picks the locale that answers.'] });
}

/**
 * Relations along the chain: each linked entry that has a translation group is replaced by its
 * group's entry in the first chain locale that has one the read can show. A linked entry whose
 * group has none in the chain stays as linked (as a read without fallback shows it). One statement
 * for all the groups `targets` (uuid → linked row) name.
 */
export async function resolveTargetsAlongChain(ctx: Ctx, targets: Map<string, ReadRow>, fallback: LocaleFallback, state: ReadState): Promise<void> {
  if (fallback.chain.length === 0) return;
  const groups = [...new Set([...targets.values()].map((t) => t.translationGroupId).filter((g): g is number => g !== null))];
  if (groups.length === 0) return;
  // Translation groups stay within a collection: the targets' collections name the partitions read.
  const collections = [...new Set([...targets.values()].map((t) => t.collectionId))];
  const rows = await readRows<ReadRow>(ctx, Prisma.sql`SELECT DISTINCT ON (e.translation_group_id) ${ENTRY_COLUMNS} FROM entries e
    WHERE e.collection_id = ANY(${collections}::int[]) AND e.translation_group_id = ANY(${groups}::int[]) AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL${visible('e', state)}
      AND e.locale = ANY(${fallback.chain}::text[])
    ORDER BY e.translation_group_id, array_position(${fallback.chain}::text[], e.locale), e.id`);
  const best = new Map(rows.map((r) => [r.translationGroupId, r]));
  for (const [uuid, target] of targets) {
    const found = target.translationGroupId === null ? undefined : best.get(target.translationGroupId);
    if (found && found.collectionId === target.collectionId) targets.set(uuid, found);
  }
}
