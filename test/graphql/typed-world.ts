import type { TestApp } from '../helpers/app.ts';
import { world, authors, collection, field } from '../helpers/world.ts';
import { upload, PNG } from '../assets/helpers.ts';

/**
 * A project with a small content model that covers every kind of typed field: companies ← authors ←
 * posts (two relation levels), media, an enumeration, a repeatable text, a group, a date range, a
 * password and a hidden field; plus a singleton. Collections are made before the first GraphQL
 * request of the project, so its first typed schema already has them.
 */
export async function typedWorld(t: TestApp, name = 'Typed') {
  const { p, c } = await world({
    app: t,
    project: { name, locales: ['en', 'de'] },
    collections: [
      collection('companies', [field.text('name')]),
      authors(field.relation('company', 'companies'), { name: 'avatar', type: 'media', options: { media: { type: 1 } } }),
      collection('posts', [
        field.required('title'),
        { name: 'body', type: 'richtext', options: { editor: { outputFormat: 'markdown' } } },
        field.number('views'),
        { name: 'status', type: 'enumeration', options: { enumeration: { list: ['draft review', 'in-progress', 'done'] } } },
        field.text('tags', { options: { repeatable: true } }),
        field.relation('author', 'authors'),
        { name: 'cover-image', type: 'media', options: { media: { type: 2 } } },
        { name: 'seo', type: 'group', children: [field.text('meta-title')] },
        { name: 'when', type: 'date', options: { mode: 'range' } },
        { name: 'secret', type: 'password' },
        field.hidden('internal'),
      ]),
      collection('homepage', [field.text('headline')], { isSingleton: true }),
    ],
  });
  const [companies, authorsRow, posts] = [c.companies, c.authors, c.posts];
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
  return { p, ids: { companies: companies.id, authors: authorsRow.id, posts: posts.id }, assetUuid: asset.body.uuid as string, gql, ok, rest };
}

export type TypedWorld = Awaited<ReturnType<typeof typedWorld>>;
