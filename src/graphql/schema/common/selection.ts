import { Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether a resolver's field selects any of `path`'s leaves, e.g. `selects(info, ['pageInfo'], ['total',
 * 'lastPage'])`. Fragments (named and inline) are followed whatever their type condition and
 * directives (`@skip`/`@include`) are ignored, so the answer errs towards "selected": the caller only
 * uses it to skip work that nobody reads.
 */
export function selects(info: GraphQLResolveInfo, path: readonly string[], leaves: readonly string[]): boolean {
  return perDocument(info, `${path.join('.')}|${leaves.join(',')}`, () => {
    const wanted = new Set(leaves);
    return setsAt(info, path).some((set) => someField(set, info.fragments, (f) => wanted.has(f.name.value)));
  });
}

/**
 * Whether any field named in `names` is selected at any depth below `path` of a resolver's field
 * (fragments followed, directives ignored, so the answer errs towards "selected"), e.g. whether a
 * list's entries or the entries they link show a piece of metadata.
 */
export function selectsBelow(info: GraphQLResolveInfo, path: readonly string[], names: readonly string[]): boolean {
  return perDocument(info, `below:${path.join('.')}|${names.join(',')}`, () => {
    const wanted = new Set(names);
    const deep = (set: SelectionSetNode): boolean =>
      someField(set, info.fragments, (f) => wanted.has(f.name.value) || (f.selectionSet !== undefined && deep(f.selectionSet)), true);
    return setsAt(info, path).some(deep);
  });
}

const answers = new WeakMap<FieldNode, Map<string, boolean>>();

/**
 * A field node belongs to one parsed document (with its fragments), which the parse cache hands to
 * every request of the same text: an answer about its selection is per document, not per request.
 */
function perDocument(info: GraphQLResolveInfo, key: string, compute: () => boolean): boolean {
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0] : undefined;
  const known = node && answers.get(node)?.get(key);
  if (known !== undefined) return known;
  const answer = compute();
  if (node) {
    let byKey = answers.get(node);
    if (!byKey) answers.set(node, (byKey = new Map()));
    byKey.set(key, answer);
  }
  return answer;
}

/** The selection sets at `path` below the resolver's field, through fragments. */
function setsAt(info: GraphQLResolveInfo, path: readonly string[]): SelectionSetNode[] {
  let sets = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  for (const head of path) {
    const next: SelectionSetNode[] = [];
    for (const set of sets)
      someField(set, info.fragments, (f) => {
        if (f.name.value === head && f.selectionSet) next.push(f.selectionSet);
        return false;
      });
    sets = next;
  }
  return sets;
}

/**
 * Whether `test` holds for a field of `set`, its inline fragments and the named fragments it spreads
 * (each once; whatever their type condition). A spread of an unknown fragment cannot be judged:
 * `unknownSelects` says what it counts as.
 */
function someField(set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, test: (field: FieldNode) => boolean, unknownSelects = false): boolean {
  const seen = new Set<string>();
  const visit = (s: SelectionSetNode): boolean =>
    s.selections.some((sel) => {
      if (sel.kind === Kind.FIELD) return test(sel);
      if (sel.kind === Kind.INLINE_FRAGMENT) return visit(sel.selectionSet);
      if (seen.has(sel.name.value)) return false;
      seen.add(sel.name.value);
      const fragment = fragments[sel.name.value];
      return fragment ? visit(fragment.selectionSet) : unknownSelects;
    });
  return visit(set);
}

/** Whether the resolver's field is its operation's one root field (no other root field shares the request's loaders). */
export const isOnlyRootField = (info: GraphQLResolveInfo): boolean => {
  const roots = info.operation.selectionSet.selections;
  return roots.length === 1 && roots[0].kind === Kind.FIELD;
};
