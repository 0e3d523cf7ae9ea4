import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_LENGTH, MAX_SEARCH_TERMS, parseSearch } from '../../src/filtering/search/parse.ts';

/** The search syntax as parsed before any SQL (docs/filtering.md, "Search"); the HTTP behaviour is in search.test.ts. */
describe('parseSearch', () => {
  it('reads words, phrases, exclusions, prefixes and or', () => {
    expect(parseSearch('running "big shoes" -kitchen -"running water" marath* or cats')).toEqual([
      [
        { kind: 'word', text: 'running', negated: false },
        { kind: 'phrase', text: 'big shoes', negated: false },
        { kind: 'word', text: 'kitchen', negated: true },
        { kind: 'phrase', text: 'running water', negated: true },
        { kind: 'prefix', text: 'marath', negated: false },
      ],
      [{ kind: 'word', text: 'cats', negated: false }],
    ]);
  });

  it('keeps only letters and digits of a prefix, so no tsquery syntax reaches to_tsquery', () => {
    expect(parseSearch("e-ma'il:&!*")).toEqual([[{ kind: 'word', text: 'e', negated: false }, { kind: 'word', text: 'ma', negated: false }, { kind: 'prefix', text: 'il', negated: false }]]);
    expect(parseSearch('été*')).toEqual([[{ kind: 'prefix', text: 'été', negated: false }]]);
    expect(parseSearch('*')).toEqual([]);
  });

  it('treats blank as no search, control characters as spaces, an unclosed quote as running to the end', () => {
    expect(parseSearch(undefined)).toBeNull();
    expect(parseSearch('   ')).toBeNull();
    expect(parseSearch('\u0000')).toBeNull();
    expect(parseSearch('a\u0000b')).toEqual([[{ kind: 'word', text: 'a', negated: false }, { kind: 'word', text: 'b', negated: false }]]);
    expect(parseSearch('"open phrase')).toEqual([[{ kind: 'phrase', text: 'open phrase', negated: false }]]);
    expect(parseSearch('or or')).toEqual([]);
    expect(parseSearch('- x')).toEqual([[{ kind: 'word', text: '-', negated: false }, { kind: 'word', text: 'x', negated: false }]]);
  });

  it('refuses what is not one text, too long or of too many terms (422 on search)', () => {
    for (const bad of [['a'], 42, 'a'.repeat(MAX_SEARCH_LENGTH + 1), 'w '.repeat(MAX_SEARCH_TERMS + 1)]) {
      expect(() => parseSearch(bad), String(bad).slice(0, 20)).toThrow(expect.objectContaining({ status: 422 }));
    }
    expect(parseSearch('w '.repeat(MAX_SEARCH_TERMS))).toHaveLength(1);
  });
});
