import { Prisma } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import type { CollectionSchema, FieldDef } from '../../collections/model.ts';
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
  // The stored vectors hold every searchable field: matched against them, a search would tell a
  // field-scoped token what a field it may not read contains. Such a token searches a vector built
  // from the fields it may read instead.
  const column = state === 'draft' ? 'search_draft' : 'search_published';
  const spec = hasSearchableOutOfScope(collection.fields) ? searchSpec(collection.fields) : null;
  const vector = spec && Prisma.sql`cms_search_vector_x(${JSON.stringify(spec)}::jsonb, e.locale, ${Prisma.raw(state === 'draft' ? 'e.data' : 'e.published_data')})`;
  const { match, score } = compileSearch(query, { alias: 'e', column, locale, locales: ctx.project.locales, ...(vector ? { vector } : {}) });
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
const searchable = (f: FieldDef) => f.options.hiddenInAPI !== true && f.options.searchable !== false;

/**
 * Whether a searchable field lies outside the caller's scope: text-like, not opted out, not hidden
 * (hidden fields are never searched). A field is out of scope when it or a group holding it is: a
 * scope names top-level fields only, so a group's children inherit its mark.
 */
function hasSearchableOutOfScope(fields: FieldDef[], groupOut = false): boolean {
  return fields.some((f) => {
    if (!searchable(f)) return false;
    const out = groupOut || f.outOfScope === true;
    return (out && TEXT_LIKE.has(f.type)) || hasSearchableOutOfScope(f.children ?? [], out);
  });
}

interface SpecItem {
  /** lax JSON path of the field's string values */
  p: string;
  w: 'A' | 'B' | 'D';
  m: boolean;
}

/**
 * The searchable fields within the caller's scope, in the shape and order `cms_search_spec_x` gives
 * `collections.search_fields` (the database's own spec, migration 20261128060000_full_text_search),
 * so the vector built from it weighs and cleans each field as the stored vectors do.
 */
function searchSpec(fields: FieldDef[]): SpecItem[] {
  const items: Array<SpecItem & { id: number }> = [];
  const item = (f: FieldDef, path: string): SpecItem & { id: number } => ({
    id: f.id,
    p: path,
    w: f.type === 'text' ? 'A' : f.type === 'slug' || f.type === 'email' ? 'B' : 'D',
    m: f.type === 'richtext',
  });
  for (const f of fields) {
    if (f.outOfScope || !searchable(f)) continue;
    if (TEXT_LIKE.has(f.type)) items.push(item(f, `lax $.${JSON.stringify(f.name)}[*]`));
    if (f.type === 'group') {
      for (const c of f.children ?? []) {
        if (searchable(c) && TEXT_LIKE.has(c.type)) items.push(item(c, `lax $.${JSON.stringify(f.name)}.${JSON.stringify(c.name)}[*]`));
      }
    }
  }
  return items.sort((a, b) => a.id - b.id).map(({ p, w, m }) => ({ p, w, m }));
}
