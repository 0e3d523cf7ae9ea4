import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

for (const embedded of [false, true]) describe(`fields admin over REST (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let t: TestApp;
  let p: TestProject;
  let collectionId: number;
  beforeAll(async () => {
    t = await startTestApp({ embedded });
    p = await t.project({ name: 'Fields' });
    const res = await t.request({
      method: 'POST',
      url: '/api/collections',
      headers: p.headers,
      body: {
        name: 'Articles',
        slug: 'articles',
        fields: [
          { type: 'text', label: 'Title', name: 'title' },
          { type: 'slug', label: 'Slug', name: 'slug', options: { slug: { field: 'title' } } },
          { type: 'group', label: 'Links', name: 'links', options: { repeatable: true }, children: [{ type: 'text', label: 'Url', name: 'url' }] },
        ],
      },
    });
    collectionId = res.body.id;
  }, 120_000);
  afterAll(() => t.close());

  const api = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    t.request({ method, url, headers: headers ?? p.headers, body });
  const fieldsOf = async () => (await api('GET', '/api/collections/articles')).body.fields as Array<Record<string, any>>;
  const byName = async (name: string) => (await fieldsOf()).find((f) => f.name === name)!;

  it('adds a field at the end of its level (201) and a child to a group via parent_field_id', async () => {
    const res = await api('POST', '/api/collections/articles/fields', {
      type: 'number', label: 'Rating', name: 'rating', description: 'Stars', placeholder: '1-5',
      validations: { charcount: { status: true, type: 'Between', min: 1, max: 5, message: 'Between 1 and 5' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'number', name: 'rating', description: 'Stars', placeholder: '1-5', order: 3, parent_field_id: null });

    const links = await byName('links');
    const child = await api('POST', '/api/collections/articles/fields', { type: 'text', label: 'Label', name: 'label', parent_field_id: links.id });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ parent_field_id: links.id, order: 1 });
    const names = (await fieldsOf()).map((f) => f.name);
    expect(names).toEqual(['title', 'slug', 'links', 'url', 'label', 'rating']);
  });

  it('rejects invalid field documents with 422', async () => {
    const links = await byName('links');
    const title = await byName('title');
    const cases: Array<[unknown, string]> = [
      [{ type: 'text', label: 'Dup', name: 'title' }, 'name'],
      [{ type: 'text', label: 'X' }, 'name'],
      [{ label: 'X', name: 'x' }, 'type'],
      [{ type: 'password', label: 'P', name: 'p', parent_field_id: links.id }, 'type'],
      [{ type: 'text', label: 'U', name: 'u', parent_field_id: links.id, validations: { unique: { status: true } } }, 'validations.unique'],
      [{ type: 'text', label: 'Orphan', name: 'orphan', parent_field_id: title.id }, 'parent_field_id'],
      [{ type: 'group', label: 'G', name: 'g' }, 'options.repeatable'],
      [{ type: 'group', label: 'G', name: 'g', options: { repeatable: false }, children: [] }, 'children'],
      [{ type: 'slug', label: 'S', name: 's', options: { slug: { field: 'rating' } } }, 'options.slug.field'],
      [{ type: 'text', label: 'H', name: 'h', options: { hiddenInAPI: 'yes' } }, 'options.hiddenInAPI'],
      [{ type: 'relation', label: 'R', name: 'r', options: { relation: { collection: 999999, type: 1 } } }, 'options.relation.collection'],
      [{ type: 'relation', label: 'R', name: 'r' }, 'options.relation'],
      [{ type: 'text', label: 'V', name: 'v', validations: { required: { status: 'yes' } } }, 'validations.required.status'],
      [{ type: 'text', label: 'V', name: 'v', validations: { bogus: {} } }, 'validations.bogus'],
    ];
    for (const [body, key] of cases) {
      const res = await api('POST', '/api/collections/articles/fields', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(key);
    }
    expect((await api('POST', '/api/collections/nope/fields', { type: 'text', label: 'X', name: 'x' })).status).toBe(404);
  });

  it('allows the same name at different levels', async () => {
    const links = await byName('links');
    const res = await api('POST', '/api/collections/articles/fields', { type: 'text', label: 'Title', name: 'title', parent_field_id: links.id });
    expect(res.status).toBe(201);
    await api('DELETE', `/api/collections/articles/fields/${res.body.uuid}`);
  });

  it('updates a field; a rename moves stored draft and published values, top-level and inside groups', async () => {
    await t.database.prisma.entry.create({
      data: {
        projectId: p.id, collectionId, locale: 'en',
        data: { title: 'Hello', links: [{ url: 'a', label: 'A' }, { url: 'b' }] },
        publishedData: { title: 'Hello v1', links: [{ url: 'a0' }] },
      },
    });
    const title = await byName('title');
    const res = await api('PUT', `/api/collections/articles/fields/${title.uuid}`, { type: 'text', label: 'Headline', name: 'headline' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: title.uuid, name: 'headline', label: 'Headline', order: title.order });
    // The slug field follows its source.
    expect((await byName('slug')).options.slug.field).toBe('headline');

    const url = await byName('url');
    expect((await api('PUT', `/api/collections/articles/fields/${url.uuid}`, { type: 'text', label: 'Link', name: 'href' })).status).toBe(200);

    const entry = await t.database.prisma.entry.findFirstOrThrow({ where: { collectionId } });
    expect(entry.data).toEqual({ headline: 'Hello', links: [{ href: 'a', label: 'A' }, { href: 'b' }] });
    expect(entry.publishedData).toEqual({ headline: 'Hello v1', links: [{ href: 'a0' }] });
  });

  it('refuses shape changes once entries exist, and 404s unknown fields', async () => {
    const headline = await byName('headline');
    const typeChange = await api('PUT', `/api/collections/articles/fields/${headline.uuid}`, { type: 'number', label: 'H', name: 'headline' });
    expect(typeChange.status).toBe(422);
    expect(typeChange.body.errors.type[0]).toMatch(/no entries/);
    const repeat = await api('PUT', `/api/collections/articles/fields/${headline.uuid}`, { type: 'text', label: 'H', name: 'headline', options: { repeatable: true } });
    expect(repeat.status).toBe(422);
    expect(repeat.body.errors.options).toBeDefined();
    // Same shape, other options: fine.
    const hidden = await api('PUT', `/api/collections/articles/fields/${headline.uuid}`, { type: 'text', label: 'H', name: 'headline', options: { hideInContentList: true } });
    expect(hidden.status).toBe(200);
    expect(hidden.body.options).toEqual({ hideInContentList: true });

    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await api('PUT', `/api/collections/articles/fields/${id}`, { type: 'text', label: 'X', name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Field not found.' });
      expect((await api('DELETE', `/api/collections/articles/fields/${id}`)).status).toBe(404);
    }
  });

  it('allows shape changes while the collection is empty', async () => {
    await api('POST', '/api/collections', { name: 'Empty', slug: 'empty', fields: [{ type: 'text', label: 'A', name: 'a' }] });
    const a = (await api('GET', '/api/collections/empty')).body.fields[0];
    const res = await api('PUT', `/api/collections/empty/fields/${a.uuid}`, { type: 'number', label: 'A', name: 'a', options: { repeatable: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'number', options: { repeatable: true } });
  });

  it('soft-deletes a field (204); a group takes its children; a reused name starts empty', async () => {
    const links = await byName('links');
    const res = await api('DELETE', `/api/collections/articles/fields/${links.uuid}`);
    expect(res.status).toBe(204);
    const names = (await fieldsOf()).map((f) => f.name);
    expect(names).not.toContain('links');
    expect(names).not.toContain('href');
    const rows = await t.database.prisma.field.findMany({ where: { collectionId, name: { in: ['links', 'href', 'label'] } } });
    expect(rows.length).toBe(3);
    expect(rows.every((r) => r.deletedAt !== null)).toBe(true);

    // Values stay until the name is reused; a new field of that name starts empty.
    let entry = await t.database.prisma.entry.findFirstOrThrow({ where: { collectionId } });
    expect((entry.data as Record<string, unknown>).links).toBeDefined();
    const again = await api('POST', '/api/collections/articles/fields', { type: 'json', label: 'Links', name: 'links' });
    expect(again.status).toBe(201);
    entry = await t.database.prisma.entry.findFirstOrThrow({ where: { collectionId } });
    expect(entry.data).toEqual({ headline: 'Hello' });
    expect(entry.publishedData).toEqual({ headline: 'Hello v1' });
  });

  it('reorders fields, skipping unknown uuids', async () => {
    const fields = await fieldsOf();
    const top = fields.filter((f) => f.parent_field_id === null);
    const res = await api('POST', '/api/collections/articles/fields/reorder', {
      fields: [...top.reverse().map((f, i) => ({ uuid: f.uuid, order: i })), { uuid: '00000000-0000-4000-8000-000000000000', order: 0 }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Fields reordered successfully.' });
    expect((await fieldsOf()).map((f) => f.name)).toEqual(top.map((f) => f.name));
    expect((await api('POST', '/api/collections/articles/fields/reorder', { fields: 'x' })).status).toBe(422);
  });

  it('serialises concurrent schema changes: two creates of one name give one 201 and one 422', async () => {
    const before = (await t.database.prisma.project.findUniqueOrThrow({ where: { id: p.id } })).schemaRevision;
    const body = { type: 'text', label: 'Race', name: 'race' };
    const results = await Promise.all([0, 1, 2, 3].map(() => api('POST', '/api/collections/articles/fields', body)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    expect(await t.database.prisma.field.count({ where: { collectionId, name: 'race', deletedAt: null } })).toBe(1);
    // Only the successful change bumped the revision.
    expect((await t.database.prisma.project.findUniqueOrThrow({ where: { id: p.id } })).schemaRevision).toBe(before + 1);

    const slugs = await Promise.all([0, 1, 2].map(() => api('POST', '/api/collections', { name: 'Same', slug: 'same' })));
    expect(slugs.map((r) => r.status).sort()).toEqual([201, 422, 422]);
  });
});
