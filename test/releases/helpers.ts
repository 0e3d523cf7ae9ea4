import { field, posts, authors, collection, world, type World } from '../helpers/world.ts';

/** A project with three collections (posts, authors, pages) for releases that span them. */
export async function releaseWorld(opts: { embedded?: boolean } = {}): Promise<World> {
  return world({
    app: opts.embedded ? { embedded: true } : undefined,
    collections: [
      authors(),
      posts(field.number('views'), field.relation('author', 'authors')),
      collection('pages', [field.text('heading')]),
    ],
    tokens: { reader: ['read'], editor: ['read', 'update'], creator: ['read', 'create'] },
  });
}

/** Creates an entry (published when asked) and returns its UUID. */
export async function entry(w: World, slug: string, data: Record<string, unknown>, state: 'draft' | 'published' = 'draft'): Promise<string> {
  const res = await w.api('POST', `/api/${slug}`, { data, state });
  if (res.status !== 201) throw new Error(`create ${slug}: ${res.status} ${res.text}`);
  return res.body.uuid;
}

export async function release(w: World, items: Array<{ collection: string; uuid: string; action: 'publish' | 'unpublish'; locale?: string }>, title = 'Launch'): Promise<{ id: string; items: Array<{ id: string }> }> {
  const made = await w.api('POST', '/api/releases', { title });
  if (made.status !== 201) throw new Error(`release: ${made.status} ${made.text}`);
  if (items.length === 0) return made.body.data;
  const added = await w.api('POST', `/api/releases/${made.body.data.id}/items`, { items });
  if (added.status !== 200) throw new Error(`items: ${added.status} ${added.text}`);
  return added.body.data;
}
