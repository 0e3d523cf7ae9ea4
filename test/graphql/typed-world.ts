import type { TestApp, TestProject } from '../helpers/app.ts';
import { createCollection } from '../helpers/fixtures.ts';
import { upload, PNG } from '../assets/helpers.ts';

/**
 * A project with a small content model that covers every kind of typed field: companies ← authors ←
 * posts (two relation levels), media, an enumeration, a repeatable text, a group, a date range, a
 * password and a hidden field; plus a singleton. Collections are made before the first GraphQL
 * request of the project, so its first typed schema already has them.
 */
export async function typedWorld(t: TestApp, name = 'Typed') {
  const p: TestProject = await t.project({ name, locales: ['en', 'de'] });
  const db = t.database.prisma;
  const companies = await createCollection(db, p.id, { slug: 'companies', fields: [{ name: 'name', type: 'text' }] });
  const authors = await createCollection(db, p.id, {
    slug: 'authors',
    fields: [
      { name: 'name', type: 'text' },
      { name: 'company', type: 'relation', options: { relation: { collection: companies.id, type: 1 } } },
      { name: 'avatar', type: 'media', options: { media: { type: 1 } } },
    ],
  });
  const posts = await createCollection(db, p.id, {
    slug: 'posts',
    fields: [
      { name: 'title', type: 'text', validations: { required: { status: true } } },
      { name: 'body', type: 'richtext', options: { editor: { outputFormat: 'markdown' } } },
      { name: 'views', type: 'number' },
      { name: 'status', type: 'enumeration', options: { enumeration: { list: ['draft review', 'in-progress', 'done'] } } },
      { name: 'tags', type: 'text', options: { repeatable: true } },
      { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
      { name: 'cover-image', type: 'media', options: { media: { type: 2 } } },
      { name: 'seo', type: 'group', children: [{ name: 'meta-title', type: 'text' }] },
      { name: 'when', type: 'date', options: { mode: 'range' } },
      { name: 'secret', type: 'password' },
      { name: 'internal', type: 'text', options: { hiddenInAPI: true } },
    ],
  });
  await createCollection(db, p.id, { slug: 'homepage', isSingleton: true, fields: [{ name: 'headline', type: 'text' }] });
  const asset = await upload(t, p.headers, { filename: 'cover.png', contentType: 'image/png', content: PNG });
  if (asset.status !== 201) throw new Error(`upload failed: ${asset.status} ${JSON.stringify(asset.body)}`);

  const gql = async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = p.headers) => {
    const res = await t.graphql(query, variables, headers);
    return res as { status: number; body: { data?: any; errors?: Array<{ message: string; extensions: Record<string, any> }> } };
  };
  /** Runs a document and fails loudly on errors. */
  const ok = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) => {
    const res = await gql(query, variables, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const rest = (method: string, url: string, body?: unknown, headers: Record<string, string> = p.headers) => t.request({ method, url, headers, body });
  return { p, ids: { companies: companies.id, authors: authors.id, posts: posts.id }, assetUuid: asset.body.uuid as string, gql, ok, rest };
}

export type TypedWorld = Awaited<ReturnType<typeof typedWorld>>;
