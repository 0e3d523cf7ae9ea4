import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

const COLLECTION = 'id uuid name slug isSingleton order fields { id uuid type name label options validations order parentFieldId }';

describe('collections admin over GraphQL', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project({ name: 'GQL' });
  });
  afterAll(() => t.close());

  it('creates, reads, updates, reorders and deletes collections and fields through the same operations', async () => {
    const created = await t.graphql(
      `mutation($input: CreateCollectionInput!) { createCollection(input: $input) { ${COLLECTION} } }`,
      {
        input: {
          name: 'Posts',
          slug: 'posts',
          fields: [
            { type: 'text', label: 'Title', name: 'title', validations: { required: { status: true } } },
            { type: 'group', label: 'Meta', name: 'meta', options: { repeatable: false }, children: [{ type: 'text', label: 'Kw', name: 'kw' }] },
          ],
        },
      },
      p.headers,
    );
    expect(created.body.errors).toBeUndefined();
    const c = created.body.data.createCollection;
    expect(c).toMatchObject({ name: 'Posts', slug: 'posts', isSingleton: false });
    expect(c.fields.map((f: { name: string }) => f.name)).toEqual(['title', 'meta', 'kw']);
    expect(c.fields[2].parentFieldId).toBe(c.fields[1].id);

    const field = await t.graphql(
      `mutation($input: FieldInput!) { createField(collection: "posts", input: $input) { uuid name options } }`,
      { input: { type: 'relation', label: 'Self', name: 'self', options: { relation: { collection: 'Posts', type: 1 } } } },
      p.headers,
    );
    expect(field.body.data.createField.options.relation).toEqual({ collection: c.id, type: 1 });

    const updated = await t.graphql(
      `mutation($uuid: String!, $input: FieldInput!) { updateField(collection: "posts", uuid: $uuid, input: $input) { name label } }`,
      { uuid: field.body.data.createField.uuid, input: { type: 'relation', label: 'Parent', name: 'parent', options: { relation: { collection: c.id, type: 1 } } } },
      p.headers,
    );
    expect(updated.body.data.updateField).toEqual({ name: 'parent', label: 'Parent' });

    const reader = await p.tokenWith('read');
    const list = await t.graphql('{ collections { slug fields { name } } project { collections { slug } } }', {}, reader);
    expect(list.body.data.collections).toEqual([{ slug: 'posts', fields: [{ name: 'title' }, { name: 'meta' }, { name: 'kw' }, { name: 'parent' }] }]);
    expect(list.body.data.project.collections).toEqual([{ slug: 'posts' }]);

    const reordered = await t.graphql(
      `mutation($items: [OrderItemInput!]!) { reorderFields(collection: "posts", items: $items) { fields { name } } }`,
      { items: [{ uuid: c.fields[0].uuid, order: 10 }] },
      p.headers,
    );
    expect(reordered.body.data.reorderFields.fields.map((f: { name: string }) => f.name)).toEqual(['meta', 'kw', 'parent', 'title']);

    const renamed = await t.graphql('mutation { updateCollection(slug: "posts", input: { name: "Articles", slug: "articles" }) { slug } }', {}, p.headers);
    expect(renamed.body.data.updateCollection.slug).toBe('articles');

    const mismatch = await t.graphql('mutation { deleteCollection(slug: "articles", confirmSlug: "posts") }', {}, p.headers);
    expect(mismatch.body.errors[0].message).toBe('The collection slug does not match.');
    expect(mismatch.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const deleted = await t.graphql('mutation { deleteCollection(slug: "articles", confirmSlug: "articles") }', {}, p.headers);
    expect(deleted.body.data.deleteCollection).toBe(true);

    const gone = await t.graphql('{ collection(slug: "articles") { slug } }', {}, p.headers);
    expect(gone.body.errors[0]).toMatchObject({ message: 'Collection not found.', extensions: { code: 'NOT_FOUND' } });
  });

  it('reports validation errors with the field map and needs admin for writes', async () => {
    const bad = await t.graphql('mutation { createCollection(input: { name: "", slug: "files" }) { slug } }', {}, p.headers);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(bad.body.errors[0].extensions.errors).sort()).toEqual(['name', 'slug']);

    const reader = await p.tokenWith('read');
    const denied = await t.graphql('mutation { createCollection(input: { name: "X", slug: "x" }) { slug } }', {}, reader);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const writer = await p.tokenWith('create');
    const noRead = await t.graphql('{ collections { slug } }', {}, writer);
    expect(noRead.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
