import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, field, type World } from '../helpers/world.ts';
import { searchIndexName } from '../../src/collections/search-indexes.ts';
import { fallbackIndexName } from '../../src/collections/fallback-indexes.ts';

/**
 * The per-collection index families (search, fallback) follow the schema after a change commits
 * (built CONCURRENTLY; test/db/seed.test.ts covers the builds inside a caller's transaction): the
 * search indexes exist while the collection has a searchable field, the fallback indexes while it exists.
 */
describe('per-collection search and fallback indexes', () => {
  let w: World;
  beforeAll(async () => {
    w = await world({ via: 'api', collections: [{ slug: 'notes', fields: [field.text('title')] }] });
  }, 120_000);
  afterAll(() => w.close());

  const names = (id: number) => [searchIndexName(id, 'd'), searchIndexName(id, 'p'), fallbackIndexName(id, 'd'), fallbackIndexName(id, 'p')];
  /** Which of `names(id)` exist, in that order. */
  const present = async (id: number): Promise<boolean[]> => {
    const rows = await w.t.database.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE tablename ~ '^entries_c[0-9]+$' AND indexname = ANY($1::text[])`, [names(id)]);
    const have = new Set(rows.map((r) => r.name));
    return names(id).map((n) => have.has(n));
  };

  it('builds both families with the collection, drops the search family with its last searchable field, and both with the collection', async () => {
    const { id, fields } = w.c.notes;
    expect(await present(id)).toEqual([true, true, true, true]);

    const title = fields.find((f) => f.name === 'title')!;
    const put = (searchable: boolean) =>
      w.api('PUT', `/api/collections/notes/fields/${title.uuid}`, { type: 'text', label: 'Title', name: 'title', options: { searchable } });
    expect((await put(false)).status).toBe(200);
    expect(await present(id)).toEqual([false, false, true, true]);
    expect((await put(true)).status).toBe(200);
    expect(await present(id)).toEqual([true, true, true, true]);

    expect((await w.api('DELETE', '/api/collections/notes', { slug: 'notes' })).status).toBe(204);
    expect(await present(id)).toEqual([false, false, false, false]);
  });
});
