import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, posts, collection, field } from '../helpers/world.ts';

/**
 * The schema document over REST: snapshot a project built through the API, apply it to an empty
 * project (the same model, uuids kept), apply again (nothing changes), and the refusals: destructive
 * changes without allow_destructive, documents the field rules reject, callers without admin.
 */
const DOC = '{ posts { data { title } } }';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let t: TestApp;
/** Another server with its own database: uuids are unique per database, so they can only be kept across two. */
let other: TestApp;
let source: TestProject;
beforeAll(async () => {
  const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  [t, other] = await Promise.all([startTestApp({ env }), startTestApp({ env })]);
  const api = async (method: string, url: string, body?: unknown) => {
    const r = await t.request({ method, url, headers: source.headers, body });
    expect(r.status, `${method} ${url}: ${r.text}`).toBeLessThan(300);
    return r.body;
  };
  const w = await world({
    app: t,
    project: { name: 'Source', locales: ['en', 'fr'] },
    via: 'api',
    collections: [
      collection('authors', [field.text('name', { validations: { required: { status: true, message: 'Needed.' } } })]),
      posts(
        { name: 'slug', type: 'slug', options: { slug: { field: 'title', readonly: false } } },
        field.relation('author', 'authors'),
        { name: 'seo', type: 'group', label: 'SEO', options: { repeatable: false }, children: [field.text('meta-title')] },
      ),
    ],
  });
  source = w.p;
  await api('POST', '/api/webhooks', { name: 'Hook', url: 'http://127.0.0.1:9/hook', events: ['content.published'], sources: ['api'], secret: 'top-secret-value', collection_ids: [w.c.posts.id] });
  await api('PUT', '/api/project/trusted-documents', { documents: [DOC] });
});
afterAll(async () => {
  await t?.close();
  await other?.close();
});

const snapshot = async (p: TestProject, app = t) => {
  const r = await app.request({ method: 'GET', url: '/api/project/schema', headers: p.headers });
  expect(r.status, r.text).toBe(200);
  return r.body;
};

