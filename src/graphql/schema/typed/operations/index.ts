import type { TypedBuilder } from '../builder.ts';
import type { TypeRefs } from '../entry-types.ts';
import type { CollectionInputs } from '../inputs.ts';
import type { CollectionLayout } from '../layout.ts';
import type { NameRegistry } from '../names.ts';
import { defineCreate } from './create.ts';
import { defineDelete } from './delete.ts';
import { defineGet } from './get.ts';
import { defineList } from './list.ts';
import { definePage } from './page.ts';
import { definePublishing } from './publish.ts';
import type { CollectionScope, SharedResults } from './scope.ts';
import { defineSingleton } from './single.ts';
import { defineTrashMutations, defineTrashed } from './trash.ts';
import { defineUpdate } from './update.ts';

function defineResults(b: TypedBuilder, types: NameRegistry): SharedResults {
  const deletion = b.objectRef<{ uuid: string; message: string }>(types.claim('DeletionResult')).implement({
    fields: (t) => ({ uuid: t.exposeID('uuid', { nullable: false }), message: t.exposeString('message', { nullable: false }) }),
  });
  const trashEmptied = b.objectRef<{ message: string; deleted: number }>(types.claim('EmptyTrashResult')).implement({
    fields: (t) => ({ message: t.exposeString('message', { nullable: false }), deleted: t.exposeInt('deleted', { nullable: false }) }),
  });
  return { deletion, trashEmptied };
}

/**
 * The typed root fields of each collection, one file per field or family. Every resolver is a thin
 * adapter over the content and versions operations (the same functions the REST routes call):
 * arguments are converted to the REST input shapes (convert.ts), so validation, authorization, events
 * and error classes are shared. The typed schema is not sorted, so the calls below fix the order in
 * which each collection's fields appear in its SDL.
 */
export function defineOperations(b: TypedBuilder, types: NameRegistry, layouts: CollectionLayout[], refs: TypeRefs, inputs: Map<number, CollectionInputs>): void {
  const results = defineResults(b, types);
  for (const l of layouts) {
    const scope: CollectionScope = {
      b,
      slug: l.schema.slug,
      label: `"${l.schema.name}"`,
      n: l.names,
      entry: refs.entries.get(l.schema.id)!,
      page: definePage(b, l, refs),
      io: inputs.get(l.schema.id)!,
      entryState: refs.shared.entryState,
    };
    if (l.schema.isSingleton) {
      defineSingleton(scope);
    } else {
      defineList(scope);
      defineGet(scope);
    }
    defineTrashed(scope);
    defineCreate(scope);
    defineUpdate(scope);
    definePublishing(scope);
    defineDelete(scope, results);
    defineTrashMutations(scope, results);
  }
}
