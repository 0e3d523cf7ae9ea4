import { Prisma } from '../../db/client.ts';
import type { SearchQuery, SearchTerm } from './parse.ts';

/**
 * A parsed search (parse.ts) as SQL over an entry row's vector (`search_draft` or `search_published`,
 * kept by the triggers of migration 20261128060000_full_text_search).
 *
 * Each entry was indexed with the text search configuration of its own locale
 * (`cms_search_config_x`), so the query is built with that configuration too: a list of one locale
 * builds it once; a list of every locale builds it once per language of the project's locales and
 * picks the entry's by its locale. Every part is an immutable function of parameters, which
 * PostgreSQL folds into one constant tsquery while planning (an unnamed statement is planned with its
 * values), so the collection's GIN index (src/collections/search-indexes.ts) serves the match.
 */

export interface SearchSql {
  /** The condition: the entry matches the search. */
  match: Prisma.Sql;
  /** The entry's relevance (ts_rank_cd, higher first), a float8. */
  score: Prisma.Sql;
}

export interface SearchTarget {
  /** The entries row alias (a plain identifier). */
  alias: string;
  column: 'search_draft' | 'search_published';
  /** The list's one locale, or none: every locale of the entries. */
  locale?: string;
  /** The project's locales (the languages a list of every locale builds its query in). */
  locales: readonly string[];
  /**
   * The vector to match instead of the stored column: one built per row from fewer fields (a token
   * limited to some fields searches only those). No index serves it, so the match reads every row the
   * list's other conditions leave.
   */
  vector?: Prisma.Sql;
}

/** One term in the configuration `cfg`: plain words and phrases as typed, a prefix as letters and digits with `:*`. */
function termSql(term: SearchTerm, cfg: Prisma.Sql): Prisma.Sql {
  const q =
    term.kind === 'phrase' ? Prisma.sql`phraseto_tsquery(${cfg}, ${term.text})`
    : term.kind === 'prefix' ? Prisma.sql`to_tsquery(${cfg}, ${term.text} || ':*')`
    : Prisma.sql`plainto_tsquery(${cfg}, ${term.text})`;
  return term.negated ? Prisma.sql`(!! ${q})` : q;
}

/** The whole query as one tsquery in `cfg` (empty terms, such as stop words, drop out of `&&`). */
function querySql(query: SearchQuery, cfg: Prisma.Sql): Prisma.Sql {
  const groups = query.map((terms) => Prisma.sql`(${Prisma.join(terms.map((t) => termSql(t, cfg)), ' && ')})`);
  return Prisma.sql`(${Prisma.join(groups, ' || ')})`;
}

const configOf = (locale: Prisma.Sql) => Prisma.sql`cms_search_config_x(${locale})`;

/** The language part of a locale, as cms_search_config_x reads it: locales that share it share a configuration. */
const languageOf = (locale: string) => locale.toLowerCase().split('-')[0].split('_')[0];

export function compileSearch(query: SearchQuery, target: SearchTarget): SearchSql {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(target.alias)) throw new Error(`invalid SQL alias ${target.alias}`);
  const vector = target.vector ? Prisma.sql`(${target.vector})` : Prisma.raw(`${target.alias}.${target.column}`);
  if (query.length === 0) return { match: Prisma.sql`FALSE`, score: Prisma.sql`0::float8` };
  if (target.locale !== undefined) {
    const q = querySql(query, configOf(Prisma.sql`${target.locale}`));
    return { match: Prisma.sql`${vector} @@ ${q}`, score: Prisma.sql`ts_rank_cd(${vector}, ${q})::float8` };
  }
  // One query per language; entries of a locale the project no longer lists use their own.
  const byLanguage = new Map<string, string[]>();
  for (const locale of target.locales) {
    const lang = languageOf(locale);
    byLanguage.set(lang, [...(byLanguage.get(lang) ?? []), locale.toLowerCase()]);
  }
  // One language (the common case): its query for every row, a constant the index answers alone.
  // An entry of a locale the project no longer lists is then read in that language too.
  if (byLanguage.size === 1) {
    const [locales] = [...byLanguage.values()];
    const q = querySql(query, configOf(Prisma.sql`${locales[0]}`));
    return { match: Prisma.sql`${vector} @@ ${q}`, score: Prisma.sql`ts_rank_cd(${vector}, ${q})::float8` };
  }
  const localeColumn = Prisma.raw(`${target.alias}.locale`);
  const perLanguage = [...byLanguage.values()].map((locales) => ({ locales, q: querySql(query, configOf(Prisma.sql`${locales[0]}`)) }));
  const own = querySql(query, configOf(localeColumn));
  const rowQuery = perLanguage.length === 0
    ? own
    : Prisma.sql`(CASE ${Prisma.join(perLanguage.map(({ locales, q }) => Prisma.sql`WHEN ${localeColumn} = ANY(${locales}::text[]) THEN ${q}`), ' ')} ELSE ${own} END)`;
  // The union of the languages' queries is a constant the index can answer; the row's own language then decides.
  const any = perLanguage.length === 0 ? null : Prisma.join(perLanguage.map(({ q }) => q), ' || ');
  const match = any ? Prisma.sql`${vector} @@ (${any}) AND ${vector} @@ ${rowQuery}` : Prisma.sql`${vector} @@ ${rowQuery}`;
  return { match, score: Prisma.sql`ts_rank_cd(${vector}, ${rowQuery})::float8` };
}
