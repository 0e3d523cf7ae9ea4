import type { TestApp, TestProject } from '../helpers/app.ts';
import { createCollection, type FieldSpec } from '../helpers/fixtures.ts';

export interface Setup {
  slug: string;
  collectionId: number;
}

/** The content model the version tests share: scalars, a relation, media, a group with a relation, a password. */
export async function setupCollections(t: TestApp, p: TestProject): Promise<{ posts: Setup; authors: Setup }> {
  const authors = await createCollection(t.database.prisma, p.id, { slug: 'authors', fields: [{ name: 'name', type: 'text' }] });
  const fields: FieldSpec[] = [
    { name: 'title', type: 'text' },
    { name: 'views', type: 'number' },
    { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
    { name: 'related', type: 'relation', options: { relation: { collection: authors.id, type: 2 } } },
    { name: 'cover', type: 'media', options: { media: { type: 1 } } },
    { name: 'blocks', type: 'group', options: { repeatable: true }, children: [
      { name: 'caption', type: 'text' },
      { name: 'who', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
    ] },
    { name: 'secret', type: 'password' },
  ];
  const posts = await createCollection(t.database.prisma, p.id, { slug: 'posts', fields });
  return { posts: { slug: 'posts', collectionId: posts.id }, authors: { slug: 'authors', collectionId: authors.id } };
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
