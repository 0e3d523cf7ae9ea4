import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { CollectionLayout, FieldLayout } from '../layout.ts';

/** Field types whose value is shown as stored: nothing is loaded to show them. */
const PLAIN_TYPES = new Set(['text', 'longtext', 'slug', 'email', 'number', 'enumeration', 'boolean', 'color', 'date', 'time', 'json']);

/** The fields of a typed entry that read no value (src/graphql/schema/typed/entry-types.ts). */
const ENTRY_FIELDS = new Set([
  '__typename', 'id', 'uuid', 'locale', 'state', 'publishedAt', 'createdAt', 'updatedAt', 'publishedVersionNumber',
  'isDraftDirty', 'searchScore', 'resolvedLocale', 'requestedLocale', 'versions', 'version',
]);

/** The fields of a selection set, through fragments; null when a directive could leave one out. */
function fieldsOf(set: SelectionSetNode | undefined, info: GraphQLResolveInfo, out: FieldNode[] = []): FieldNode[] | null {
  for (const sel of set?.selections ?? []) {
    if (sel.directives?.length) return null;
    if (sel.kind === Kind.FIELD) out.push(sel);
    else if (sel.kind === Kind.INLINE_FRAGMENT) {
      if (!fieldsOf(sel.selectionSet, info, out)) return null;
    } else {
      const fragment = info.fragments[sel.name.value];
      if (!fragment || fragment.directives?.length || !fieldsOf(fragment.selectionSet, info, out)) return null;
    }
  }
  return out;
}

/** The stored keys the selected fields of an entry read, or null when one of them reads more than its value. */
function keysOf(fields: FieldNode[], layout: CollectionLayout, linked: (f: FieldLayout, node: FieldNode) => boolean): string[] | null {
  const byName = new Map(layout.fields.map((f) => [f.name, f]));
  const keys: string[] = [];
  for (const node of fields) {
    const name = node.name.value;
    if (ENTRY_FIELDS.has(name)) continue;
    const f = byName.get(name);
    if (!f || !f.output) return null;
    if (PLAIN_TYPES.has(f.def.type) || (f.def.type === 'relation' && linked(f, node))) keys.push(f.def.name);
    else return null;
  }
  return keys;
}

/**
 * What the typed list query being resolved shows of its entries' values, when that is all it reads:
 * the only root field of its operation, selecting `data` (and page fields), entry fields of plain
 * types, and relations whose targets show plain values only. Then the list may read only those values
 * (src/entries/reads/selected-slice.ts); null otherwise, and the list reads whole entries.
 */
export function selectedValues(info: GraphQLResolveInfo, layout: CollectionLayout, layouts: ReadonlyMap<number, CollectionLayout>): { keys: string[]; linkedKeys: string[] } | null {
  const roots = fieldsOf(info.operation.selectionSet, info);
  if (!roots || roots.length !== 1 || info.fieldNodes.length !== 1) return null;
  const pageFields = fieldsOf(info.fieldNodes[0].selectionSet, info);
  if (!pageFields) return null;
  const entryFields: FieldNode[] = [];
  for (const node of pageFields) {
    if (node.name.value === 'data') {
      if (!fieldsOf(node.selectionSet, info, entryFields)) return null;
    } else if (node.name.value !== 'pageInfo' && node.name.value !== '__typename') {
      return null;
    }
  }
  const linkedKeys: string[] = [];
  const keys = keysOf(entryFields, layout, (f, node) => {
    const target = layouts.get(f.def.options.relation?.collection ?? -1);
    const below = target && fieldsOf(node.selectionSet, info);
    const shown = below && keysOf(below, target, () => false);
    if (!shown) return false;
    linkedKeys.push(...shown);
    return true;
  });
  return keys && { keys, linkedKeys };
}
