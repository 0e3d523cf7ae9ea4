import { Kind, parse, type DocumentNode } from 'graphql';

/**
 * A document whose every operation asks only for `__schema` / `__type` / `__typename`: what a caller
 * without credentials may run against the core schema (GraphiQL loads the schema before its headers
 * are filled in). Only called on text that passed the document size check; syntax errors: not
 * introspection (Yoga reports them).
 */
export function isIntrospectionOnly(query: unknown, maxTokens: number): boolean {
  if (typeof query !== 'string') return false;
  let doc: DocumentNode;
  try {
    doc = parse(query, { maxTokens });
  } catch {
    return false;
  }
  return doc.definitions.every(
    (d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ||
      (d.kind === Kind.OPERATION_DEFINITION && d.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'))),
  );
}
