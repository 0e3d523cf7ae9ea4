import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import type { Database } from '../../src/db/client.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, posts, authors, field } from '../helpers/world.ts';
import { PNG, upload } from '../assets/helpers.ts';
import { assetStorage } from '../../src/assets/storage.ts';

async function cli(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await runCli([...argv, '--json'], { LOG_LEVEL: 'silent', ...env }, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err, json: code === 0 ? JSON.parse(out) : undefined };
}

/** Every entry and version of a project, as they are stored, without what is local to one database (ids). */
async function contentOf(db: Database, projectUuid: string) {
  const project = await db.prisma.project.findUniqueOrThrow({ where: { uuid: projectUuid } });
  const entries = await db.prisma.entry.findMany({
    where: { projectId: project.id },
    orderBy: { id: 'asc' },
    include: { collection: { select: { slug: true, uuid: true } }, versions: { orderBy: { versionNumber: 'asc' } }, publishedVersion: { select: { uuid: true } } },
  });
  const groups = new Map<number, string>();
  for (const e of entries) if (e.translationGroupId !== null && !groups.has(e.translationGroupId)) groups.set(e.translationGroupId, e.uuid);
  return entries.map(({ id: _id, projectId: _p, collectionId: _c, publishedVersionId: _pv, translationGroupId, versions, ...e }) => ({
    ...e,
    translationGroup: translationGroupId === null ? null : groups.get(translationGroupId),
    versions: versions.map(({ id: _vid, entryId: _e, collectionId: _vc, createdByTokenId: _t, translationGroupId: g, ...v }) => ({ ...v, translationGroup: g === null ? null : groups.get(g) })),
  }));
}

/** A read as another database shows it: internal ids differ, and which API token made a version stays with its server. */
const portable = (body: unknown) =>
  JSON.parse(JSON.stringify(body), (k, v: unknown) => (['id', 'published_version_id', 'translation_group_id'].includes(k) ? undefined : k === 'created_by' ? null : v));

/**
 * `cms export` then `cms import` into an empty project of another database: the model, every entry
 * in every locale, every version (numbers, labels, timestamps), translation links, trash, and the
 * published pointers come back identical; a second import and a truncated file are refused whole.
 */
