import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PROJECT = '{ project { name } }';
const LOCALES = 'query Locales { project { locales defaultLocale } }';
const OTHER = '{ project { uuid } }';

async function cli(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', ...env }, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

/** Trusted documents (issue 17, "Persisted operations"): registered through REST and the CLI, enforced per project. */
describe('trusted documents', () => {
  let t: TestApp;
  let p: TestProject;
  let bystander: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project({ name: 'Trusted' });
    bystander = await t.project({ name: 'Bystander' });
  });
  afterAll(() => t.close());

  const manifest = (body: unknown, headers = p.headers) => t.request({ method: 'PUT', url: '/api/project/trusted-documents', headers, body });
  const gql = (body: Record<string, unknown>, headers = p.headers) => t.request({ method: 'POST', url: '/graphql', headers, body });
  const byHash = (text: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });

  it('registers a manifest over REST (admin only, hashes checked, documents parsed), not yet enforced', async () => {
    const editor = await p.tokenWith(['read', 'create', 'update', 'delete']);
    expect((await manifest({ documents: [PROJECT] }, editor)).status).toBe(403);
    const wrongHash = await manifest({ documents: { [sha256('something else')]: PROJECT } });
    expect(wrongHash.status).toBe(422);
    expect(Object.keys(wrongHash.body.errors)).toEqual([`documents.${sha256('something else')}`]);
    const notGraphql = await manifest({ documents: ['{ project { '] });
    expect(notGraphql.status).toBe(422);
    expect(notGraphql.body.errors['documents.0'][0]).toMatch(/Not a GraphQL document/);
    expect((await manifest({ enforced: true })).status).toBe(422); // nothing registered yet: would lock everyone out
    expect((await manifest({ documents: 'x' })).status).toBe(422);

    const put = await manifest({ documents: { [sha256(PROJECT)]: PROJECT } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ enforced: false, documents: [{ hash: sha256(PROJECT), created_at: expect.any(String) }] });
    expect((await t.request({ method: 'GET', url: '/api/project/trusted-documents', headers: p.headers })).body.documents).toHaveLength(1);
    expect((await gql({ query: OTHER })).status).toBe(200);
  });

  it('enforces a manifest put through the CLI (Apollo manifest format): only registered documents run, by hash or exact text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cms-trusted-'));
    const file = join(dir, 'persisted-query-manifest.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [PROJECT, LOCALES].map((body) => ({ id: sha256(body), body, name: 'op', type: 'query' })),
      }),
    );
    const put = await cli(['trusted-documents', 'put', '--project', p.uuid, '--file', file, '--enforce', '--json'], { DATABASE_URL: t.databaseUrl! });
    expect(put.err).toBe('');
    expect(put.code).toBe(0);
    expect(JSON.parse(put.out)).toMatchObject({ enforced: true, documents: expect.arrayContaining([expect.objectContaining({ hash: sha256(LOCALES) })]) });

    const text = await gql({ query: PROJECT });
    expect(text.status).toBe(200);
    expect(text.body).toEqual({ data: { project: { name: 'Trusted' } } });
    const hashed = await gql(byHash(LOCALES));
    expect(hashed.status).toBe(200);
    expect(hashed.body.data.project.defaultLocale).toBe('en');
    const get = await t.request({ method: 'GET', url: `/graphql?extensions=${encodeURIComponent(JSON.stringify(byHash(PROJECT).extensions))}`, headers: p.headers });
    expect(get.body).toEqual({ data: { project: { name: 'Trusted' } } });

    const arbitrary = await gql({ query: OTHER });
    expect(arbitrary.status).toBe(403);
    expect(arbitrary.body.errors[0].extensions.code).toBe('TRUSTED_DOCUMENTS_ONLY');
    const unknown = await gql(byHash(OTHER));
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    // An APQ registration of an unlisted text is refused, and registers nothing.
    const register = await gql({ query: OTHER, ...byHash(OTHER) });
    expect(register.status).toBe(403);
    expect((await gql(byHash(OTHER))).status).toBe(404);

    // Per project: another project runs anything.
    expect((await gql({ query: OTHER }, bystander.headers)).status).toBe(200);

    const shown = await cli(['trusted-documents', 'show', '--project', p.uuid], { DATABASE_URL: t.databaseUrl! });
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/only these documents run/);
  });

  it('switches enforcement off over REST, keeping the manifest', async () => {
    const off = await manifest({ enforced: false });
    expect(off.status).toBe(200);
    expect(off.body.documents).toHaveLength(2);
    expect((await gql({ query: OTHER })).status).toBe(200);
  });

  it('refuses a manifest file the CLI cannot read with exit code 2', async () => {
    const r = await cli(['trusted-documents', 'put', '--project', p.uuid, '--file', '/nonexistent.json'], { DATABASE_URL: t.databaseUrl! });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/nonexistent\.json/);
  });
});
