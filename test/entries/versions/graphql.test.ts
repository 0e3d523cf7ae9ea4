import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../../helpers/app.ts';
import { createEntry, patchEntry, setupCollections } from './helpers.ts';

describe('versions over GraphQL', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project({ name: 'GraphQL versions' });
    await setupCollections(t, p);
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown> = {}, headers = p.headers) => t.graphql(query, variables, headers);
  const publish = `mutation($uuid: ID!) { publishEntry(collection: "posts", uuid: $uuid) { message versionNumber entry { uuid state publishedVersionNumber fields } } }`;

  it('publishEntry / unpublishEntry mirror REST', async () => {
    const uuid = await createEntry(t, p, 'posts', { title: 'G1' });
    const first = await gql(publish, { uuid });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.publishEntry).toEqual({
      message: 'Content published as v1.',
      versionNumber: 1,
      entry: expect.objectContaining({ uuid, state: 'published', publishedVersionNumber: 1, fields: expect.objectContaining({ title: 'G1' }) }),
    });
    const off = await gql(`mutation($uuid: ID!) { unpublishEntry(collection: "posts", uuid: $uuid) { message entry { state publishedVersionNumber } } }`, { uuid });
    expect(off.body.data.unpublishEntry).toEqual({ message: 'Content unpublished.', entry: { state: 'draft', publishedVersionNumber: null } });
  });

  it('Entry.versions pages newest first with cursors; Entry.version(number) has snapshot and diff', async () => {
    const uuid = await createEntry(t, p, 'posts', { title: 'A', views: 1 });
    for (let i = 0; i < 5; i++) {
      await patchEntry(t, p, 'posts', uuid, { title: `T${i + 1}`, views: i + 1 });
      await gql(publish, { uuid });
    }
    const q = `query($uuid: String!, $after: String) {
      entry(collection: "posts", uuid: $uuid, state: "draft") {
        versions(first: 2, after: $after) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { versionNumber isCurrentPublished label locale createdBy { name } }
        }
      }
    }`;
    const page1 = await gql(q, { uuid });
    expect(page1.body.errors).toBeUndefined();
    const v1 = page1.body.data.entry.versions;
    expect(v1.totalCount).toBe(5);
    expect(v1.nodes.map((n: { versionNumber: number }) => n.versionNumber)).toEqual([5, 4]);
    expect(v1.nodes[0]).toMatchObject({ isCurrentPublished: true, label: null, locale: 'en', createdBy: { name: 'test *' } });
    expect(v1.pageInfo).toEqual({ hasNextPage: true, endCursor: '4' });
    const page2 = await gql(q, { uuid, after: '4' });
    expect(page2.body.data.entry.versions.nodes.map((n: { versionNumber: number }) => n.versionNumber)).toEqual([3, 2]);
    const page3 = await gql(q, { uuid, after: '2' });
    expect(page3.body.data.entry.versions.nodes.map((n: { versionNumber: number }) => n.versionNumber)).toEqual([1]);
    expect(page3.body.data.entry.versions.pageInfo).toEqual({ hasNextPage: false, endCursor: '1' });

    const detail = await gql(`query($uuid: String!) {
      entry(collection: "posts", uuid: $uuid) {
        version(number: 2) {
          versionNumber isCurrentPublished
          snapshot { fields meta { locale translationGroupId } }
          diff(to: 5) { from to added { field value } removed { field value } changed { field from to } }
        }
        missing: version(number: 99) { versionNumber }
        latest: versions(first: 1) { nodes { snapshot { fields } } }
      }
    }`, { uuid });
    expect(detail.body.errors).toBeUndefined();
    expect(detail.body.data.entry.version).toEqual({
      versionNumber: 2,
      isCurrentPublished: false,
      snapshot: { fields: { title: 'T2', views: 2 }, meta: { locale: 'en', translationGroupId: null } },
      diff: { from: 2, to: 5, added: [], removed: [], changed: [{ field: 'title', from: 'T2', to: 'T5' }, { field: 'views', from: 2, to: 5 }] },
    });
    expect(detail.body.data.entry.missing).toBeNull();
    expect(detail.body.data.entry.latest.nodes[0].snapshot.fields).toEqual({ title: 'T5', views: 5 });

    const badDiff = await gql(`query($uuid: String!) { entry(collection: "posts", uuid: $uuid) { version(number: 2) { diff(to: 42) { from } } } }`, { uuid });
    expect(badDiff.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const badPage = await gql(`query($uuid: String!) { entry(collection: "posts", uuid: $uuid) { versions(first: 500) { totalCount } } }`, { uuid });
    expect(badPage.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('revertEntryVersion and updateEntryVersion, with the REST error codes', async () => {
    const author = await createEntry(t, p, 'authors', { name: 'Gone soon' });
    const uuid = await createEntry(t, p, 'posts', { title: 'R1', author });
    await gql(publish, { uuid });
    await patchEntry(t, p, 'posts', uuid, { title: 'R2', author: null });
    await gql(publish, { uuid });
    await t.request({ method: 'DELETE', url: `/api/authors/${author}?force=1`, headers: p.headers });

    const revert = `mutation($uuid: ID!, $v: Int!) {
      revertEntryVersion(collection: "posts", uuid: $uuid, version: $v) {
        message version { versionNumber isCurrentPublished } entry { uuid fields } skipped { field uuid }
      }
    }`;
    const res = await gql(revert, { uuid, v: 1 });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.revertEntryVersion).toMatchObject({
      message: 'Reverted to v1 and published as v3.',
      version: { versionNumber: 3, isCurrentPublished: true },
      entry: { uuid, fields: expect.objectContaining({ title: 'R1', author: null }) },
      skipped: [{ field: 'author', uuid: author }],
    });
    expect((await gql(revert, { uuid, v: 77 })).body.errors[0]).toMatchObject({ message: 'Version not found.', extensions: { code: 'NOT_FOUND' } });
    const wrongCollection = await gql(`mutation { revertEntryVersion(collection: "nope", uuid: "${uuid}", version: 1) { message } }`);
    expect(wrongCollection.body.errors[0]).toMatchObject({ message: 'Collection not found.', extensions: { code: 'NOT_FOUND' } });

    const label = `mutation($uuid: ID!, $label: String, $description: String) {
      updateEntryVersion(collection: "posts", uuid: $uuid, version: 1, label: $label, description: $description) { versionNumber label description }
    }`;
    expect((await gql(label, { uuid, label: 'First', description: 'd' })).body.data.updateEntryVersion).toEqual({ versionNumber: 1, label: 'First', description: 'd' });
    // Omitted argument: unchanged; explicit null: cleared.
    expect((await gql(`mutation($uuid: ID!) { updateEntryVersion(collection: "posts", uuid: $uuid, version: 1, label: null) { label description } }`, { uuid })).body.data.updateEntryVersion)
      .toEqual({ label: null, description: 'd' });
    const tooLong = await gql(label, { uuid, label: 'x'.repeat(256) });
    expect(tooLong.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { label: [expect.stringContaining('255')] } });

    const reader = await p.tokenWith(['read']);
    const denied = await gql(publish, { uuid }, reader);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // An update-only token cannot read versions through a mutation's payload.
    const writer = await p.tokenWith(['update']);
    const sneaky = await gql(`mutation($uuid: ID!) { publishEntry(collection: "posts", uuid: $uuid) { entry { versions { totalCount } } } }`, { uuid }, writer);
    expect(sneaky.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('loads versions for a whole page of entries in a constant number of queries', async () => {
    const uuids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const uuid = await createEntry(t, p, 'posts', { title: `batch-${i}` });
      for (let j = 0; j <= i % 3; j++) await gql(publish, { uuid });
      uuids.push(uuid);
    }
    const prisma = t.database.prisma as unknown as { $queryRaw: (...args: unknown[]) => Promise<unknown> };
    const original = prisma.$queryRaw;
    let versionQueries = 0;
    prisma.$queryRaw = function (this: unknown, ...args: unknown[]) {
      const sql = (args[0] as { strings?: string[]; sql?: string })?.strings?.join('?') ?? String((args[0] as { sql?: string })?.sql ?? args[0]);
      if (/entry_versions/.test(sql)) versionQueries++;
      return original.apply(this, args);
    } as typeof original;
    try {
      const res = await gql(`{
        entries(collection: "posts", state: "draft", perPage: 50, where: { title: { like: "batch-" } }) {
          data { uuid versions(first: 2) { totalCount nodes { versionNumber createdBy { id } isCurrentPublished } } v1: version(number: 1) { versionNumber } }
        }
      }`);
      expect(res.body.errors).toBeUndefined();
      const data = res.body.data.entries.data as Array<{ uuid: string; versions: { totalCount: number; nodes: Array<{ versionNumber: number }> }; v1: { versionNumber: number } }>;
      expect(data).toHaveLength(6);
      for (const e of data) {
        const i = uuids.indexOf(e.uuid);
        expect(e.versions.totalCount).toBe((i % 3) + 1);
        expect(e.versions.nodes[0].versionNumber).toBe((i % 3) + 1);
        expect(e.v1.versionNumber).toBe(1);
      }
      // page + count + byNumber: three statements for six entries (not eighteen).
      expect(versionQueries).toBe(3);
    } finally {
      prisma.$queryRaw = original;
    }
  });
});
