import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { countQueries } from '../helpers/sql-count.ts';
import { contentProject } from './helpers.ts';

/**
 * A draft save of a collection without unique fields or singleton rule is one statement after the
 * entry's lookup (src/entries/operations/save-draft.ts): it writes only if the row is still the one it read,
 * and starts over otherwise. These pin what the row lock used to guarantee: concurrent saves of one
 * entry merge instead of losing each other's keys, every save emits its event, a failed validation
 * writes nothing.
 */
describe('draft saves without a transaction', () => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
  const events = (uuid: string) => t.database.prisma.outboxEvent.findMany({ where: { entryUuid: uuid }, orderBy: { id: 'asc' } });

  beforeAll(async () => {
    t = await startTestApp();
    c = await contentProject(t);
    await c.collection('notes', [{ name: 'title', type: 'text' }, ...keys.map((name) => ({ name, type: 'number' as const }))]);
  });
  afterAll(() => t.close());

  const create = async () => {
    const r = await c.create('notes', { data: { title: 'start' } });
    expect(r.status).toBe(201);
    return r.body.uuid as string;
  };

  it('concurrent PATCHes of one entry all land: each key kept, one content.updated each', async () => {
    const uuid = await create();
    const results = await Promise.all(keys.map((k, i) => c.patch('notes', uuid, { data: { [k]: i } })));
    for (const r of results) expect(r.status, r.text).toBe(200);
    // Each response shows its own key on top of whatever committed before it.
    results.forEach((r, i) => expect(r.body.fields[keys[i]]).toBe(i));
    const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } });
    expect(row.data).toEqual({ title: 'start', ...Object.fromEntries(keys.map((k, i) => [k, i])) });
    const updated = (await events(uuid)).filter((e) => e.event === 'content.updated');
    expect(updated).toHaveLength(keys.length);
    // The last event committed carries the complete draft.
    const last = updated.at(-1)!.payload as { content_entry: { fields: Record<string, unknown> } };
    expect(Object.keys(last.content_entry.fields).filter((k) => k.startsWith('k'))).toHaveLength(keys.length);
  });

  it('is the lookup and one write: three statements with authentication', async () => {
    const uuid = await create();
    const { result, queries } = await countQueries(() => c.patch('notes', uuid, { data: { title: 'saved' } }));
    expect(result.status).toBe(200);
    expect(result.body.fields.title).toBe('saved');
    expect(queries).toBe(3);
    const { result: put, queries: putQueries } = await countQueries(() => c.put('notes', uuid, { data: { k0: 5 } }));
    expect(put.status).toBe(200);
    expect(put.body.fields).toMatchObject({ title: null, k0: 5 });
    expect(putQueries).toBe(3);
    const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } });
    expect(row.isDraftDirty).toBe(true);
  });

  it('a 422 writes nothing and emits nothing; a trashed or unknown entry is 404', async () => {
    const uuid = await create();
    const before = (await events(uuid)).length;
    const bad = await c.patch('notes', uuid, { data: { k1: 'not a number' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['data.k1']);
    expect((await events(uuid)).length).toBe(before);
    expect((await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } })).data).toEqual({ title: 'start' });
    expect((await c.del('notes', uuid)).status).toBe(200);
    expect((await c.patch('notes', uuid, { data: { title: 'x' } })).status).toBe(404);
    expect((await c.patch('notes', '00000000-0000-4000-8000-000000000000', { data: { title: 'x' } })).status).toBe(404);
  });

  it('saving a published entry leaves its published copy and version alone', async () => {
    const uuid = await create();
    expect((await c.req('POST', `/api/notes/${uuid}/publish`)).status).toBe(200);
    expect((await c.patch('notes', uuid, { data: { title: 'draft only' } })).status).toBe(200);
    const published = await c.get('notes', uuid);
    expect(published.body.fields.title).toBe('start');
    const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid } });
    expect(row).toMatchObject({ state: 'published', publishedVersionNumber: 1, isDraftDirty: true });
    expect((row.data as Record<string, unknown>).title).toBe('draft only');
  });
});
