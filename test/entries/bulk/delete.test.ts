import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { BULK_URL, bulkProject, postItems, type BulkProject } from './helpers.ts';

describe('bulk delete', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
  });
  afterAll(() => t.close());

  const makePosts = async (n: number, state?: string): Promise<string[]> => {
    const res = await b.create('posts', { items: postItems(n, () => (state ? { state } : {})) });
    expect(res.status).toBe(201);
    return res.body.data.map((e: { uuid: string }) => e.uuid);
  };

  it('soft delete trashes live entries; count skips unknown, repeated and already-trashed UUIDs', async () => {
    const [a, c, d] = await makePosts(3, 'published');
    const ghost = '00000000-0000-4000-8000-000000000000';
    const res = await b.remove('posts', { uuids: [a, ghost, c, a.toUpperCase(), 'garbage'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Bulk content deleted successfully.', count: 2, force: false });
    expect((await b.req('GET', `/api/posts/${a}`)).status).toBe(404);
    expect((await b.req('GET', `/api/posts/${d}`)).status).toBe(200);
    const row = await b.row(a);
    expect(row.deletedAt).not.toBeNull();
    expect(row.publishedVersionId).not.toBeNull(); // versions and publish state stay, as in the single delete
    expect(await t.database.prisma.entryVersion.count({ where: { entryId: row.id } })).toBe(1);

    const again = await b.remove('posts', { uuids: [a, c], force: false });
    expect(again.body.count).toBe(0);
    const events = await b.events([a, c]);
    const trashed = events.filter((e) => e.event === 'content.trashed');
    expect(trashed.map((e) => e.entryUuid)).toEqual([a, c]);
    expect((trashed[0].payload as { content_entry: { uuid: string } }).content_entry.uuid).toBe(a);
  });

  it('force deletes for good, trashed entries too, with their versions; content.deleted carries ids only', async () => {
    const [a, c] = await makePosts(2, 'published');
    await b.remove('posts', { uuids: [c] });
    const ids = [(await b.row(a)).id, (await b.row(c)).id];
    const res = await b.remove('posts', { uuids: [a, c], force: true });
    expect(res.body).toEqual({ message: 'Bulk content deleted successfully.', count: 2, force: true });
    expect(await t.database.prisma.entry.count({ where: { uuid: { in: [a, c] } } })).toBe(0);
    expect(await t.database.prisma.entryVersion.count({ where: { entryId: { in: ids } } })).toBe(0);
    const deleted = (await b.events([a, c])).filter((e) => e.event === 'content.deleted');
    expect(deleted.map((e) => e.entryUuid)).toEqual([a, c]);
    expect(deleted[0].payload).not.toHaveProperty('content_entry');
  });

  it('only entries of the addressed collection are deleted', async () => {
    const author = (await b.create('authors', { items: [{ data: { name: 'x' } }] })).body.data[0].uuid;
    const res = await b.remove('posts', { uuids: [author], force: true });
    expect(res.body.count).toBe(0);
    expect((await b.row(author)).deletedAt).toBeNull();
  });

  it('force accepts booleans and 1/0; uuids and force may come in the query string', async () => {
    const [a, c] = await makePosts(2);
    expect((await b.remove('posts', { uuids: [a], force: 1 })).body).toMatchObject({ count: 1, force: true });
    const viaQuery = await b.req('DELETE', `${BULK_URL('posts')}?uuids[]=${c}&force=0`);
    expect(viaQuery.body).toMatchObject({ count: 1, force: false });
  });

  it('422 for a missing, empty, oversized or non-array uuids, non-string items and a non-boolean force', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{}, { uuids: ['The uuids field is required.'] }],
      [{ uuids: [] }, { uuids: ['The uuids field must have at least 1 items.'] }],
      [{ uuids: uuid }, { uuids: ['The uuids field must be an array.'] }],
      [{ uuids: Array(101).fill(uuid) }, { uuids: ['The uuids field must not have more than 100 items.'] }],
      [{ uuids: [uuid, 5] }, { 'uuids.1': ['The uuids.1 field must be a string.'] }],
      [{ uuids: [uuid], force: 'yes' }, { force: ['The force field must be true or false.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await b.remove('posts', body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(errors);
    }
    expect((await b.remove('posts', { uuids: Array(100).fill(uuid) })).body.count).toBe(0);
  });

  it('abilities and unknown collection', async () => {
    const [a] = await makePosts(1);
    expect((await b.remove('posts', { uuids: [a] }, await b.p.tokenWith(['create', 'update', 'read']))).status).toBe(403);
    expect((await b.remove('nope', { uuids: [a] })).status).toBe(404);
    expect((await b.remove('posts', { uuids: [a] }, await b.p.tokenWith(['delete']))).body.count).toBe(1);
  });
});
