import type { Entry } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import type { CollectionSchema } from '../collections/model.ts';
import type { Ctx } from '../context.ts';

export type EntryState = 'draft' | 'published';

/**
 * The entry resource (facts §2.5) that publish/unpublish/revert return and put in their events.
 * Placeholder until src/content/serialize.ts lands: write-shape fields without password values.
 */
export async function entryResource(
  _tx: Tx,
  _ctx: Ctx,
  collection: CollectionSchema,
  entry: Entry,
  state: EntryState,
): Promise<Record<string, unknown>> {
  const source = ((state === 'published' ? entry.publishedData : entry.data) ?? {}) as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const f of collection.fields) {
    if (f.type === 'password' || f.options.hiddenInAPI) continue;
    fields[f.name] = Object.hasOwn(source, f.name) ? source[f.name] : null;
  }
  return {
    uuid: entry.uuid,
    locale: entry.locale,
    published_at: entry.publishedAt ? entry.publishedAt.toISOString() : null,
    fields,
  };
}
