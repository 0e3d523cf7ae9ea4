import { Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether a resolver's field selects any of `path`'s leaves, e.g. `selects(info, ['pageInfo'], ['total',
 * 'lastPage'])`. Fragments (named and inline) are followed whatever their type condition and
 * directives (`@skip`/`@include`) are ignored, so the answer errs towards "selected": the caller only
 * uses it to skip work that nobody reads.
 */
export function selects(info: GraphQLResolveInfo, path: readonly string[], leaves: readonly string[]): boolean {
  // A field node belongs to one parsed document (with its fragments), which the parse cache hands
  // to every request of the same text: the answer is per document, not per request.
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0] : undefined;
  const key = `${path.join('.')}|${leaves.join(',')}`;
  const known = node && answers.get(node)?.get(key);
  if (known !== undefined) return known;
  const sets = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  const answer = walk(sets, path, new Set(leaves), info.fragments);
  if (node) {
    let byKey = answers.get(node);
    if (!byKey) answers.set(node, (byKey = new Map()));
    byKey.set(key, answer);
  }
  return answer;
}

const answers = new WeakMap<FieldNode, Map<string, boolean>>();

function walk(sets: SelectionSetNode[], path: readonly string[], leaves: Set<string>, fragments: Record<string, FragmentDefinitionNode>): boolean {
  const [head, ...rest] = path;
  const next: SelectionSetNode[] = [];
  const visit = (set: SelectionSetNode, seen: Set<string>): boolean => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (head === undefined && leaves.has(s.name.value)) return true;
        if (head !== undefined && s.name.value === head && s.selectionSet) next.push(s.selectionSet);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (visit(s.selectionSet, seen)) return true;
      } else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments[s.name.value];
        if (fragment && visit(fragment.selectionSet, seen)) return true;
      }
    }
    return false;
  };
  for (const set of sets) if (visit(set, new Set())) return true;
  return head !== undefined && next.length > 0 && walk(next, rest, leaves, fragments);
}
