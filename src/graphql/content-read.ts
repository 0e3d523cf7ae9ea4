import { Kind, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

/**
 * Query fields whose answers depend only on the project's content (entries, their versions, assets,
 * collections and fields) are marked `extensions: { contentRead: true }`. Those are exactly the rows
 * the content generation covers (migration 20261122180000), so their results can be cached by it.
 */
export const CONTENT_READ = { contentRead: true } as const;

export function cacheableOperation(schema: GraphQLSchema, operation: OperationDefinitionNode | undefined): boolean {
  if (!operation || operation.operation !== 'query') return false;
  const fields = schema.getQueryType()?.getFields();
  if (!fields) return false;
  let any = false;
  for (const selection of operation.selectionSet.selections) {
    // Root fragments and directives could hide any field: not worth resolving here.
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return false;
    if (selection.name.value === '__typename') continue;
    if (fields[selection.name.value]?.extensions?.contentRead !== true) return false;
    any = true;
  }
  return any;
}
