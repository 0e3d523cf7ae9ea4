import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../../helpers/app.ts';
import { createAsset, createEntry, entryRow, patchEntry, setupCollections } from './helpers.ts';

describe('revert, labels and diff', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project({ name: 'Revert' });
    await setupCollections(t, p);
  });
  afterAll(() => t.close());

  const url = (uuid: string, rest = '') => `/api/posts/${uuid}${rest}`;
  const publish = async (uuid: string) => {
    const res = await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
    expect(res.status).toBe(200);
    return res.body.version_number as number;
  };

  it('restores the draft from the snapshot and publishes it as a new version', async () => {
    const uuid = await createEntry(t, p, 'posts', { title: 'One', views: 1 });
    await publish(uuid);
    await patchEntry(t, p, 'posts', uuid, { title: 'Two', views: 2 });
    await publish(uuid);
    await patchEntry(t, p, 'posts', uuid, { title: 'Three (unpublished draft)' });

    const res = await t.request({ method: 'POST', url: url(uuid, '/versions/1/revert'), headers: p.headers });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Reverted to v1 and published as v3.');
    expect(res.body.version).toMatchObject({ version_number: 3, is_current_published: true, created_by: { id: expect.any(Number) } });
    expect(res.body.version).not.toHaveProperty('snapshot');
    expect(res.body.entry).toMatchObject({ uuid, fields: { title: 'One', views: 1 } });
    expect(res.body.skipped).toEqual([]);

    const row = await entryRow(t, uuid);
    expect(row).toMatchObject({ state: 'published', publishedVersionNumber: 3, isDraftDirty: false, data: { title: 'One', views: 1 }, publishedData: { title: 'One', views: 1 } });
    const list = await t.request({ method: 'GET', url: url(uuid, '/versions'), headers: p.headers });
    expect(list.body.data.map((v: { version_number: number }) => v.version_number)).toEqual([3, 2, 1]);
    const events = await t.database.prisma.outboxEvent.count({ where: { entryUuid: uuid, event: 'content.published' } });
    expect(events).toBe(3);
  });

  it('revert republishes an unpublished entry', async () => {
    const uuid = await createEntry(t, p, 'posts', { title: 'Back' });
    await publish(uuid);
    await t.request({ method: 'POST', url: url(uuid, '/unpublish'), headers: p.headers });
    const res = await t.request({ method: 'POST', url: url(uuid, '/versions/1/revert'), headers: p.headers });
    expect(res.body.message).toBe('Reverted to v1 and published as v2.');
    expect(await entryRow(t, uuid)).toMatchObject({ state: 'published', publishedVersionNumber: 2 });
  });

  it('skips relation and media targets that are gone, keeping the snapshot untouched', async () => {
    const keep = await createEntry(t, p, 'authors', { name: 'Keep' });
    const gone = await createEntry(t, p, 'authors', { name: 'Gone' });
    const trashed = await createEntry(t, p, 'authors', { name: 'Trashed' });
    const liveAsset = await createAsset(t, p.id, 'live.png');
    const deadAsset = await createAsset(t, p.id, 'dead.png');
    const snapshotFields = {
      title: 'Refs',
      author: gone,
      related: [keep, trashed, gone],
      cover: deadAsset,
      blocks: [{ caption: 'a', who: keep }, { caption: 'b', who: trashed }],
    };
    const uuid = await createEntry(t, p, 'posts', snapshotFields);
    await publish(uuid);
    await patchEntry(t, p, 'posts', uuid, { title: 'Changed', cover: liveAsset });

    await t.database.prisma.entry.delete({ where: { uuid: gone } });
    await t.database.prisma.entry.update({ where: { uuid: trashed }, data: { deletedAt: new Date() } });
    await t.database.prisma.asset.update({ where: { uuid: deadAsset }, data: { deletedAt: new Date() } });

    const res = await t.request({ method: 'POST', url: url(uuid, '/versions/1/revert'), headers: p.headers });
    expect(res.status).toBe(200);
    expect(res.body.skipped).toEqual(
      expect.arrayContaining([
        { field: 'author', uuid: gone },
        { field: 'related', uuid: trashed },
        { field: 'related', uuid: gone },
        { field: 'cover', uuid: deadAsset },
        { field: 'blocks.1.who', uuid: trashed },
      ]),
    );
    expect(res.body.skipped).toHaveLength(5);
    const row = await entryRow(t, uuid);
    expect(row.data).toEqual({ title: 'Refs', related: [keep], blocks: [{ caption: 'a', who: keep }, { caption: 'b' }] });

    const v1 = await t.request({ method: 'GET', url: url(uuid, '/versions/1'), headers: p.headers });
    expect(v1.body.snapshot.fields).toEqual(snapshotFields);
    const v2 = await t.request({ method: 'GET', url: url(uuid, '/versions/2'), headers: p.headers });
    expect(v2.body.snapshot.fields).toEqual(row.data);
  });

  it('a relation target moved out of the target collection counts as gone', async () => {
    const other = await createEntry(t, p, 'posts', { title: 'Not an author' });
    const uuid = await createEntry(t, p, 'posts', { title: 'Wrong target' });
    // Stored directly: the entries API would reject this reference, an old snapshot may still hold one.
    await t.database.prisma.entry.update({ where: { uuid }, data: { data: { title: 'Wrong target', author: other } } });
    await publish(uuid);
    const res = await t.request({ method: 'POST', url: url(uuid, '/versions/1/revert'), headers: p.headers });
    expect(res.body.skipped).toEqual([{ field: 'author', uuid: other }]);
  });

  it('keeps the current password hash when restoring (snapshots hold none)', async () => {
    const uuid = await createEntry(t, p, 'posts', { title: 'pw', secret: 'first-password' });
    await publish(uuid);
    await patchEntry(t, p, 'posts', uuid, { secret: 'second-password' });
    const hashBefore = ((await entryRow(t, uuid)).data as Record<string, unknown>).secret;
    expect(hashBefore).toBeTruthy();
    await t.request({ method: 'POST', url: url(uuid, '/versions/1/revert'), headers: p.headers });
    expect(((await entryRow(t, uuid)).data as Record<string, unknown>).secret).toBe(hashBefore);
  });

  it('labels and describes a version; null clears; the snapshot cannot be changed', async () => {
    const uuid = await createEntry(t, p, 'posts', { title: 'Label me' });
    await publish(uuid);
    const res = await t.request({ method: 'PATCH', url: url(uuid, '/versions/1'), headers: p.headers, body: { label: 'Launch', description: 'First cut' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version_number: 1, label: 'Launch', description: 'First cut', is_current_published: true });
    expect(res.body).not.toHaveProperty('snapshot');

    const partial = await t.request({ method: 'PATCH', url: url(uuid, '/versions/1'), headers: p.headers, body: { label: null } });
    expect(partial.body).toMatchObject({ label: null, description: 'First cut' });

    const bad = await t.request({ method: 'PATCH', url: url(uuid, '/versions/1'), headers: p.headers, body: { snapshot: { fields: {} }, label: 'x' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['snapshot']);
    expect(bad.body.message).toMatch(/snapshot/);
    const detail = await t.request({ method: 'GET', url: url(uuid, '/versions/1'), headers: p.headers });
    expect(detail.body).toMatchObject({ label: null, snapshot: { fields: { title: 'Label me' } } });
  });

  it('enforces label ≤ 255 and description ≤ 2000 characters (counting characters, not bytes)', async () => {
    const uuid = await createEntry(t, p, 'posts', { title: 'Limits' });
    await publish(uuid);
    const patch = (body: unknown) => t.request({ method: 'PATCH', url: url(uuid, '/versions/1'), headers: p.headers, body });
    expect((await patch({ label: '😀'.repeat(255), description: 'é'.repeat(2000) })).status).toBe(200);
    const tooLong = await patch({ label: 'x'.repeat(256), description: 'y'.repeat(2001) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual({
      label: ['The label field must not be greater than 255 characters.'],
      description: ['The description field must not be greater than 2000 characters.'],
    });
    for (const body of [{ label: 5 }, { label: ['a'] }, { description: { a: 1 } }, { label: 'nul\u0000byte' }]) {
      const res = await patch(body);
      expect(res.status).toBe(422);
    }
    for (const payload of ['[1,2]', '"text"']) {
      const res = await t.request({ method: 'PATCH', url: url(uuid, '/versions/1'), headers: { ...p.headers, 'content-type': 'application/json' }, payload });
      expect(res.status).toBe(422);
    }
    expect((await patch({ label: '' })).body.label).toBeNull();
  });

  it('diffs two versions field by field, over REST', async () => {
    const author = await createEntry(t, p, 'authors', { name: 'Ann' });
    const uuid = await createEntry(t, p, 'posts', { title: 'A', views: 1, blocks: [{ caption: 'x' }] });
    await publish(uuid);
    await patchEntry(t, p, 'posts', uuid, { title: 'B', views: null, related: [author], blocks: [{ caption: 'x' }] });
    await publish(uuid);
    const res = await t.request({ method: 'GET', url: url(uuid, '/versions/1/diff?to=2'), headers: p.headers });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      from: 1,
      to: 2,
      added: [{ field: 'related', value: [author] }],
      removed: [{ field: 'views', value: 1 }],
      changed: [{ field: 'title', from: 'A', to: 'B' }],
    });
    const same = await t.request({ method: 'GET', url: url(uuid, '/versions/2/diff?to=2'), headers: p.headers });
    expect(same.body).toMatchObject({ added: [], removed: [], changed: [] });
    expect((await t.request({ method: 'GET', url: url(uuid, '/versions/1/diff'), headers: p.headers })).status).toBe(422);
    const badTo = await t.request({ method: 'GET', url: url(uuid, '/versions/1/diff?to=abc'), headers: p.headers });
    expect(badTo.status).toBe(422);
    expect(Object.keys(badTo.body.errors)).toEqual(['to']);
    const missing = await t.request({ method: 'GET', url: url(uuid, '/versions/1/diff?to=9'), headers: p.headers });
    expect([missing.status, missing.body.message]).toEqual([404, 'Version not found.']);
  });
});
