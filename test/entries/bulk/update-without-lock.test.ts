import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { countQueries } from '../../helpers/sql-count.ts';
import { createCollection } from '../../helpers/fixtures.ts';
import { bulkProject, type BulkProject } from './helpers.ts';

/**
 * Bulk update of a collection without unique fields or singleton rule is one writing statement
 * (src/entries/operations/update-without-lock.ts): drafts, versions, pointers and events together, only
 * on top of the rows read. What the response, the rows and the events say must agree as the
 * transaction made them agree.
 */
describe('bulk update without a transaction', () => {
  let t: TestApp;
  let b: BulkProject;
  let authors: string[];
  let slug: string;
  const db = () => t.database.prisma;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
    authors = (await b.create('authors', { items: [0, 1].map((i) => ({ state: 'published', data: { name: `A${i}` } })) })).body.data.map((e: { uuid: string }) => e.uuid);
    const notes = await createCollection(db(), b.p.id, {
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

  /** `n` notes, the even ones published. */
  const make = async (n: number): Promise<string[]> => {
    const items = Array.from({ length: n }, (_, i) => ({ ...(i % 2 === 0 ? { state: 'published' } : {}), data: { title: `N${i}`, pin: `pin-${i}`, author: authors[0] } }));
    const res = await b.req('POST', `/api/bulk/${slug}/entries`, { items });
    expect(res.status, res.text).toBe(201);
    return res.body.data.map((e: { uuid: string }) => e.uuid);
  };

  it('rows, versions, response and events agree; a publish is the next version, passwords stay out', async () => {
    const uuids = await make(4);
    const states = ['published', undefined, 'published', 'draft'];
    const mark = (await db().outboxEvent.aggregate({ _max: { id: true } }))._max.id ?? 0n;
    const res = await b.req('PATCH', `/api/bulk/${slug}/entries?timestamps=1`, {
      items: uuids.map((uuid, i) => ({ uuid, ...(states[i] ? { state: states[i] } : {}), data: { title: `M${i}`, author: authors[1] } })),
    });
    expect(res.status, res.text).toBe(200);
    const data: Array<Record<string, any>> = res.body.data;
    expect(data.map((d) => d.uuid)).toEqual(uuids);
    expect(data.map((d) => d.fields.title)).toEqual(['M0', 'M1', 'M2', 'M3']);
    expect(data[0].fields.author).toMatchObject({ uuid: authors[1], fields: { name: 'A1' } });
    for (const [i, d] of data.entries()) {
      const row = await db().entry.findUniqueOrThrow({ where: { uuid: d.uuid } });
      const publishes = states[i] === 'published';
      // Entries 0 and 2 were version 1 and publish version 2; 1 and 3 stay never-published drafts ('draft' unpublishes nothing).
      const number = 2;
      expect(row.id).toBe(d.id);
      expect(row.updatedAt.toISOString()).toBe(d.updated_at);
      expect(row.data).toMatchObject({ title: `M${i}`, pin: expect.any(String), author: authors[1] });
      expect(d).toMatchObject({
        state: row.state,
        published_version_id: row.publishedVersionId,
        published_version_number: row.publishedVersionNumber,
        is_draft_dirty: !publishes,
      });
      if (publishes) {
        expect(row).toMatchObject({ state: 'published', publishedVersionNumber: number, lastVersionNumber: number, isDraftDirty: false });
        expect(row.publishedData).toEqual({ title: `M${i}`, author: authors[1] });
        expect(row.publishedUpdatedAt?.toISOString()).toBe(d.updated_at);
        const version = await db().entryVersion.findUniqueOrThrow({ where: { id: row.publishedVersionId! } });
        expect(version).toMatchObject({ entryId: row.id, versionNumber: number, snapshot: { fields: { title: `M${i}`, author: authors[1] }, meta: { locale: 'en', translation_group_id: null } } });
      } else {
        expect(row.isDraftDirty).toBe(true);
        expect(row).toMatchObject({ state: 'draft', lastVersionNumber: 0, publishedVersionId: null });
      }
      const events = (await b.events([d.uuid])).filter((e) => e.id > mark);
      expect(events.map((e) => e.event)).toEqual(publishes ? ['content.updated', 'content.published'] : ['content.updated']);
      for (const e of events) {
        const payload = e.payload as { content_entry: Record<string, any>; committed: Record<string, any> };
        // Every event of the statement records the row as the statement left it, without the password.
        expect(payload.committed).toMatchObject({ id: row.id, published_version_id: row.publishedVersionId, is_draft_dirty: !publishes });
        expect(payload.committed.data).toEqual({ title: `M${i}`, author: authors[1] });
        if (e.event === 'content.published') {
          expect(payload.content_entry).toMatchObject({ state: 'published', published_version_number: number, is_draft_dirty: false, fields: { title: `M${i}` } });
        } else {
          // The saved draft before its publish, as the transaction's draft save rendered it.
          expect(payload.content_entry).toMatchObject({ is_draft_dirty: true, fields: { title: `M${i}` } });
        }
      }
    }
  });

  it('costs the same statements for 1 item as for 20, none of them a transaction', async () => {
    const uuids = await make(20);
    const patch = (list: string[], author: (i: number) => string) =>
      b.update(slug, { items: list.map((uuid, i) => ({ uuid, state: 'published', data: { title: `C${i}`, author: author(i) } })) });
    // The stored relations kept: their targets come with the rows.
    const one = await countQueries(() => patch(uuids.slice(0, 1), () => authors[0]));
    const twenty = await countQueries(() => patch(uuids, () => authors[0]));
    expect(one.result.status, one.result.text).toBe(200);
    expect(twenty.result.status).toBe(200);
    expect(twenty.result.body.data[19].fields.author).toMatchObject({ uuid: authors[0], fields: { name: 'A0' } });
    // Authentication, the rows with their version ids and linked entries, the references' check, the
    // write; the transaction added BEGIN, the draft UPDATE, the relation targets, the mint's lock, the
    // targets again, the outbox insert and COMMIT.
    expect(one.queries).toBe(4);
    expect(twenty.queries).toBe(4);
    // Relations moved to targets the rows did not link: one more statement, whatever the number of items.
    const moved = await countQueries(() => patch(uuids, (i) => authors[i % 2]));
    expect(moved.result.body.data[1].fields.author).toMatchObject({ uuid: authors[1], fields: { name: 'A1' } });
    expect(moved.queries).toBe(5);
    const versions = await db().entryVersion.findMany({ where: { entry: { uuid: { in: uuids } } }, select: { versionNumber: true } });
    // Version 1 of the ten even ones, then one version per item published: 10 + 1 + 20 + 20.
    expect(versions).toHaveLength(51);
  });

  it('an unpublish, or a draft naming an entry of the request, takes the transaction and keeps its rules', async () => {
    const [a, c] = await make(2);
    const res = await b.update(slug, { items: [{ uuid: a, state: 'draft', data: { title: 'U' } }] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data[0]).toMatchObject({ state: 'draft', published_version_id: null });
    expect((await b.events([a])).map((e) => e.event).slice(-2)).toEqual(['content.updated', 'content.unpublished']);
    const self = await b.update(slug, { items: [{ uuid: c, state: 'published', data: { title: c } }] });
    expect(self.status, self.text).toBe(200);
    expect(self.body.data[0]).toMatchObject({ state: 'published', published_version_number: 1 });
  });

  it('concurrent publishes of the same entries: every request succeeds, versions stay gapless', async () => {
    const uuids = await make(3);
    const rounds = 6;
    const results = await Promise.all(
      Array.from({ length: rounds }, (_, r) => b.update(slug, { items: (r % 2 ? [...uuids].reverse() : uuids).map((uuid) => ({ uuid, state: 'published', data: { title: `R${r}` } })) })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(rounds).fill(200));
    const row = await db().entry.findUniqueOrThrow({ where: { uuid: uuids[1] } });
    const versions = await db().entryVersion.findMany({ where: { entryId: row.id }, orderBy: { versionNumber: 'asc' } });
    expect(versions.map((v) => v.versionNumber)).toEqual(Array.from({ length: rounds }, (_, i) => i + 1));
    expect(row.publishedVersionId).toBe(versions[rounds - 1].id);
    expect(row.publishedData).toEqual((versions[rounds - 1].snapshot as { fields: unknown }).fields);
  });

  it('a 422 (unknown UUID, bad value) writes nothing and names every problem', async () => {
    const [a] = await make(1);
    const before = await b.counts();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const bad = await b.update(slug, { items: [{ uuid: a, state: 'published', data: { title: '' } }, { uuid: unknown, data: { title: 'x' } }] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['items.0.data.title', 'items.1.uuid']);
    expect(bad.body.message).toContain(unknown);
    expect(await b.counts()).toEqual(before);
  });
});