describe('cms export / cms import', () => {
  let a: TestApp;
  let b: TestApp;
  let source: TestProject;
  let dir: string;
  /** Each server keeps its asset files in its own directory; the CLI is pointed at the same one. */
  let envA: Record<string, string>;
  let envB: Record<string, string>;
  const assetFiles: Array<{ uuid: string; content: Buffer }> = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cms-transfer-'));
    const [dataA, dataB] = [join(dir, 'data-a'), join(dir, 'data-b')];
    const hooks = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    [a, b] = await Promise.all([startTestApp({ env: { DATA_DIR: dataA, ...hooks } }), startTestApp({ env: { DATA_DIR: dataB, ...hooks } })]);
    envA = { DATABASE_URL: a.databaseUrl!, DATA_DIR: dataA, ...hooks };
    envB = { DATABASE_URL: b.databaseUrl!, DATA_DIR: dataB, ...hooks };
    const w = await world({ app: a, project: { name: 'Source', locales: ['en', 'de'] }, via: 'api' });
    source = w.p;
    for (const [filename, contentType, content] of [['pixel.png', 'image/png', PNG], ['notes.txt', 'text/plain', Buffer.from('hello from the source')]] as const) {
      const r = await upload(a, source.headers, { filename, contentType, content });
      expect(r.status).toBe(201);
      assetFiles.push({ uuid: r.body.uuid, content: Buffer.from(content) });
    }
    const api = async (method: string, url: string, body?: unknown) => {
      const r = await a.request({ method, url, headers: source.headers, body });
      expect(r.status, `${method} ${url}: ${r.text}`).toBeLessThan(300);
      return r.body;
    };
    await w.collection(authors());
    await w.collection(posts(field.relation('author', 'authors')));
    const ada = await api('POST', '/api/authors', { data: { name: 'Ada' }, state: 'published' });
    // More entries than one export page (500) and several import batches (200); the first one leads a
    // translation group that an entry written much later joins.
    const group = await a.database.prisma.translationGroup.create({ data: { projectId: source.id } });
    await a.database.query(
      `INSERT INTO entries (uuid, project_id, collection_id, locale, translation_group_id, data, created_at, updated_at)
       SELECT gen_random_uuid(), $1, c.id, CASE WHEN n = 1 THEN 'de' ELSE 'en' END, CASE WHEN n = 1 THEN $2::int END, jsonb_build_object('title', 'Bulk ' || n),
         now() - make_interval(secs => 5000 - n), now() - make_interval(secs => 4000 - n)
       FROM collections c, generate_series(1, 1100) n WHERE c.project_id = $1 AND c.slug = 'posts'`,
      [source.id, group.id],
    );
    const bulkLeader = (await a.database.query<{ uuid: string }>('SELECT uuid::text FROM entries WHERE translation_group_id = $1', [group.id]))[0].uuid;
    for (let i = 0; i < 7; i++) {
      const post = await api('POST', '/api/posts', { data: { title: `Post ${i}`, author: ada.uuid }, state: i % 2 ? 'published' : 'draft' });
      if (i === 1) {
        await api('PATCH', `/api/posts/${post.uuid}`, { data: { title: 'Post 1, second take' } });
        await api('POST', `/api/posts/${post.uuid}/publish`);
        await api('PATCH', `/api/posts/${post.uuid}/versions/2`, { label: 'launch', description: 'The one we announced.' });
        await api('PATCH', `/api/posts/${post.uuid}`, { data: { title: 'Post 1, unpublished edit' } });
        const german = await api('POST', '/api/posts', { data: { title: 'Beitrag 1' }, locale: 'de', state: 'published' });
        await api('POST', `/api/posts/${post.uuid}/link-translation`, { translation_entry_uuid: german.uuid });
      }
      if (i === 0) await api('POST', `/api/posts/${post.uuid}/link-translation`, { translation_entry_uuid: bulkLeader });
      if (i === 4) await api('DELETE', `/api/posts/${post.uuid}`);
    }
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('round-trips a project: identical entries, versions, translations, trash and model', async () => {
    const file = join(dir, 'project.ndjson');
    const exported = await cli(['export', '--project', source.uuid, '--out', file], envA);
    expect(exported.code, exported.err).toBe(0);
    expect(exported.json).toEqual({ file, assets_file: join(dir, 'project.assets.tar'), entries: 1109, versions: 6, assets: 2, missing_asset_files: [] });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['project', 'schema', 'asset', 'asset', ...Array(1109).fill('entry'), 'end']);

    const target = await b.project({ name: 'Target' });
    const imported = await cli(['import', '--project', target.uuid, file], envB);
    expect(imported.code, imported.err).toBe(0);
    expect(imported.json).toEqual({ entries: 1109, versions: 6, assets: 2 });

    expect(await contentOf(b.database, target.uuid)).toEqual(await contentOf(a.database, source.uuid));
    const schemaOf = async (app: TestApp, p: TestProject) => (await app.request({ method: 'GET', url: '/api/project/schema', headers: p.headers })).body;
    expect(await schemaOf(b, target)).toEqual(await schemaOf(a, source));

    // What clients read is the same too: published reads (relations hydrated) and a labelled version.
    for (const url of ['/api/posts', '/api/posts?state=draft&locale=de', `/api/posts/${lines[1106].uuid}/versions`, '/api/files']) {
      const [x, y] = await Promise.all([a.request({ method: 'GET', url, headers: source.headers }), b.request({ method: 'GET', url, headers: target.headers })]);
      expect(y.status, url).toBe(200);
      expect(portable(y.body), url).toEqual(portable(x.body));
    }
    // The bytes came through the tar beside the NDJSON file.
    for (const f of assetFiles) {
      const served = await b.app.inject({ method: 'GET', url: `/files/${f.uuid}` });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(f.content)).toBe(true);
    }
  });

  it('refuses a project that is not empty, and a truncated file, writing nothing', async () => {
    const file = join(dir, 'again.ndjson');
    expect((await cli(['export', '--project', source.uuid, '--out', file], envA)).code).toBe(0);
    const full = await b.project({ name: 'Full' });
    await b.request({ method: 'POST', url: '/api/collections', headers: full.headers, body: { name: 'X', slug: 'x' } });
    const refused = await cli(['import', '--project', full.uuid, file], envB);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/The project is not empty/);

    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const truncated = join(dir, 'truncated.ndjson');
    // Cut after the model (this database already holds the entries' uuids, from the previous test).
    await writeFile(truncated, lines.slice(0, 2).join('\n') + '\n');
    const empty = await b.project({ name: 'Empty' });
    const cut = await cli(['import', '--project', empty.uuid, truncated], envB);
    expect(cut.code).toBe(2);
    expect(cut.err).toMatch(/ends before its end record/);
    expect(await contentOf(b.database, empty.uuid)).toEqual([]);
    expect((await b.request({ method: 'GET', url: '/api/collections', headers: empty.headers })).body).toEqual([]);

    // The same database it came from: uuids cannot be kept, and nothing is half-written.
    const same = await a.project({ name: 'Same database' });
    const clash = await cli(['import', '--project', same.uuid, file], envA);
    expect(clash.code).toBe(2);
    expect(clash.err).toMatch(/already exists in this database/);
    expect(await contentOf(a.database, same.uuid)).toEqual([]);
  });

  it('copies a project within one database with --new-ids: new uuids, every reference pointing at the copy', async () => {
    const w = await world({ app: a, project: { name: 'Original', locales: ['en', 'de'] }, via: 'api' });
    const api = async (method: string, url: string, body?: unknown, headers = w.p.headers) => {
      const r = await a.request({ method, url, headers, body });
      expect(r.status, `${method} ${url}: ${r.text}`).toBeLessThan(300);
      return r.body;
    };
    const photo = (await upload(a, w.p.headers, { filename: 'copy.png', contentType: 'image/png', content: PNG })).body.uuid as string;
    await w.collection(authors());
    await w.collection(posts(field.relation('author', 'authors'), { name: 'body', type: 'richtext', options: { editor: { outputFormat: 'markdown' } } }, { name: 'cover', type: 'media', options: { media: { type: 1 } } }, {
      name: 'credits', type: 'group', options: { repeatable: true }, children: [field.relation('who', 'authors', 2)],
    }));
    const ada = (await api('POST', '/api/authors', { data: { name: 'Ada' }, state: 'published' })).uuid as string;
    const elsewhere = crypto.randomUUID();
    const body = (to: string) => `By [Ada](/api/authors/${to}), see ![cover](/files/${photo}) and [another site](https://example.com/${elsewhere}).`;
    const post = (await api('POST', '/api/posts', { data: { title: 'First', author: ada, body: body(ada), cover: photo, credits: [{ who: [ada] }] }, state: 'published' })).uuid as string;
    await api('PATCH', `/api/posts/${post}`, { data: { title: 'First, edited' } });
    await api('POST', `/api/posts/${post}/publish`);
    const german = (await api('POST', '/api/posts', { data: { title: 'Erster', author: ada }, locale: 'de' })).uuid as string;
    await api('POST', `/api/posts/${post}/link-translation`, { translation_entry_uuid: german });

    const file = join(dir, 'copy.ndjson');
    expect((await cli(['export', '--project', w.p.uuid, '--out', file], envA)).code).toBe(0);
    const copy = await a.project({ name: 'Copy', locales: ['en', 'de'] });
    const refused = await cli(['import', '--project', copy.uuid, file], envA);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/already exists in this database.*--new-ids/s);
    const copied = await cli(['import', '--project', copy.uuid, file, '--new-ids'], envA);
    expect(copied.code, copied.err).toBe(0);
    expect(copied.json).toEqual({ entries: 3, versions: 3, assets: 1 });

    const original = await contentOf(a.database, w.p.uuid);
    const made = await contentOf(a.database, copy.uuid);
    const originalIds = new Set([...original.flatMap((e) => [e.uuid, ...e.versions.map((v) => v.uuid)]), photo]);
    expect(made.flatMap((e) => [e.uuid, ...e.versions.map((v) => v.uuid)]).filter((u) => originalIds.has(u))).toEqual([]);
    const [copyAsset] = (await api('GET', '/api/files', undefined, copy.headers)).data as Array<{ uuid: string }>;
    expect(copyAsset.uuid).not.toBe(photo);
    const copyAda = ((await api('GET', '/api/authors', undefined, copy.headers)) as Array<{ uuid: string }>)[0].uuid;
    expect(copyAda).not.toBe(ada);

    // The published read of the copy: its relation, media, group and rich-text links name the copy's rows.
    const [read] = (await api('GET', '/api/posts?locale=en', undefined, copy.headers)) as Array<{ uuid: string; fields: Record<string, any> }>;
    expect(read.fields.title).toBe('First, edited');
    expect(read.fields.author.uuid).toBe(copyAda);
    expect(read.fields.cover.uuid).toBe(copyAsset.uuid);
    expect(read.fields.credits[0].who.map((x: { uuid: string }) => x.uuid)).toEqual([copyAda]);
    const stored = made.find((e) => e.uuid === read.uuid)!;
    const copiedBody = `By [Ada](/api/authors/${copyAda}), see ![cover](/files/${copyAsset.uuid}) and [another site](https://example.com/${elsewhere}).`;
    expect((stored.data as Record<string, unknown>).body).toBe(copiedBody);
    expect((stored.publishedData as Record<string, unknown>).body).toBe(copiedBody);
    for (const v of stored.versions) expect((v.snapshot as { fields: Record<string, unknown> }).fields).toMatchObject({ author: copyAda, cover: copyAsset.uuid, body: copiedBody });
    // Translations stay linked, within the copy.
    const de = made.find((e) => e.locale === 'de')!;
    expect(de.translationGroup).toBe(stored.translationGroup);
    expect((de.data as Record<string, unknown>).author).toBe(copyAda);
    const served = await a.app.inject({ method: 'GET', url: `/files/${copyAsset.uuid}` });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(PNG)).toBe(true);
    // The original is untouched.
    expect(await contentOf(a.database, w.p.uuid)).toEqual(original);
  });

  it('pulls a whole project from a second running server through its REST API (--from)', async () => {
    // The source: another project on server A, which now listens on a real port.
    const remote = await a.project({ name: 'Remote', locales: ['en', 'fr'] });
    const api = async (method: string, url: string, body?: unknown) => {
      const r = await a.request({ method, url, headers: remote.headers, body });
      expect(r.status, `${method} ${url}: ${r.text}`).toBeLessThan(300);
      return r.body;
    };
    const photo = await upload(a, remote.headers, { filename: 'cover.png', contentType: 'image/png', content: PNG });
    await api('POST', '/api/collections', { name: 'People', slug: 'people', fields: [{ type: 'text', label: 'Name', name: 'name' }] });
    await api('POST', '/api/collections', {
      name: 'Stories',
      slug: 'stories',
      fields: [
        { type: 'text', label: 'Title', name: 'title' },
        { type: 'relation', label: 'By', name: 'by', options: { relation: { collection: 'people', type: 2 } } },
        { type: 'media', label: 'Cover', name: 'cover', options: { media: { type: 1 } } },
        { type: 'group', label: 'SEO', name: 'seo', options: { repeatable: false }, children: [{ type: 'text', label: 'Meta', name: 'meta' }] },
      ],
    });
    await api('POST', '/api/webhooks', { name: 'Remote hook', url: 'http://127.0.0.1:9/remote-hook', events: ['content.published'], sources: ['api'] });
    const grace = await api('POST', '/api/people', { data: { name: 'Grace' }, state: 'published' });
    const story = await api('POST', '/api/stories', { data: { title: 'One', by: [grace.uuid], cover: photo.body.uuid, seo: { meta: 'm' } }, state: 'published' });
    await api('PATCH', `/api/stories/${story.uuid}`, { data: { title: 'One, edited' } });
    await api('POST', `/api/stories/${story.uuid}/publish`);
    await api('PATCH', `/api/stories/${story.uuid}/versions/1`, { label: 'first' });
    await api('PATCH', `/api/stories/${story.uuid}`, { data: { title: 'One, draft' } });
    const french = await api('POST', '/api/stories', { data: { title: 'Une' }, locale: 'fr' });
    await api('POST', `/api/stories/${story.uuid}/link-translation`, { translation_entry_uuid: french.uuid });
    const gone = await api('POST', '/api/stories', { data: { title: 'Gone' } });
    await api('DELETE', `/api/stories/${gone.uuid}`);

    await a.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = a.app.server.address() as { port: number };
    const target = await b.project({ name: 'Pulled' });
    const pulled = await cli(['import', '--project', target.uuid, '--from', `http://127.0.0.1:${port}`, '--token', remote.token, '--from-project', remote.uuid], envB);
    expect(pulled.code, pulled.err).toBe(0);
    expect(pulled.json).toEqual({ entries: 4, versions: 3, assets: 1 });

    // What the REST layout shows travels as it was: uuids, data, versions (numbers, labels,
    // snapshots, times), translations, trash, published pointers, the model and the asset bytes.
    const pick = (rows: Awaited<ReturnType<typeof contentOf>>) =>
      rows
        .map(({ publishedUpdatedAt: _p, ...e }) => ({ ...e, versions: e.versions.map(({ updatedAt: _u, ...v }) => v) }))
        // Pulled entries are written collection by collection, locale by locale: another id order.
        .sort((x, y) => x.uuid.localeCompare(y.uuid));
    expect(pick(await contentOf(b.database, target.uuid))).toEqual(pick(await contentOf(a.database, remote.uuid)));
    const schemaOf = async (app: TestApp, p: TestProject) => (await app.request({ method: 'GET', url: '/api/project/schema', headers: p.headers })).body;
    const [from, to] = [await schemaOf(a, remote), await schemaOf(b, target)];
    expect(to).toEqual(from);
    for (const url of ['/api/stories?locale=en', '/api/stories?state=draft&locale=fr', `/api/stories/${story.uuid}/versions/1`, '/api/files']) {
      const [x, y] = await Promise.all([a.request({ method: 'GET', url, headers: remote.headers }), b.request({ method: 'GET', url, headers: target.headers })]);
      expect(portable(y.body), url).toEqual(portable(x.body));
    }
    const served = await b.app.inject({ method: 'GET', url: `/files/${photo.body.uuid}` });
    expect(served.rawPayload.equals(PNG)).toBe(true);

    const wrongToken = await cli(['import', '--project', (await b.project({ name: 'Nope' })).uuid, '--from', `http://127.0.0.1:${port}`, '--token', 'cms_nope', '--from-project', remote.uuid], envB);
    expect(wrongToken.code).toBe(2);
    expect(wrongToken.err).toMatch(/GET \/api\?with=collections,fields answered 401/);

    // A source that lost an asset's file (its /files/{uuid} answers 404): an error naming the asset,
    // and nothing is imported; --skip-missing-files takes the asset without it and says so.
    const lossy = await a.project({ name: 'Lossy' });
    const lost = await upload(a, lossy.headers, { filename: 'lost.png', contentType: 'image/png', content: PNG });
    const key = (await a.database.prisma.asset.findUniqueOrThrow({ where: { uuid: lost.body.uuid } })).storageKey;
    await assetStorage(a.services).delete(key);
    expect((await a.app.inject({ method: 'GET', url: `/files/${lost.body.uuid}` })).statusCode).toBe(404);
    const lossyFrom = ['--from', `http://127.0.0.1:${port}`, '--token', lossy.token, '--from-project', lossy.uuid];
    const strict = await b.project({ name: 'Strict' });
    const missing = await cli(['import', '--project', strict.uuid, ...lossyFrom], envB);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(lost.body.uuid);
    expect(missing.err).toMatch(/lost\.png.*cannot be fetched.*--skip-missing-files/s);
    expect(await b.database.prisma.asset.count({ where: { projectId: strict.id } })).toBe(0);
    const skipped = await cli(['import', '--project', strict.uuid, ...lossyFrom, '--skip-missing-files'], envB);
    expect(skipped.code, skipped.err).toBe(0);
    expect(skipped.json).toEqual({ entries: 0, versions: 0, assets: 1, assets_skipped: [{ uuid: lost.body.uuid, filename: 'lost.png' }] });
    const onFile = await cli(['import', '--project', (await b.project({ name: 'File' })).uuid, join(dir, 'project.ndjson'), '--skip-missing-files'], envB);
    expect(onFile.code).toBe(2);
    expect(onFile.err).toMatch(/goes with --from/);
  });
});
