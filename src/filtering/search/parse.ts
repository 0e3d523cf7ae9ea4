import { ErrorBag } from '../../errors.ts';

/**
 * The search box's syntax (docs/filtering.md, "Search"), as web search engines read it: words must
 * all appear (in any order, stemmed in the entry's language), `"a phrase"` must appear as written,
 * `-word` and `-"a phrase"` must not appear, `word*` matches every word starting with `word`, and
 * `or` between terms offers alternatives: `cats dogs or birds` is (cats and dogs) or birds.
 *
 * The text never reaches PostgreSQL's tsquery syntax: each term is handed to a function that reads
 * it as plain words (plainto_tsquery, phraseto_tsquery), and a prefix keeps only letters and digits
 * before `:*` is appended (src/filtering/search/compile.ts). So quotes, backslashes and the tsquery
 * operators `& | ! ( ) : *` in a search are characters to search for, never syntax.
 */

export type SearchTermKind = 'word' | 'phrase' | 'prefix';

export interface SearchTerm {
  kind: SearchTermKind;
  /** word and phrase: the text as typed (without quotes); prefix: letters and digits only. */
  text: string;
  negated: boolean;
}

/** Alternatives (any may match) of conjunctions (all their terms must hold). */
export type SearchQuery = SearchTerm[][];

/** Longest search text, in characters. */
export const MAX_SEARCH_LENGTH = 500;
/** Most terms (words, phrases, prefixes) in one search. */
export const MAX_SEARCH_TERMS = 32;

// Control characters (NUL included, which no PostgreSQL text may hold) separate words like spaces.
const CONTROL = /[\u0000-\u001f\u007f]/g;
const LETTERS_OR_DIGITS = /[\p{L}\p{N}]+/gu;

/**
 * The search text of a list read, or null for none (absent or only spaces). A text that is not a
 * string (`?search[]=…`), too long or of too many terms is a 422 on `search`. A text with no
 * searchable word in it (`!!!`) is a valid search that matches nothing.
 */
export function parseSearch(input: unknown): SearchQuery | null {
  if (input === undefined || input === null) return null;
  const bag = new ErrorBag();
  if (typeof input !== 'string') {
    bag.add('search', 'The search must be a single text.');
    bag.throwIfAny();
  }
  const text = (input as string).replace(CONTROL, ' ');
  if (text.length > MAX_SEARCH_LENGTH) bag.add('search', `The search is at most ${MAX_SEARCH_LENGTH} characters long.`);
  bag.throwIfAny();
  if (text.trim() === '') return null;

  const groups: SearchQuery = [[]];
  let terms = 0;
  const push = (term: SearchTerm) => {
    groups[groups.length - 1].push(term);
    terms++;
  };
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i >= text.length) break;
    let negated = false;
    if (text[i] === '-' && i + 1 < text.length && !/\s/.test(text[i + 1])) {
      negated = true;
      i++;
    }
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      const phrase = text.slice(i + 1, end === -1 ? text.length : end);
      i = end === -1 ? text.length : end + 1;
      if (phrase.trim() !== '') push({ kind: 'phrase', text: phrase, negated });
      continue;
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]) && text[j] !== '"') j++;
    const word = text.slice(i, j);
    i = j;
    if (!negated && word.toLowerCase() === 'or') {
      // Between two terms only: a leading or doubled `or` adds no empty alternative.
      if (groups[groups.length - 1].length > 0) groups.push([]);
      continue;
    }
    if (word.endsWith('*')) {
      const chunks = word.match(LETTERS_OR_DIGITS) ?? [];
      const last = chunks.pop();
      // `e-mail*`: the leading chunks are words, the last one the prefix.
      for (const chunk of chunks) push({ kind: 'word', text: chunk, negated });
      if (last !== undefined) push({ kind: 'prefix', text: last, negated });
      continue;
    }
    push({ kind: 'word', text: word, negated });
  }
  if (terms > MAX_SEARCH_TERMS) {
    bag.add('search', `The search has at most ${MAX_SEARCH_TERMS} words, phrases and prefixes.`);
    bag.throwIfAny();
  }
  return groups.filter((g) => g.length > 0);
}
