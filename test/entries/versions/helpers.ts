import type { TestApp, TestProject } from '../../helpers/app.ts';
import { world, posts, authors, field } from '../../helpers/world.ts';

export interface Setup {
  slug: string;
  collectionId: number;
}

/** The content model the version tests share: scalars, a relation, media, a group with a relation, a password. */
export async function setupCollections(t: TestApp, p: TestProject): Promise<{ posts: Setup; authors: Setup }> {
  const { c } = await world({
    app: t,
    project: p,
    collections: [
      authors(),
      posts(
        field.number('views'),
        field.relation('author', 'authors'),
        field.relation('related', 'authors', 2),
        { name: 'cover', type: 'media', options: { media: { type: 1 } } },
        { name: 'blocks', type: 'group', options: { repeatable: true }, children: [field.text('caption'), field.relation('who', 'authors')] },
        { name: 'secret', type: 'password' },
      ),
    ],
  });
  const [postsId, authorsId] = [c.posts.id, c.authors.id];
  return { posts: { slug: 'posts', collectionId: postsId }, authors: { slug: 'authors', collectionId: authorsId } };
}

/** Creates a draft entry through the public API (POST /api/{collection}). */
export async function createEntry(t: TestApp, p: TestProject, slug: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request({ method: 'POST', url: `/api/${slug}`, headers: p.headers, body: { data, ...extra } });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.uuid as string;
}

export async function patchEntry(t: TestApp, p: TestProject, slug: string, uuid: string, data: Record<string, unknown>) {
  const res = await t.request({ method: 'PATCH', url: `/api/${slug}/${uuid}`, headers: p.headers, body: { data } });
  if (res.status !== 200) throw new Error(`patch failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function createAsset(t: TestApp, projectId: number, name = 'a.png'): Promise<string> {
  const a = await t.database.prisma.asset.create({
    data: { projectId, filename: name, originalFilename: name, mimeType: 'image/png', size: 10, storageKey: `k/${name}` },
  });
  return a.uuid;
}

export async function entryRow(t: TestApp, uuid: string) {
  return t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } });
}
