import { Kind, valueFromASTUntyped, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ReadDependency } from '../../../edge/read-cache/store.ts';

/**
 * Query fields whose answers depend only on the project's content (entries, their versions, assets,
 * collections and fields) are marked `extensions: { contentRead: true }`. Those are exactly the rows
 * the content generation covers (migration 20261122180000), so their results can be cached by it.
 */
export const CONTENT_READ = { contentRead: true } as const;

/** Where a root field's collection comes from: its slug, or the string argument of that name. */
export type CollectionSource = string | { argument: string };

/**
 * A content-read root field that shows the entries of one collection (and what they hydrate): its
 * cached answers are keyed by that collection's generations only (migration 20261126000000).
 * `draft`: the field always reads working drafts (trash); otherwise its `state` argument decides.
 */
export const collectionRead = (collection: CollectionSource, draft = false) => ({ ...CONTENT_READ, collectionRead: { collection, draft } });

interface CollectionReadExtension {
  collection: CollectionSource;
  draft: boolean;
}

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
    // A release preview reads content that no generation keys (docs/releases.md): never cached.
    if (selection.arguments?.some((a) => a.name.value === 'release')) return false;
    any = true;
  }
  return any;
}

function argumentValue(field: FieldNode, name: string, variables: Readonly<Record<string, unknown>>): unknown {
  const arg = field.arguments?.find((a) => a.name.value === name);
  return arg ? valueFromASTUntyped(arg.value, variables) : undefined;
}

/**
 * The collections (and states) a cacheable operation's root fields read, or null when one of them
 * reads something else (assets, collections) or a collection this cannot tell: such documents are
 * keyed by the project-wide generation. Nested selections need nothing here: a collection's
 * generations also move with every collection its relations lead to. `variables` are the coerced
 * ones (defaults applied), as execution sees them.
 */
export function readDependencies(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): ReadDependency[] | null {
  const fields = schema.getQueryType()?.getFields();
  if (!fields) return null;
  const reads: ReadDependency[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return null;
    if (selection.name.value === '__typename') continue;
    const read = fields[selection.name.value]?.extensions?.collectionRead as CollectionReadExtension | undefined;
    if (!read) return null;
    const collection = typeof read.collection === 'string' ? read.collection : argumentValue(selection, read.collection.argument, variables);
    if (typeof collection !== 'string') return null;
    // Typed and core fields alike read drafts only for exactly `draft` (anything else is published).
    const state = read.draft || argumentValue(selection, 'state', variables) === 'draft' ? 'draft' : 'published';
    reads.push({ collection, state });
  }
  return reads;
}
