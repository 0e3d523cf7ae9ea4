import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { countQueries } from '../../helpers/sql-count.ts';
import { contentProject } from '../helpers.ts';

/**
 * A publish is one writing statement after the entry's read (src/entries/operations/publish-without-lock.ts),
 * written only on top of the row it was computed from. These pin what the row lock guaranteed.
 */
describe('publish without a transaction', () => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  const publish = (uuid: string) => c.req('POST', `/api/notes/${uuid}/publish`);
  beforeAll(async () => {
    t = await startTestApp();
    c = await contentProject(t);
    await c.collection('notes', [{ name: 'title', type: 'text' }, { name: 'pin', type: 'password' }]);
  });
  afterAll(() => t.close());

  const create = async () => {
    const r = await c.create('notes', { data: { title: 'start', pin: 'secret-pin' } });
    expect(r.status).toBe(201);
    return r.body.uuid as string;
  };

  it('concurrent publishes of one entry: gapless numbers, one event each, pointer on the last', async () => {
    const uuid = await create();
    const results = await Promise.all(Array.from({ length: 10 }, () => publish(uuid)));
    for (const r of results) expect(r.status, r.text).toBe(200);
    expect(results.map((r) => r.body.version_number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } });
    const versions = await t.database.prisma.entryVersion.findMany({ where: { entryId: row.id }, orderBy: { versionNumber: 'asc' } });
    expect(versions.map((v) => v.versionNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(row).toMatchObject({ state: 'published', lastVersionNumber: 10, publishedVersionNumber: 10, publishedVersionId: versions[9].id, isDraftDirty: false });
    expect(row.publishedData).toEqual({ title: 'start' });
    for (const v of versions) expect(v.snapshot).toEqual({ fields: { title: 'start' }, meta: { locale: 'en', translation_group_id: null } });
    const events = await t.database.prisma.outboxEvent.findMany({ where: { entryUuid: uuid, event: 'content.published' } });
    expect(events).toHaveLength(10);
  });

  it('is the read and one write; the answer is what a published read then shows', async () => {
    const uuid = await create();
    const { result, queries } = await countQueries(() => publish(uuid));
    expect(result.status).toBe(200);
    expect(queries).toBe(3);
    expect(result.body).toMatchObject({ message: 'Content published as v1.', version_number: 1 });
    const read = await c.get('notes', uuid);
    expect(read.status).toBe(200);
    expect(result.body.entry).toEqual(read.body);
    const [event] = await t.database.prisma.outboxEvent.findMany({ where: { entryUuid: uuid, event: 'content.published' } });
    expect((event.payload as { content_entry: unknown }).content_entry).toEqual(read.body);
    expect(read.body.fields).not.toHaveProperty('pin');
  });

  it('a trashed or unknown entry is 404 and writes nothing', async () => {
    const uuid = await create();
    expect((await c.del('notes', uuid)).status).toBe(200);
    expect((await publish(uuid)).status).toBe(404);
    expect((await publish('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } });
    expect(await t.database.prisma.entryVersion.count({ where: { entryId: row.id } })).toBe(0);
  });
});
