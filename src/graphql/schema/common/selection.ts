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

/**
 * Whether any field named in `names` is selected at any depth below `path` of a resolver's field
 * (fragments followed, directives ignored, so the answer errs towards "selected"), e.g. whether a
 * list's entries or the entries they link show a piece of metadata. Cached per document, as `selects`.
 */
export function selectsBelow(info: GraphQLResolveInfo, path: readonly string[], names: readonly string[]): boolean {
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0] : undefined;
  const key = `below:${path.join('.')}|${names.join(',')}`;
  const known = node && answers.get(node)?.get(key);
  if (known !== undefined) return known;
  let sets = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  for (const head of path) sets = fieldsNamed(sets, head, info.fragments);
  const wanted = new Set(names);
  const seen = new Set<string>();
  const deep = (set: SelectionSetNode): boolean =>
    set.selections.some((s) => {
      if (s.kind === Kind.FIELD) return wanted.has(s.name.value) || (s.selectionSet !== undefined && deep(s.selectionSet));
      if (s.kind === Kind.INLINE_FRAGMENT) return deep(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      const fragment = info.fragments[s.name.value];
      // An unknown fragment cannot be judged: count it as selecting.
      return fragment ? deep(fragment.selectionSet) : true;
    });
  const answer = sets.some(deep);
  if (node) {
    let byKey = answers.get(node);
    if (!byKey) answers.set(node, (byKey = new Map()));
    byKey.set(key, answer);
  }
  return answer;
}

/** The selection sets of the fields named `name` in `sets`, through fragments. */
function fieldsNamed(sets: SelectionSetNode[], name: string, fragments: Record<string, FragmentDefinitionNode>): SelectionSetNode[] {
  const out: SelectionSetNode[] = [];
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === name && s.selectionSet) out.push(s.selectionSet);
      } else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments[s.name.value];
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) visit(set);
  return out;
}

/** Whether the resolver's field is its operation's one root field (no other root field shares the request's loaders). */
export const isOnlyRootField = (info: GraphQLResolveInfo): boolean => {
  const roots = info.operation.selectionSet.selections;
  return roots.length === 1 && roots[0].kind === Kind.FIELD;
};
