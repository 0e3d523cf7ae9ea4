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
 * unchanged.
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
 * The rows of `entries e` that a fallback read answers with: of a chain locale, and with no entry
 * of an earlier chain locale in their group that the read could show. The NOT EXISTS is a top-level
 * conjunct, so the planner makes it an anti join: a hash anti join over the earlier locales' grouped
 * entries for a count or a filter, or a probe of the translation-group index per row for a page
 * that walks an index in its order and stops. A chain of one is the plain locale condition.
 */
export function resolvedCondition(fallback: LocaleFallback, state: ReadState): Prisma.Sql {
  const { chain } = fallback;
  if (chain.length === 1) return Prisma.sql`e.locale = ${chain[0]}`;
  const earlier = chain.slice(0, -1);
  return Prisma.sql`e.locale = ANY(${chain}::text[]) AND NOT EXISTS (
    SELECT 1 FROM entries x
     WHERE x.translation_group_id = e.translation_group_id AND x.collection_id = e.collection_id
       AND x.deleted_at IS NULL${visible('x', state)}
       AND x.locale = ANY(${earlier}::text[])
       AND array_position(${chain}::text[], x.locale) < array_position(${chain}::text[], e.locale))`;
}

/**
 * GET /api/{collection}/{uuid} with fallback: the uuid names an entry, and the answer is its
 * translation group's entry in the first chain locale that has one the read can show (the named
 * entry itself when it is that one). 404 when no locale of the chain has one.
 */
export async function readEntryAlongChain(ctx: Ctx, collection: CollectionSchema, uuid: string, fallback: LocaleFallback, state: ReadState): Promise<ReadRow> {
  const { columns, links } = readColumns(ctx, collection, state);
  const id = Prisma.raw(String(Number(collection.id)));
  const named = Prisma.sql`SELECT s.translation_group_id FROM entries s WHERE s.uuid = ${uuid.toLowerCase()}::uuid AND s.collection_id = ${id} AND s.deleted_at IS NULL`;
  const statement = Prisma.sql`SELECT ${columns} FROM entries e
    WHERE e.collection_id = ${id} AND e.deleted_at IS NULL${visible('e', state)} AND e.locale = ANY(${fallback.chain}::text[])
      AND (e.uuid = ${uuid.toLowerCase()}::uuid OR e.translation_group_id = (${named}))
    ORDER BY array_position(${fallback.chain}::text[], e.locale) LIMIT 1`;
  const loader = contentLoaders(ctx).entryByUuid;
  const [row] = takeLinked(await readRows<RowWithLinks>(ctx, statement), links, state, (u, r) => loader.prime(u, r));
  if (!row) throw notFound('Entry not found.');
  return row;
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
  const rows = await readRows<ReadRow>(ctx, Prisma.sql`SELECT DISTINCT ON (e.translation_group_id) ${ENTRY_COLUMNS} FROM entries e
    WHERE e.translation_group_id = ANY(${groups}::int[]) AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL${visible('e', state)}
      AND e.locale = ANY(${fallback.chain}::text[])
    ORDER BY e.translation_group_id, array_position(${fallback.chain}::text[], e.locale)`);
  const best = new Map(rows.map((r) => [r.translationGroupId, r]));
  for (const [uuid, target] of targets) {
    const found = target.translationGroupId === null ? undefined : best.get(target.translationGroupId);
    if (found && found.collectionId === target.collectionId) targets.set(uuid, found);
  }
}
