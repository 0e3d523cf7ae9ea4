import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../../helpers/app.ts';
import { SECRET_V1, secretData, visibilityWorld } from '../visibility-fixture.ts';

interface GqlError {
  path?: Array<string | number>;
  extensions?: { code?: string };
}

/**
 * Issue 14 §2: every GraphQL field that returns content needs `read`, also under a mutation's
 * result. A token without it gets null and FORBIDDEN on that field alone; the rest of the result,
 * and the write, stand (REST answers `GET …/versions/1` with 403 to the same token).
 */
describe('content under a mutation result needs read', () => {
  let t: TestApp;
  let p: TestProject;
  let vault: string;
  let updater: Record<string, string>;
  let creator: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project();
    await visibilityWorld(t, p);
    const res = await t.request({ method: 'POST', url: '/api/vaults', headers: p.headers, body: { data: secretData('Vault'), state: 'published' } });
    vault = res.body.uuid;
    await t.request({ method: 'PATCH', url: `/api/vaults/${vault}`, headers: p.headers, body: { data: { title: 'Vault 2' } } });
    await t.request({ method: 'POST', url: `/api/vaults/${vault}/publish`, headers: p.headers });
    updater = await p.tokenWith(['update']);
    creator = await p.tokenWith(['create']);
  });
  afterAll(() => t?.close());

  const forbiddenPaths = (errors: GqlError[] | undefined) =>
    (errors ?? []).filter((e) => e.extensions?.code === 'FORBIDDEN').map((e) => (e.path ?? []).join('.')).sort();

  it('REST: an update-only token cannot read a version (403)', async () => {
    const res = await t.request({ method: 'GET', url: `/api/vaults/${vault}/versions/1`, headers: updater });
    expect(res.status).toBe(403);
  });

  it('updateEntryVersion with an update-only token: the label changes, snapshot and diff are null + FORBIDDEN', async () => {
    const res = await t.graphql(
      `mutation($u: ID!) { updateEntryVersion(collection: "vaults", uuid: $u, version: 1, label: "by updater") {
        versionNumber label snapshot { fields } diff(to: 2) { changed { field } } } }`,
      { u: vault },
      updater,
    );
    expect(res.body.data.updateEntryVersion).toEqual({ versionNumber: 1, label: 'by updater', snapshot: null, diff: null });
    expect(forbiddenPaths(res.body.errors)).toEqual(['updateEntryVersion.diff', 'updateEntryVersion.snapshot']);
    expect(JSON.stringify(res.body)).not.toContain('Vault');
    const stored = await t.request({ method: 'GET', url: `/api/vaults/${vault}/versions/1`, headers: p.headers });
    expect(stored.body.label).toBe('by updater');
  });

  it('revertEntryVersion with an update-only token: the revert happens, the version snapshot is null + FORBIDDEN', async () => {
    const res = await t.graphql(
      `mutation($u: ID!) { revertEntryVersion(collection: "vaults", uuid: $u, version: 1) {
        message version { versionNumber snapshot { fields } } entry { fields } } }`,
      { u: vault },
      updater,
    );
    expect(res.body.data.revertEntryVersion).toMatchObject({ message: 'Reverted to v1 and published as v3.', version: { versionNumber: 3, snapshot: null } });
    expect(res.body.data.revertEntryVersion.entry.fields.title).toBe('Vault');
    expect(forbiddenPaths(res.body.errors)).toEqual(['revertEntryVersion.version.snapshot']);
    expect(JSON.stringify(res.body)).not.toContain(SECRET_V1);
  });

  it('publishEntry with an update-only token: published, entry.versions is null + FORBIDDEN', async () => {
    const res = await t.graphql(
      `mutation($u: ID!) { publishEntry(collection: "vaults", uuid: $u) { versionNumber entry { uuid versions { totalCount } } } }`,
      { u: vault },
      updater,
    );
    expect(res.body.data.publishEntry).toEqual({ versionNumber: 4, entry: { uuid: vault, versions: null } });
    expect(forbiddenPaths(res.body.errors)).toEqual(['publishEntry.entry.versions']);
  });

  it('createEntry with a create-only token: the entry is written, versions is null + FORBIDDEN', async () => {
    const res = await t.graphql(
      `mutation { createEntry(collection: "vaults", data: { title: "By creator" }, state: "published") { uuid fields versions { nodes { snapshot { fields } } } } }`,
      {},
      creator,
    );
    expect(res.body.data.createEntry).toMatchObject({ fields: { title: 'By creator' }, versions: null });
    expect(forbiddenPaths(res.body.errors)).toEqual(['createEntry.versions']);
    const stored = await t.request({ method: 'GET', url: `/api/vaults/${res.body.data.createEntry.uuid}`, headers: p.headers });
    expect(stored.status).toBe(200);
  });

  it('typed: a create-only token sees the links of its own write, without hidden values', async () => {
    const created = await t.graphql(
      `mutation($v: ID!) { createShelf(data: { name: "Linked", vault: $v }) { name vault { title } } }`,
      { v: vault },
      creator,
    );
    // The first level is part of the write's own result (as over REST); it shows no hidden value.
    expect(created.body.errors, JSON.stringify(created.body.errors)).toBeUndefined();
    expect(created.body.data.createShelf).toEqual({ name: 'Linked', vault: { title: 'Vault' } });
  });
});
