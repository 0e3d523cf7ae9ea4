import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { bulkProject, postItems, type BulkProject } from './helpers.ts';

/** Overlapping bulk writes queue on row locks taken in id order: no deadlock, no gap, no double winner. */
describe('concurrent bulk writes', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t, { plan: 'pro' });
  });
  afterAll(() => t.close());

  const shuffled = <T>(list: T[], seed: number): T[] => {
    const out = [...list];
    let s = seed;
    for (let i = out.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      const j = s % (i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };

  it('bulk publishes of the same entries in different orders all succeed with gapless versions', async () => {
    const made = await b.create('posts', { items: postItems(20, () => ({ state: 'published' })) });
    const uuids: string[] = made.body.data.map((e: { uuid: string }) => e.uuid);
    const rounds = 6;
    const results = await Promise.all(
      Array.from({ length: rounds }, (_, r) =>
        b.update('posts', { items: shuffled(uuids, r + 1).map((uuid) => ({ uuid, state: 'published', data: { views: r } })) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(rounds).fill(200));
    for (const uuid of uuids.slice(0, 5)) {
      const versions = await b.req('GET', `/api/posts/${uuid}/versions`);
      expect(versions.body.data.map((v: { version_number: number }) => v.version_number)).toEqual(
        Array.from({ length: rounds + 1 }, (_, i) => rounds + 1 - i),
      );
      const row = await b.row(uuid);
      expect(row.publishedVersionNumber).toBe(rounds + 1);
      expect(row.publishedData).toEqual(row.data);
    }
  });

  it('bulk update, bulk delete and single publishes racing on the same entries never fail with a 500', async () => {
    const made = await b.create('posts', { items: postItems(10) });
    const uuids: string[] = made.body.data.map((e: { uuid: string }) => e.uuid);
    const results = await Promise.all([
      b.update('posts', { items: uuids.map((uuid) => ({ uuid, state: 'published', data: { views: 1 } })) }),
      b.remove('posts', { uuids: shuffled(uuids, 7).slice(0, 5) }),
      ...uuids.slice(0, 3).map((u) => b.req('POST', `/api/posts/${u}/publish`)),
      b.update('posts', { items: shuffled(uuids, 3).map((uuid) => ({ uuid, state: 'draft', data: { views: 2 } })) }),
    ]);
    for (const r of results) expect([200, 404, 422], r.text).toContain(r.status);
    expect(results[1].status).toBe(200);
  });

  it('two bulk creates of the same singleton locale: exactly one wins', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => b.create('settings', { items: [{ locale: 'de', data: { 'site-name': `S${i}` } }] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    expect(await t.database.prisma.entry.count({ where: { collectionId: b.ids.settings, locale: 'de' } })).toBe(1);
  });
});