describe('schema snapshot, diff and apply over REST', () => {
  let applied: TestProject;
  it('snapshots collections, fields (relations by slug), locales, webhooks without secrets and trusted documents', async () => {
    const doc = await snapshot(source);
    expect(doc).toMatchObject({ format: 'content-gateway/schema', version: 1, locales: { available: ['en', 'fr'], default: 'en' } });
    expect(doc.collections.map((c: { slug: string }) => c.slug)).toEqual(['authors', 'posts']);
    const posts = doc.collections[1];
    expect(posts.fields.map((f: { name: string }) => f.name)).toEqual(['title', 'slug', 'author', 'seo']);
    expect(posts.fields[2].options.relation).toEqual({ collection: 'authors', type: 1 });
    expect(posts.fields[3].children).toMatchObject([{ name: 'meta-title', type: 'text' }]);
    expect(doc.webhooks).toEqual([
      expect.objectContaining({ name: 'Hook', url: 'http://127.0.0.1:9/hook', events: ['content.published'], collections: ['posts'] }),
    ]);
    expect(JSON.stringify(doc)).not.toContain('top-secret-value');
    expect(doc.trusted_documents).toEqual({ enforced: false, documents: { [sha(DOC)]: DOC } });
  });

  it('applies a snapshot to an empty project, keeping uuids, and a second apply changes nothing', async () => {
    const doc = await snapshot(source);
    const target = (applied = await other.project({ name: 'Target' }));
    const diff = await other.request({ method: 'POST', url: '/api/project/schema/diff', headers: target.headers, body: doc });
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.destructive).toBe(0);
    expect(diff.body.changes).toEqual(
      expect.arrayContaining([
        { action: 'create', kind: 'locale', target: 'fr', destructive: false },
        expect.objectContaining({ action: 'create', kind: 'collection', target: 'posts' }),
        expect.objectContaining({ action: 'create', kind: 'field', target: 'posts.seo.meta-title' }),
        expect.objectContaining({ action: 'create', kind: 'webhook', target: 'Hook' }),
        expect.objectContaining({ action: 'create', kind: 'trusted_document', target: sha(DOC) }),
      ]),
    );
    // A diff changes nothing.
    expect((await snapshot(target, other)).collections).toEqual([]);

    const done = await other.request({ method: 'POST', url: '/api/project/schema/apply', headers: target.headers, body: doc });
    expect(done.status, done.text).toBe(200);
    expect(done.body.changes.length).toBe(diff.body.changes.length);
    const after = await snapshot(target, other);
    expect(after).toEqual(doc);

    const again = await other.request({ method: 'POST', url: '/api/project/schema/apply', headers: target.headers, body: doc });
    expect(again.body).toMatchObject({ changes: [], destructive: 0 });
    // The applied model works: a relation to the applied authors collection validates.
    const author = await other.request({ method: 'POST', url: '/api/authors', headers: target.headers, body: { data: { name: 'Ada' } } });
    expect(author.status, author.text).toBe(201);
    const post = await other.request({ method: 'POST', url: '/api/posts', headers: target.headers, body: { data: { title: 'Hi', author: author.body.uuid } } });
    expect(post.status, post.text).toBe(201);
  });

  it('applies renames and additions matched by uuid, and refuses deletions without allow_destructive', async () => {
    // The project the previous test applied the snapshot to: it holds the source's uuids.
    const target = applied;
    const doc = await snapshot(source);
    await other.request({ method: 'POST', url: '/api/posts', headers: target.headers, body: { data: { title: 'Kept', seo: { 'meta-title': 'm' } } } });

    const next = structuredClone(doc);
    next.collections[1].name = 'Articles';
    next.collections[1].slug = 'articles';
    next.collections[1].fields[0].name = 'headline';
    next.collections[1].fields[1].options.slug.field = 'headline';
    next.collections[1].fields.push({ type: 'boolean', label: 'Featured', name: 'featured' });
    next.collections[0].fields = [];
    next.webhooks[0].collections = ['articles'];
    const diff = await other.request({ method: 'POST', url: '/api/project/schema/diff', headers: target.headers, body: next });
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.changes).toEqual(
      expect.arrayContaining([
        { action: 'update', kind: 'collection', target: 'posts', changes: { name: { from: 'Posts', to: 'Articles' }, slug: { from: 'posts', to: 'articles' } }, destructive: false },
        expect.objectContaining({ action: 'update', kind: 'field', target: 'articles.title', changes: expect.objectContaining({ name: { from: 'title', to: 'headline' } }) }),
        expect.objectContaining({ action: 'create', kind: 'field', target: 'articles.featured' }),
        { action: 'delete', kind: 'field', target: 'authors.name', destructive: true },
      ]),
    );
    expect(diff.body.destructive).toBe(1);

    const refused = await other.request({ method: 'POST', url: '/api/project/schema/apply', headers: target.headers, body: next });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/allow_destructive=true/);
    expect(refused.body.errors).toEqual({ 'field.authors.name': ['Applying would delete the field "authors.name".'] });
    // Nothing of the refused apply was written.
    expect((await snapshot(target, other)).collections[1].slug).toBe('posts');

    const ok = await other.request({ method: 'POST', url: '/api/project/schema/apply?allow_destructive=true', headers: target.headers, body: next });
    expect(ok.status, ok.text).toBe(200);
    const after = await snapshot(target, other);
    expect(after.collections[1]).toMatchObject({ uuid: doc.collections[1].uuid, slug: 'articles', name: 'Articles' });
    expect(after.collections[1].fields.map((f: { name: string }) => f.name)).toEqual(['headline', 'slug', 'author', 'seo', 'featured']);
    expect(after.collections[0].fields).toEqual([]);
    // The rename kept the stored value (the field operation's rule), under the new name.
    const list = await other.request({ method: 'GET', url: '/api/articles?state=draft', headers: target.headers });
    expect(list.body.map((e: { fields: { headline: string } }) => e.fields.headline).sort()).toEqual(['Hi', 'Kept']);
    expect((await other.request({ method: 'POST', url: '/api/project/schema/diff', headers: target.headers, body: next })).body.changes).toEqual([]);
  });

  it('reports what the field rules reject under the part of the document at fault, and writes nothing', async () => {
    const target = await t.project({ name: 'Bad' });
    const bad = {
      format: 'content-gateway/schema',
      version: 1,
      collections: [
        { name: 'Ok', slug: 'ok', fields: [{ type: 'text', label: 'A', name: 'a' }] },
        { name: 'Broken', slug: 'broken', fields: [{ type: 'enumeration', label: 'E', name: 'e', options: {} }] },
      ],
    };
    for (const url of ['/api/project/schema/diff', '/api/project/schema/apply']) {
      const r = await t.request({ method: 'POST', url, headers: target.headers, body: bad });
      expect(r.status, r.text).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(['collections.broken.fields.e.options.enumeration']);
    }
    // A rule only the operation checks (a relation to a collection that does not exist) rolls the whole apply back.
    const dangling = { ...bad, collections: [bad.collections[0], { name: 'R', slug: 'r', fields: [{ type: 'relation', label: 'R', name: 'r', options: { relation: { collection: 'nowhere', type: 1 } } }] }] };
    const r = await t.request({ method: 'POST', url: '/api/project/schema/apply', headers: target.headers, body: dangling });
    expect(r.status, r.text).toBe(422);
    expect(r.body.errors).toEqual({ 'collections.r.fields.r.options.relation.collection': ['The related collection "nowhere" does not exist.'] });
    expect((await snapshot(target)).collections).toEqual([]);
    const notADocument = await t.request({ method: 'POST', url: '/api/project/schema/apply', headers: target.headers, body: { collections: [] } });
    expect(notADocument.status).toBe(422);
    expect(notADocument.body.errors.format[0]).toMatch(/content-gateway\/schema/);
  });

  it('applies the same document on the embedded database (PGlite), webhook update and trusted documents included', async () => {
    const doc = await snapshot(source);
    const embedded = await startTestApp({ embedded: true, env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      const p = await embedded.project({ name: 'Embedded' });
      const first = await embedded.request({ method: 'POST', url: '/api/project/schema/apply', headers: p.headers, body: doc });
      expect(first.status, first.text).toBe(200);
      const changed = structuredClone(doc);
      changed.webhooks[0].events = ['content.published', 'content.unpublished'];
      changed.trusted_documents.enforced = true;
      const second = await embedded.request({ method: 'POST', url: '/api/project/schema/apply', headers: p.headers, body: changed });
      expect(second.status, second.text).toBe(200);
      expect(second.body.changes.map((c: { kind: string }) => c.kind).sort()).toEqual(['trusted_documents_enforcement', 'webhook']);
      expect(await snapshot(p, embedded)).toEqual(changed);
    } finally {
      await embedded.close();
    }
  });

  it('needs admin', async () => {
    const reader = await source.tokenWith(['read', 'create', 'update', 'delete']);
    for (const [method, url] of [['GET', '/api/project/schema'], ['POST', '/api/project/schema/diff'], ['POST', '/api/project/schema/apply']]) {
      const r = await t.request({ method, url, headers: reader, body: method === 'POST' ? {} : undefined });
      expect(r.status).toBe(403);
    }
  });
});
