import type { ObjectRef } from '@pothos/core';
import type { TypedBuilder, TypedTypes } from '../builder.ts';
import type { TypeRefs } from '../entry-types.ts';
import type { CollectionLayout } from '../layout.ts';
import type { TypedEntry, TypedPage } from '../model.ts';
import { edgesOf, type Edge } from '../../common/page-info.ts';

type T = PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>;

/** What a page's selection is multiplied by: the page size it asks for. */
export const pageCost = (args: { perPage?: unknown; first?: unknown }, fallback: number): number => {
  const size = args.first ?? args.perPage;
  return typeof size === 'number' && size > 0 ? size : fallback;
};

/** A collection's page type (and its Relay edge), which its list and trash queries answer. */
export function definePage(b: TypedBuilder, l: CollectionLayout, refs: TypeRefs): ObjectRef<T, TypedPage> {
  const n = l.names;
  const entry = refs.entries.get(l.schema.id)!;
  const { pageInfo } = refs.shared;
  const label = `"${l.schema.name}"`;
  const edge = b.objectRef<Edge<TypedEntry>>(n.edge).implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor', { nullable: false }),
      node: t.field({ type: entry, nullable: false, resolve: (e) => e.node }),
    }),
  });
  return b.objectRef<TypedPage>(n.page).implement({
    description: `One page of ${label} entries: \`data\` and \`pageInfo\` (page + perPage paging), or the same page as \`edges\` (Relay: first + after).`,
    fields: (t) => ({
      data: t.field({ type: [entry], nullable: false, extensions: { complexity: { field: 0, multiplier: 1 } }, resolve: (p) => p.data }),
      edges: t.field({ type: [edge], nullable: false, extensions: { complexity: { field: 0, multiplier: 1 } }, resolve: (p) => edgesOf(p.data, p.currentPage, p.perPage) }),
      pageInfo: t.field({ type: pageInfo, nullable: false, resolve: (p) => ({ ...p, count: p.data.length }) }),
    }),
  });
}
