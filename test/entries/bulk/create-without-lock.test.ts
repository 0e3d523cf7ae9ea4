import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { countQueries } from '../../helpers/sql-count.ts';
import { createCollection } from '../../helpers/fixtures.ts';
import { bulkProject, type BulkProject } from './helpers.ts';

/**
 * Bulk create of a collection without unique fields or singleton rule is one writing statement
 * (src/entries/operations/create-without-lock.ts): ids drawn first, then entries, versions and events together.
 * What the response, the rows and the events say must agree as the transaction made them agree.
 */
describe('bulk create without a transaction', () => {
  let t: TestApp;
  let b: BulkProject;
  let authors: string[];
  let slug: string;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
    authors = (await b.create('authors', { items: [0, 1].map((i) => ({ state: 'published', data: { name: `A${i}` } })) })).body.data.map((e: { uuid: string }) => e.uuid);
    const notes = await createCollection(t.database.prisma, b.p.id, {
      slug: 'notes',
      fields: [
        { name: 'title', type: 'text', validations: { required: { status: true } } },
        { name: 'pin', type: 'password' },
        { name: 'author', type: 'relation', options: { relation: { collection: b.ids.authors, type: 1 } } },
      ],
    });
    slug = notes.slug;
  });
  afterAll(() => t.close());

  const items = (n: number, state?: string) =>
    Array.from({ length: n }, (_, i) => ({ ...(state && i % 2 === 0 ? { state } : {}), data: { title: `N${i}`, pin: `pin-${i}`, author: authors[i % 2] } }));

  it('rows, versions, response and events agree; order is the request order', async () => {
    const res = await b.req('POST', `/api/bulk/${slug}/entries?timestamps=1`, { items: items(5, 'published') });
    expect(res.status, res.text).toBe(201);
    const data: Array<Record<string, any>> = res.body.data;
    expect(data.map((d) => d.fields.title)).toEqual(['N0', 'N1', 'N2', 'N3', 'N4']);
    expect(data[0].fields.author).toMatchObject({ uuid: authors[0], fields: { name: 'A0' } });
    expect(data[0].fields).not.toHaveProperty('pin');
    for (const [i, d] of data.entries()) {
      const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid: d.uuid } });
      const published = i % 2 === 0;
      expect(row.id).toBe(d.id);
      expect(row.createdAt.toISOString()).toBe(d.created_at);
      expect(row.updatedAt.toISOString()).toBe(d.updated_at);
      expect(d).toMatchObject({
        state: published ? 'published' : 'draft',
        published_version_id: row.publishedVersionId,
        published_version_number: published ? 1 : null,
        is_draft_dirty: !published,
        published_at: row.publishedAt?.toISOString() ?? null,
      });
      expect(row.lastVersionNumber).toBe(published ? 1 : 0);
      const versions = await t.database.prisma.entryVersion.findMany({ where: { entryId: row.id } });
      expect(versions.map((v) => v.id)).toEqual(published ? [row.publishedVersionId] : []);
      if (published) {
        expect(row.publishedData).toEqual({ title: `N${i}`, author: authors[i % 2] });
        expect(row.publishedUpdatedAt?.toISOString()).toBe(d.updated_at);
        expect(versions[0].snapshot).toEqual({ fields: { title: `N${i}`, author: authors[i % 2] }, meta: { locale: 'en', translation_group_id: null } });
      }
      const events = await b.events([d.uuid]);
      expect(events.map((e) => e.event)).toEqual(published ? ['content.created', 'content.published'] : ['content.created']);
      for (const e of events) expect((e.payload as { content_entry: unknown }).content_entry).toEqual(d);
    }
    // Events follow the request order across entries too.
    const all = await b.events(data.map((d) => d.uuid));
    expect([...new Set(all.map((e) => e.entryUuid))]).toEqual(data.map((d) => d.uuid));
  });

  it('costs the same statements for 1 item as for 50, none of them a transaction', async () => {
    await b.create(slug, { items: items(1) });
    const one = await countQueries(() => b.create(slug, { items: items(1, 'published') }));
    const fifty = await countQueries(() => b.create(slug, { items: items(50, 'published') }));
    expect(one.result.status).toBe(201);
    expect(fifty.result.status).toBe(201);
    expect(fifty.result.body.data).toHaveLength(50);
    // Authentication, the references' check, the ids, the hydrated authors, the write.
    expect(one.queries).toBe(5);
    expect(fifty.queries).toBe(5);
  });

  it('a 422 writes nothing', async () => {
    const before = await b.counts();
    const bad = await b.create(slug, { items: [...items(3, 'published'), { data: { title: '' } }, { data: { title: 'x', author: '00000000-0000-4000-8000-000000000000' } }] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['items.3.data.title', 'items.4.data.author']);
    expect(await b.counts()).toEqual(before);
  });
});
