import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

const revision = async (t: TestApp, p: TestProject) =>
  (await t.database.prisma.project.findUniqueOrThrow({ where: { uuid: p.uuid } })).schemaRevision;

describe('collections admin over REST', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project({ name: 'Blog' });
  });
  afterAll(() => t.close());

  const api = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    t.request({ method, url, headers: headers ?? p.headers, body });

  it('creates a collection with fields and group children, returning ids and the flattened fields', async () => {
    const before = await revision(t, p);
    const res = await api('POST', '/api/collections', {
      name: 'Posts',
      slug: 'posts',
      fields: [
        { type: 'text', label: 'Title', name: 'title', validations: { required: { status: true, message: 'Title is required' } } },
        { type: 'slug', label: 'Slug', name: 'slug', options: { slug: { field: 'title', readonly: false } } },
        { type: 'relation', label: 'Related', name: 'related', options: { relation: { collection: 'posts', type: 2 } } },
        {
          type: 'group',
          label: 'SEO',
          name: 'seo',
          options: { repeatable: false },
          children: [
            { type: 'text', label: 'Meta title', name: 'meta-title' },
            { type: 'longtext', label: 'Meta description', name: 'meta-description' },
          ],
        },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Posts', slug: 'posts', is_singleton: false });
    expect(typeof res.body.id).toBe('number');
    expect(res.body.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const names = res.body.fields.map((f: { name: string }) => f.name);
    expect(names).toEqual(['title', 'slug', 'related', 'seo', 'meta-title', 'meta-description']);
    const seo = res.body.fields.find((f: { name: string }) => f.name === 'seo');
    const child = res.body.fields.find((f: { name: string }) => f.name === 'meta-title');
    expect(child.parent_field_id).toBe(seo.id);
    expect(seo.parent_field_id).toBeNull();
    // Relation targets are stored as the internal id, even when given by slug (here: itself).
    expect(res.body.fields[2].options.relation).toEqual({ collection: res.body.id, type: 2 });
    expect(Object.keys(res.body.fields[0]).sort()).toEqual(
      ['description', 'id', 'label', 'name', 'options', 'order', 'parent_field_id', 'placeholder', 'type', 'uuid', 'validations'].sort(),
    );
    expect(await revision(t, p)).toBe(before + 1);
  });

  it('lists and gets collections with fields; GET /api embeds them on request', async () => {
    await api('POST', '/api/collections', { name: 'Authors', slug: 'authors', fields: [{ type: 'text', label: 'Name', name: 'name' }] });
    const list = await api('GET', '/api/collections', undefined, await p.tokenWith('read'));
    expect(list.status).toBe(200);
    expect(list.body.map((c: { slug: string }) => c.slug)).toEqual(['posts', 'authors']);
    expect(list.body[1].fields).toHaveLength(1);

    const one = await api('GET', '/api/collections/authors');
    expect(one.status).toBe(200);
    expect(one.body.fields[0]).toMatchObject({ name: 'name', type: 'text', label: 'Name' });

    const bare = await api('GET', '/api');
    expect(bare.body.collections).toBeUndefined();
    const withCollections = await api('GET', '/api?with=collections');
    expect(withCollections.body.collections.map((c: { slug: string }) => c.slug)).toEqual(['posts', 'authors']);
    expect(withCollections.body.collections[0].fields).toBeUndefined();
    expect(withCollections.body.collections[0]).toMatchObject({ id: expect.any(Number), uuid: expect.any(String), is_singleton: false });
    for (const q of ['with=fields', 'with=collections,fields', 'with[]=collections&with[]=fields']) {
      const res = await api('GET', `/api?${q}`);
      expect(res.body.collections[0].fields.length, q).toBeGreaterThan(0);
    }

    const missing = await api('GET', '/api/collections/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Collection not found.' });
  });

  it('validates collection bodies: required, kebab-case, reserved and taken slugs', async () => {
    const empty = await api('POST', '/api/collections', {});
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors).sort()).toEqual(['name', 'slug']);
    const bad = await api('POST', '/api/collections', { name: 'X', slug: 'Bad Slug' });
    expect(bad.body.errors.slug[0]).toMatch(/lowercase/);
    for (const slug of ['collections', 'files', 'webhooks', 'bulk', 'project', 'auth', 'graphql', 'docs', 'openapi']) {
      const res = await api('POST', '/api/collections', { name: 'X', slug });
      expect(res.status, slug).toBe(422);
      expect(res.body.errors.slug[0]).toMatch(/reserved/);
    }
    const taken = await api('POST', '/api/collections', { name: 'Again', slug: 'posts' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors.slug).toEqual(['The slug has already been taken.']);
  });

  it('rejects field documents that break the per-type rules, reporting every key', async () => {
    const res = await api('POST', '/api/collections', {
      name: 'Bad',
      slug: 'bad',
      fields: [
        { type: 'text', label: 'A', name: 'Not Kebab' },
        { type: 'boolean', label: 'B', name: 'b', validations: { unique: { status: true } } },
        { type: 'richtext', label: 'C', name: 'c', options: { repeatable: true } },
        { type: 'text', label: 'D', name: 'd', options: { repeatable: true }, validations: { unique: { status: true } } },
        { type: 'date', label: 'E', name: 'e', validations: { charcount: { status: true, type: 'Min', min: 1 } } },
        { type: 'group', label: 'F', name: 'f', children: [{ type: 'group', label: 'G', name: 'g', options: { repeatable: false } }] },
        { type: 'group', label: 'H', name: 'h', options: { repeatable: true }, children: [{ type: 'text', label: 'I', name: 'i', validations: { unique: { status: true } } }] },
        { type: 'relation', label: 'J', name: 'j', options: { relation: { collection: 'no-such-thing', type: 1 } } },
        { type: 'text', label: 'K', name: 'k', children: [] },
        { type: 'text', label: 'L', name: 'l', validations: { charcount: { status: true, type: 'Between', min: 1 } } },
        { type: 'enumeration', label: 'M', name: 'm', options: { enumeration: { list: [] } } },
        { type: 'media', label: 'N', name: 'n', options: { media: { type: 3 } } },
        { type: 'nope', label: 'O', name: 'o' },
        { type: 'text', label: 'Dup', name: 'dup' },
        { type: 'text', label: 'Dup', name: 'dup' },
      ],
    });
    expect(res.status).toBe(422);
    const keys = Object.keys(res.body.errors);
    for (const k of [
      'fields.0.name',
      'fields.1.validations.unique',
      'fields.2.options.repeatable',
      'fields.3.validations.unique',
      'fields.4.validations.charcount',
      'fields.5.options.repeatable',
      'fields.5.children.0.type',
      'fields.6.children.0.validations.unique',
      'fields.8.children',
      'fields.9.validations.charcount.max',
      'fields.10.options.enumeration.list',
      'fields.11.options.media.type',
      'fields.12.type',
      'fields.14.name',
    ]) {
      expect(keys, k).toContain(k);
    }
    // Nothing was written.
    expect((await api('GET', '/api/collections/bad')).status).toBe(404);

    // The unresolvable relation is reported once the rest is valid.
    const rel = await api('POST', '/api/collections', {
      name: 'Bad',
      slug: 'bad',
      fields: [{ type: 'relation', label: 'J', name: 'j', options: { relation: { collection: 'no-such-thing', type: 1 } } }],
    });
    expect(rel.status).toBe(422);
    expect(rel.body.errors['fields.0.options.relation.collection'][0]).toMatch(/does not exist/);
    expect((await api('GET', '/api/collections/bad')).status).toBe(404);
  });

  it('resolves relation targets given by id, slug or name to the id', async () => {
    const authors = (await api('GET', '/api/collections/authors')).body;
    for (const [i, ref] of [authors.id, 'authors', 'Authors', String(authors.id)].entries()) {
      const res = await api('POST', '/api/collections/posts/fields', {
        type: 'relation',
        label: 'Author',
        name: i === 1 ? 'author' : `author-${i}`,
        options: { relation: { collection: ref, type: 1 } },
      });
      expect(res.status, String(ref)).toBe(201);
      expect(res.body.options.relation).toEqual({ collection: authors.id, type: 1 });
    }
  });

  it('updates a collection (name + slug required) and answers without fields', async () => {
    const missing = await api('PUT', '/api/collections/authors', { name: 'Writers' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.slug).toBeDefined();
    const res = await api('PUT', '/api/collections/authors', { name: 'Writers', slug: 'writers' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Writers', slug: 'writers' });
    expect(res.body.fields).toBeUndefined();
    expect((await api('GET', '/api/collections/authors')).status).toBe(404);
    // Relations keep pointing at it: they store the id.
    const posts = (await api('GET', '/api/collections/posts')).body;
    expect(posts.fields.find((f: { name: string }) => f.name === 'author').options.relation.collection).toBe(res.body.id);
    const clash = await api('PUT', '/api/collections/writers', { name: 'Writers', slug: 'posts' });
    expect(clash.status).toBe(422);
  });

  it('reorders collections, skipping unknown uuids', async () => {
    const list = (await api('GET', '/api/collections')).body;
    const res = await api('POST', '/api/collections/reorder', {
      collections: [
        { uuid: list[0].uuid, order: 5 },
        { uuid: list[1].uuid, order: 1 },
        { uuid: '00000000-0000-4000-8000-000000000000', order: 0 },
        { uuid: 'garbage', order: 0 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Collections reordered successfully.' });
    const after = (await api('GET', '/api/collections')).body.map((c: { slug: string }) => c.slug);
    expect(after).toEqual(['writers', 'posts']);
    expect((await api('POST', '/api/collections/reorder', { collections: [{ uuid: list[0].uuid, order: -1 }] })).status).toBe(422);
  });

  it('requires admin for writes and read for reads', async () => {
    const reader = await p.tokenWith('read');
    const writer = await p.tokenWith(['create', 'update', 'delete']);
    expect((await api('GET', '/api/collections', undefined, writer)).status).toBe(403);
    expect((await api('GET', '/api/collections/posts', undefined, writer)).status).toBe(403);
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/collections', { name: 'Z', slug: 'z' }],
      ['PUT', '/api/collections/posts', { name: 'P', slug: 'posts' }],
      ['DELETE', '/api/collections/posts', { slug: 'posts' }],
      ['POST', '/api/collections/reorder', { collections: [] }],
      ['POST', '/api/collections/posts/fields', { type: 'text', label: 'x', name: 'x' }],
      ['PUT', '/api/collections/posts/fields/00000000-0000-4000-8000-000000000000', { type: 'text', label: 'x', name: 'x' }],
      ['DELETE', '/api/collections/posts/fields/00000000-0000-4000-8000-000000000000', undefined],
      ['POST', '/api/collections/posts/fields/reorder', { fields: [] }],
    ];
    for (const [method, url, body] of writes) {
      const res = await api(method, url, body, reader);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.message).toMatch(/"admin"/);
    }
  });

  it('deletes a collection only when the body repeats its slug, cascading to fields and entries', async () => {
    const c = (await api('POST', '/api/collections', { name: 'Tmp', slug: 'tmp', fields: [{ type: 'text', label: 'T', name: 't' }] })).body;
    const pointer = await api('POST', '/api/collections/posts/fields', {
      type: 'relation', label: 'Tmp', name: 'tmp-ref', options: { relation: { collection: 'tmp', type: 1 } },
    });
    expect(pointer.status).toBe(201);
    const projectId = p.id;
    await t.database.prisma.entry.create({ data: { projectId, collectionId: c.id, locale: 'en', data: { t: 'x' } } });

    const noBody = await api('DELETE', '/api/collections/tmp');
    expect(noBody.status).toBe(422);
    expect(noBody.body.message).toBe('The collection slug does not match.');
    const wrong = await api('DELETE', '/api/collections/tmp', { slug: 'posts' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toBe('The collection slug does not match.');
    expect((await api('DELETE', '/api/collections/nope', { slug: 'nope' })).status).toBe(404);

    const before = await revision(t, p);
    const ok = await api('DELETE', '/api/collections/tmp', { slug: 'tmp' });
    expect(ok.status).toBe(204);
    expect(ok.text).toBe('');
    expect(await revision(t, p)).toBe(before + 1);
    expect((await api('GET', '/api/collections/tmp')).status).toBe(404);
    expect(await t.database.prisma.field.count({ where: { collectionId: c.id } })).toBe(0);
    expect(await t.database.prisma.entry.count({ where: { collectionId: c.id } })).toBe(0);
    // The relation field that pointed at it left the schema of its own collection.
    const posts = (await api('GET', '/api/collections/posts')).body;
    expect(posts.fields.map((f: { name: string }) => f.name)).not.toContain('tmp-ref');
  });

  it('creates singletons', async () => {
    const res = await api('POST', '/api/collections', { name: 'Settings', slug: 'settings', is_singleton: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ is_singleton: true, fields: [] });
  });
});
