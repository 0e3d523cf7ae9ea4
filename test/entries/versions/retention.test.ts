import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../../helpers/app.ts';
import { createEntry, entryRow, patchEntry, setupCollections } from './helpers.ts';

describe('retention by plan (docs/foundation.md)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const numbers = async (p: TestProject, uuid: string): Promise<number[]> => {
    const res = await t.request({ method: 'GET', url: `/api/posts/${uuid}/versions`, headers: p.headers });
    expect(res.status).toBe(200);
    return res.body.data.map((v: { version_number: number }) => v.version_number);
  };
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => to - i);
  const publishTimes = async (p: TestProject, uuid: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await t.request({ method: 'POST', url: `/api/posts/${uuid}/publish`, headers: p.headers });
      expect(res.status).toBe(200);
    }
  };

  it('basic keeps 10: the oldest are pruned on the next publish, numbers are never reused', async () => {
    const p = await t.project({ name: 'Basic', plan: 'basic' });
    await setupCollections(t, p);
    const uuid = await createEntry(t, p, 'posts', { title: 'v' });
    await publishTimes(p, uuid, 10);
    expect(await numbers(p, uuid)).toEqual(range(1, 10));
    await publishTimes(p, uuid, 1);
    expect(await numbers(p, uuid)).toEqual(range(2, 11));
    await publishTimes(p, uuid, 3);
    expect(await numbers(p, uuid)).toEqual(range(5, 14));

    // Unpublish keeps everything; the next publish continues at 15 and prunes 5.
    await t.request({ method: 'POST', url: `/api/posts/${uuid}/unpublish`, headers: p.headers });
    expect(await numbers(p, uuid)).toEqual(range(5, 14));
    await publishTimes(p, uuid, 1);
    expect(await numbers(p, uuid)).toEqual(range(6, 15));
    // A pruned version is gone for every endpoint.
    const gone = await t.request({ method: 'POST', url: `/api/posts/${uuid}/versions/3/revert`, headers: p.headers });
    expect([gone.status, gone.body.message]).toEqual([404, 'Version not found.']);
  });

  it('reverting to the oldest kept version prunes it from the list but not the new current one', async () => {
    const p = await t.project({ name: 'Basic revert', plan: 'basic' });
    await setupCollections(t, p);
    const uuid = await createEntry(t, p, 'posts', { title: 'first' });
    await publishTimes(p, uuid, 1);
    await patchEntry(t, p, 'posts', uuid, { title: 'later' });
    await publishTimes(p, uuid, 9);
    const res = await t.request({ method: 'POST', url: `/api/posts/${uuid}/versions/1/revert`, headers: p.headers });
    expect(res.body.message).toBe('Reverted to v1 and published as v11.');
    expect(await numbers(p, uuid)).toEqual(range(2, 11));
    const row = await entryRow(t, uuid);
    expect(row).toMatchObject({ publishedVersionNumber: 11, data: { title: 'first' }, publishedData: { title: 'first' } });
  });

  it('grow keeps 50, pro keeps everything', async () => {
    const grow = await t.project({ name: 'Grow', plan: 'grow' });
    await setupCollections(t, grow);
    const g = await createEntry(t, grow, 'posts', { title: 'g' });
    await publishTimes(grow, g, 52);
    expect(await numbers(grow, g)).toEqual(range(3, 52));

    const pro = await t.project({ name: 'Pro', plan: 'pro' });
    await setupCollections(t, pro);
    const q = await createEntry(t, pro, 'posts', { title: 'p' });
    await publishTimes(pro, q, 55);
    expect(await numbers(pro, q)).toEqual(range(1, 55));
  });

  it('a downgrade prunes down to the new cap on the next publish', async () => {
    const p = await t.project({ name: 'Downgrade', plan: 'pro' });
    await setupCollections(t, p);
    const uuid = await createEntry(t, p, 'posts', { title: 'd' });
    await publishTimes(p, uuid, 14);
    await t.database.prisma.project.update({ where: { id: p.id }, data: { plan: 'basic' } });
    expect(await numbers(p, uuid)).toHaveLength(14);
    await publishTimes(p, uuid, 1);
    expect(await numbers(p, uuid)).toEqual(range(6, 15));
  });
});
