import { Prisma } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import type { CollectionSchema, FieldDef } from '../../collections/model.ts';
import { forbidden } from '../../errors.ts';
import { parseSearch } from '../../filtering/search/parse.ts';
import { compileSearch } from '../../filtering/search/compile.ts';
import type { EntryResource, ReadState } from '../types.ts';

/**
 * Full-text search in a list read (docs/filtering.md, "Search"): the match joins the list's
 * conditions (so `where`, state, locale, paging and totals apply as to any filter), each row carries
 * its score, and without a `sort` the rows come by relevance, the entry id breaking ties.
 */
export interface ListSearch {
  match: Prisma.Sql;
  /** Appended to the selected columns: the row's score as `searchScore`. */
  column: Prisma.Sql;
  /** The order when the read names no sort. */
  order: Prisma.Sql;
}

/** The search of a list, or null when the read has none. A malformed search is a 422 on `search`. */
export function listSearch(ctx: Ctx, collection: CollectionSchema, search: unknown, state: ReadState, locale: string | undefined): ListSearch | null {
  const query = parseSearch(search);
  if (!query) return null;
  // The stored vectors hold every searchable field: a match would tell a field-scoped token what a
  // field it may not read contains.
  const hidden = searchableOutOfScope(collection.fields);
  if (hidden.length) throw forbidden(`This token may not search ${collection.slug}: its searchable fields ${hidden.join(', ')} are outside the token's fields.`);
  const { match, score } = compileSearch(query, {
    alias: 'e',
    column: state === 'draft' ? 'search_draft' : 'search_published',
    locale,
    locales: ctx.project.locales,
  });
  return { match, column: Prisma.sql`, ${score} AS "searchScore"`, order: Prisma.sql`${score} DESC, e.id ASC` };
}

/**
 * Copies each row's score to its resource (`meta.score`). The one place a score gets its wire value:
 * REST's `meta.score` and GraphQL's `searchScore` both read it from the resource.
 */
export function attachScores(rows: ReadonlyArray<object>, resources: EntryResource[]): EntryResource[] {
  resources.forEach((resource, i) => {
    resource.meta = { ...resource.meta, score: searchScore((rows[i] as { searchScore?: unknown } | undefined)?.searchScore) };
  });
  return resources;
}

/**
 * A score as the API gives it. ts_rank_cd computes a float4, which arrives as float8 (0.1 as
 * 0.10000000149011612): the answer is the shortest decimal that is that same float4, so it carries
 * every digit PostgreSQL computed and none it did not. Rounding to fewer digits (6 did) merges
 * distinct scores into false ties; equal scores (0.1 for one match in a body) are real ties.
 */
export function searchScore(raw: unknown): number {
  const x = Number(raw ?? 0);
  if (!Number.isFinite(x) || x === 0) return 0;
  const single = Math.fround(x);
  for (let digits = 1; digits < 9; digits++) {
    const shortest = Number(single.toPrecision(digits));
    if (Math.fround(shortest) === single) return shortest;
  }
  return Number(single.toPrecision(9));
}

const TEXT_LIKE = new Set(['text', 'longtext', 'richtext', 'slug', 'email']);

/**
 * The searchable fields the caller may not reach: text-like, not opted out, not hidden (hidden fields
 * are never searched). A field is out of scope when it or a group holding it is: a scope names
 * top-level fields only, so a group's children inherit its mark.
 */
function searchableOutOfScope(fields: FieldDef[], groupOut = false): string[] {
  return fields.flatMap((f) => {
    const out = groupOut || f.outOfScope === true;
    if (f.options.hiddenInAPI === true || f.options.searchable === false) return [];
    return [...(out && TEXT_LIKE.has(f.type) ? [f.name] : []), ...searchableOutOfScope(f.children ?? [], out)];
  });
}
