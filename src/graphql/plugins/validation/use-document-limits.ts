import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { GraphQLArmorRejectCallback } from '@escape.tech/graphql-armor-types';
import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  parse,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type ParseOptions,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/**
 * Limits on the document itself, checked before any resolver runs and for every request, signed in
 * or not (docs/graphql.md, "Limits"): size in tokens and bracket nesting at parse time, aliases,
 * directives and introspection at validation. A refused document costs a linear scan and a parse at
 * most, never a schema walk or a database query. Depth and list fan-out (cost) are measured after
 * validation in ./use-query-limits.ts, where variables are known.
 */

export interface DocumentLimitOptions {
  maxTokens: number;
  maxAliases: number;
  maxDirectives: number;
}

/**
 * Deeper than this, graphql-js' recursive parser and validators may overflow the stack. No sensible
 * document comes close: selections stop at GRAPHQL_MAX_DEPTH, and inline `where` inputs at a few
 * dozen levels.
 */
export const MAX_DOCUMENT_NESTING = 200;

/** `__schema` / `__type` fields per operation: GraphiQL's and every codegen tool's query has one. */
export const MAX_INTROSPECTION_ROOTS = 1;

type LimitCode =
  | 'QUERY_TOO_LONG'
  | 'QUERY_TOO_NESTED'
  | 'QUERY_TOO_MANY_ALIASES'
  | 'QUERY_TOO_MANY_DIRECTIVES'
  | 'QUERY_TOO_MUCH_INTROSPECTION';

export function documentLimitError(code: LimitCode, message: string, limit: number, actual?: number): GraphQLError {
  return new GraphQLError(message, {
    // spec: false, or Yoga answers validation errors with 200 to clients that accept application/json.
    extensions: { code, limit, ...(actual !== undefined ? { actual } : {}), http: { status: 400, spec: false } },
  });
}

/**
 * The deepest bracket nesting (`{`, `[`, `(`) of a document, outside strings and comments; stops
 * counting once past `limit`. Linear and iterative, so it is safe on any input.
 */
export function bracketNesting(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        // Escaped triple quotes (\""") inside a block string do not close it.
        let close = end;
        while (close > 0 && text.charCodeAt(close - 1) === 0x5c) close = text.indexOf('"""', close + 3);
        i = close < 0 ? text.length : close + 2;
      } else {
        i++;
        while (i < text.length && text.charCodeAt(i) !== 0x22 && text.charCodeAt(i) !== 0x0a) {
          if (text.charCodeAt(i) === 0x5c) i++;
          i++;
        }
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth = Math.max(0, depth - 1);
    }
  }
  return max;
}

/**
 * Refuses a document over the token or nesting limit with a 400 naming it. Iterative and bounded: it
 * stops at the first token past the limit. Runs on the request text before Yoga parses it (the errors
 * of Yoga's own parse stage are answered with 200 to application/json clients); lexical errors are
 * left to the parser, which reports them with their position.
 */
export function checkDocumentSize(text: string, maxTokens: number): void {
  const nesting = bracketNesting(text, MAX_DOCUMENT_NESTING);
  if (nesting > MAX_DOCUMENT_NESTING) {
    throw documentLimitError('QUERY_TOO_NESTED', `The document is nested more than ${MAX_DOCUMENT_NESTING} levels deep.`, MAX_DOCUMENT_NESTING);
  }
  const lexer = new Lexer(new Source(text));
  let tokens = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) {
      if (++tokens > maxTokens) {
        throw documentLimitError('QUERY_TOO_LONG', `The document has more than ${maxTokens} tokens (GRAPHQL_MAX_TOKENS).`, maxTokens);
      }
    }
  } catch (err) {
    if (err instanceof GraphQLError && err.extensions.code === 'QUERY_TOO_LONG') throw err;
  }
}

/** graphql-js' parser behind the size check, for code that parses request text itself. */
export function boundedParse(source: string, maxTokens: number, options?: ParseOptions): DocumentNode {
  checkDocumentSize(source, maxTokens);
  return parse(source, { ...options, maxTokens });
}

/** GraphQL Armor reports "Syntax Error: Aliases limit of 15 exceeded, found 300."; we name the setting and keep the numbers. */
function armorRejection(code: LimitCode, setting: string, limit: number): GraphQLArmorRejectCallback {
  return (context, error) => {
    const found = /found (\d+)/.exec(error.message);
    const actual = found ? Number(found[1]) : undefined;
    const what = code === 'QUERY_TOO_MANY_ALIASES' ? 'aliases' : 'directives';
    context?.reportError(
      documentLimitError(code, `The operation uses ${actual ?? 'too many'} ${what}; the limit is ${limit} (${setting}).`, limit, actual),
    );
  };
}

const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);
/** The list fields of `__Type` that fan out over the schema; a path below introspection may use one. */
const TYPE_EXPANSIONS = new Set(['fields', 'inputFields', 'interfaces', 'possibleTypes', 'enumValues']);

