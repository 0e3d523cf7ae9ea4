import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { bulkProject, type BulkProject } from './helpers.ts';
import { recordStatements } from '../../helpers/sql-count.ts';

/** The statements of `fn` (recordStatements), as `sql`. */
async function statements<T>(fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const { result, texts } = await recordStatements(fn);
  return { result, sql: texts };
}

/**
 * Every bulk request costs a constant number of SQL statements, whatever the number of items: the
 * same count for 1 item as for 50 (PostgreSQL path, through the real HTTP pipeline).
 */
describe('bulk requests cost a constant number of SQL statements', () => {
  let t: TestApp;
  let b: BulkProject;
  let authors: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
    const res = await b.create('authors', { items: Array.from({ length: 50 }, (_, i) => ({ data: { name: `A${i}` } })) });
    authors = res.body.data.map((e: { uuid: string }) => e.uuid);
  });
  afterAll(() => t.close());

  let serial = 0;
  /** Items with every field set: a unique value and a relation, so those checks run too. */
  const items = (n: number, state?: string) =>
    Array.from({ length: n }, (_, i) => ({
      ...(state ? { state } : {}),
      locale: i % 2 ? 'de' : 'en',
      data: { title: `T${serial}`, code: `code-${serial++}`, views: i, author: authors[i % authors.length] },
    }));

  const measure = async (method: string, body: unknown, slug = 'posts') => {
    const { result, sql } = await statements(() => b.req(method, `/api/bulk/${slug}/entries`, body));
    expect(result.status, result.text.slice(0, 300)).toBeLessThan(300);
    return { count: sql.length, sql, body: result.body };
  };

  it('create, draft and published', async () => {
    await measure('POST', { items: items(2, 'published') }); // warm per-process caches
    const counts: number[] = [];
    for (const state of [undefined, 'published']) {
      const one = await measure('POST', { items: items(1, state) });
      const fifty = await measure('POST', { items: items(50, state) });
      expect(fifty.count, `state=${state}\n${fifty.sql.join('\n')}`).toBe(one.count);
      expect(one.count).toBeLessThan(25);
      counts.push(fifty.count);
    }
    // Publishing on create writes each row once, published, with version 1 in the same statement.
    expect(counts[1]).toBe(counts[0]);
  });

  it('update with publish and unpublish, and plain patches', async () => {
    const made = await measure('POST', { items: items(50, 'published') });
    const uuids: string[] = made.body.data.map((e: { uuid: string }) => e.uuid);
    const patch = (list: string[], state: (i: number) => string | undefined) => ({
      items: list.map((uuid, i) => ({ uuid, ...(state(i) ? { state: state(i) } : {}), data: { views: 1000 + i, author: authors[i] } })),
    });
    await measure('PATCH', patch(uuids.slice(0, 2), () => undefined));
    const plainOne = await measure('PATCH', patch(uuids.slice(0, 1), () => undefined));
    const plainFifty = await measure('PATCH', patch(uuids, () => undefined));
    expect(plainFifty.count).toBe(plainOne.count);

    // Two items (one publishes, one unpublishes) against fifty (25 + 25).
    const mixed = (i: number) => (i % 2 ? 'draft' : 'published');
    const two = await measure('PATCH', patch(uuids.slice(0, 2), mixed));
    await measure('PATCH', patch(uuids, () => 'published')); // republish all for the next round
    const fifty = await measure('PATCH', patch(uuids, mixed));
    expect(fifty.count, fifty.sql.join('\n')).toBe(two.count);
  });

  it('delete, soft and force', async () => {
    const uuids: string[] = (await measure('POST', { items: items(50) })).body.data.map((e: { uuid: string }) => e.uuid);
    const softOne = await measure('DELETE', { uuids: uuids.slice(0, 1) });
    const softMany = await measure('DELETE', { uuids: uuids.slice(1) });
    expect(softMany.body.count).toBe(49);
    expect(softMany.count).toBe(softOne.count);
    const forceOne = await measure('DELETE', { uuids: uuids.slice(0, 1), force: true });
    const forceMany = await measure('DELETE', { uuids: uuids.slice(1), force: true });
    expect(forceMany.body.count).toBe(49);
    expect(forceMany.count).toBe(forceOne.count);
  });
});