/**
 * Introspection is answered without authentication (GraphiQL loads the schema before headers are
 * set), so it must stay cheap: at most one `__schema`/`__type` per operation, no aliases inside it
 * (each would repeat the whole answer), and no type expanded again below a field of another type
 * (`types { fields { type { fields ... } } }` multiplies the schema by itself). The standard
 * introspection query (graphql-js `getIntrospectionQuery`, GraphiQL, codegen) passes all three.
 */
export const IntrospectionLimits: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const fail = (message: string, node: FieldNode) =>
    context.reportError(
      new GraphQLError(message, {
        nodes: node,
        extensions: { code: 'QUERY_TOO_MUCH_INTROSPECTION', limit: MAX_INTROSPECTION_ROOTS, http: { status: 400, spec: false } },
      }),
    );

  /** Walks a selection set, following fragments once per path; `expansions` counts TYPE_EXPANSIONS above. */
  const walkIntrospection = (set: SelectionSetNode, expansions: number, seen: Set<string>): boolean => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.alias && sel.name.value !== '__typename') {
          fail(`Aliases are not allowed inside introspection (found "${sel.alias.value}").`, sel);
          return false;
        }
        const n = expansions + (TYPE_EXPANSIONS.has(sel.name.value) ? 1 : 0);
        if (n > 1) {
          fail(`Introspection may expand types once per path ("${sel.name.value}" expands a type reached through another).`, sel);
          return false;
        }
        if (sel.selectionSet && !walkIntrospection(sel.selectionSet, n, seen)) return false;
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (!walkIntrospection(sel.selectionSet, expansions, seen)) return false;
      } else {
        const fragment = context.getFragment(sel.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue; // unknown or cyclic: other rules report it
        if (!walkIntrospection(fragment.selectionSet, expansions, new Set(seen).add(fragment.name.value))) return false;
      }
    }
    return true;
  };

  /** Introspection roots of an operation's top-level selection (through fragments). */
  const roots = (set: SelectionSetNode, seen: Set<FragmentDefinitionNode>, out: FieldNode[]): FieldNode[] => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (INTROSPECTION_ROOTS.has(sel.name.value)) out.push(sel);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        roots(sel.selectionSet, seen, out);
      } else {
        const fragment = context.getFragment(sel.name.value);
        if (fragment && !seen.has(fragment)) roots(fragment.selectionSet, seen.add(fragment), out);
      }
    }
    return out;
  };

  return {
    OperationDefinition(op) {
      const found = roots(op.selectionSet, new Set(), []);
      if (found.length > MAX_INTROSPECTION_ROOTS) {
        context.reportError(
          documentLimitError(
            'QUERY_TOO_MUCH_INTROSPECTION',
            `The operation asks for ${found.length} introspection fields (__schema, __type); the limit is ${MAX_INTROSPECTION_ROOTS}.`,
            MAX_INTROSPECTION_ROOTS,
            found.length,
          ),
        );
        return false;
      }
      for (const root of found) {
        if (root.alias) fail(`Aliases are not allowed on introspection fields (found "${root.alias.value}").`, root);
        else if (root.selectionSet) walkIntrospection(root.selectionSet, 0, new Set());
      }
      return false; // nothing below needs visiting here
    },
  };
};

/** Parse with the bounded parser; validate aliases and directives (GraphQL Armor) and introspection. */
export function useDocumentLimits(opts: DocumentLimitOptions): Plugin {
  const aliases = maxAliasesRule({
    n: opts.maxAliases,
    // Armor leaves `__typename` out of the count by default, but each aliased `__typename` is one more
    // field the executor resolves and answers: 1,000 of them cost as much as any 1,000 aliases.
    allowList: [],
    propagateOnRejection: false,
    onReject: [armorRejection('QUERY_TOO_MANY_ALIASES', 'GRAPHQL_MAX_ALIASES', opts.maxAliases)],
  });
  const directives = maxDirectivesRule({
    n: opts.maxDirectives,
    propagateOnRejection: false,
    onReject: [armorRejection('QUERY_TOO_MANY_DIRECTIVES', 'GRAPHQL_MAX_DIRECTIVES', opts.maxDirectives)],
  });
  return {
    // Requests were size-checked already (gate.ts); this keeps any other path through Yoga's parse
    // bounded too. Errors are made by Yoga's GraphQLError (graphql may be loaded twice, ESM and CJS)
    // so that Yoga recognises them as the client's.
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        try {
          return parseFn(source, { ...options, maxTokens: opts.maxTokens });
        } catch (err) {
          if (err instanceof RangeError) {
            throw createGraphQLError('The document is nested too deeply to parse.', { extensions: { code: 'QUERY_TOO_NESTED', http: { status: 400 } } });
          }
          throw err;
        }
      });
    },
    onValidate({ addValidationRule }) {
      addValidationRule(IntrospectionLimits);
      addValidationRule(aliases as ValidationRule);
      addValidationRule(directives as ValidationRule);
    },
  };
}
