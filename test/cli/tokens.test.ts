import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cmsInProcess as cms } from './subprocess.ts';

/**
 * The operator's way back in after losing the first-start banner, and out again for a leaked token:
 * every step is a `cms` command (run in process) against the database a running server uses, checked over HTTP.
 */
describe('cms project list, token list and token revoke', () => {
  let t: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    env = { DATABASE_URL: t.databaseUrl!, MIGRATE_ON_START: 'false' };
  });
  afterAll(() => t.close());

  const json = async (args: string[]) => {
    const r = await cms([...args, '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };
  const getApi = (projectUuid: string, token: string) =>
    t.request({ method: 'GET', url: '/api', headers: { 'project-id': projectUuid, authorization: `Bearer ${token}` } });

  it('a lost banner: project list finds the project, token create makes a working token', async () => {
    const existing = await t.project({ name: 'Forgotten', locales: ['en', 'de'] });
    const projects = await json(['project', 'list']);
    expect(projects).toContainEqual({
      uuid: existing.uuid,
      name: 'Forgotten',
      plan: 'basic',
      default_locale: 'en',
      locales: ['en', 'de'],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const human = await cms(['project', 'list'], env);
    expect(human.stdout).toMatch(/^UUID\s+NAME\s+PLAN\s+LOCALES\s+CREATED\n/);
    expect(human.stdout).toMatch(new RegExp(`${existing.uuid}  Forgotten\\s+basic  en \\(default\\), de  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`));

    const issued = await json(['token', 'create', '--project', existing.uuid, '--abilities', '*', '--name', 'recovered']);
    expect((await getApi(existing.uuid, issued.token)).status).toBe(200);
  }, 120_000);

  it('token list shows name, prefix, abilities, last used, created and revoked, never the secret or its hash', async () => {
    const p = await t.project({ name: 'Listed' });
    const issued = await json(['token', 'create', '--project', p.uuid, '--abilities', 'read,update', '--name', 'frontend']);
    const tokens = await json(['token', 'list', '--project', p.uuid]);
    expect(tokens).toHaveLength(2); // the test helper's `*` token and ours
    expect(tokens[1]).toEqual({
      id: issued.id,
      name: 'frontend',
      prefix: issued.token.slice(0, 12),
      abilities: ['read', 'update'],
      collections: null,
      fields: null,
      delivery: false,
      expires_at: null,
      last_used_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      revoked_at: null,
    });
    // --delivery: read only, and no --abilities needed.
    const site = await json(['token', 'create', '--project', p.uuid, '--delivery', '--name', 'site']);
    expect(site).toMatchObject({ abilities: ['read'], delivery: true });
    const human = await cms(['token', 'list', '--project', p.uuid], env);
    expect(human.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+ABILITIES\s+LAST USED\s+CREATED\s+REVOKED\n/);
    expect(human.stdout).toMatch(new RegExp(`${issued.id}\\s+frontend\\s+${issued.prefix}\\s+read,update\\s+never\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\s+-\\n`));
    const hash = (await t.database.prisma.apiToken.findUniqueOrThrow({ where: { id: issued.id } })).tokenHash;
    for (const out of [JSON.stringify(tokens), human.stdout]) {
      expect(out).not.toContain(issued.token);
      expect(out).not.toContain(hash);
    }
    const empty = await t.project({ name: 'Other' });
    await t.database.prisma.apiToken.deleteMany({ where: { projectId: empty.id } });
    expect((await cms(['token', 'list', '--project', empty.uuid], env)).stdout).toMatch(/^No tokens in this project\./);
  }, 120_000);

  it('token list shows when a token was last used: written in the background, at most once a minute per replica', async () => {
    const p = await t.project({ name: 'Used' });
    const issued = await json(['token', 'create', '--project', p.uuid, '--abilities', 'read', '--name', 'site']);
    const before = Date.now();
    expect((await getApi(p.uuid, issued.token)).status).toBe(200);
    await t.services.tokenUsage!.flush();
    const listed = (await json(['token', 'list', '--project', p.uuid])).find((x: { id: number }) => x.id === issued.id);
    const first = Date.parse(listed.last_used_at);
    expect(first).toBeGreaterThanOrEqual(before - 1000);
    expect(first).toBeLessThanOrEqual(Date.now());
    expect((await cms(['token', 'list', '--project', p.uuid], env)).stdout).toMatch(new RegExp(`${issued.id}\\s+site\\s+\\S+\\s+read\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`));

    // Within the minute, further uses write nothing; the project's other tokens are untouched.
    expect((await getApi(p.uuid, issued.token)).status).toBe(200);
    await t.services.tokenUsage!.flush();
    const all = await json(['token', 'list', '--project', p.uuid]);
    expect(Date.parse(all.find((x: { id: number }) => x.id === issued.id).last_used_at)).toBe(first);
    expect(all.find((x: { id: number }) => x.id !== issued.id).last_used_at).toBeNull();
  }, 120_000);

  it('token revoke by prefix, id or secret: the token is refused at once; revoking again keeps the first time', async () => {
    const p = await t.project({ name: 'Revoking' });
    const a = await json(['token', 'create', '--project', p.uuid, '--abilities', 'read']);
    const b = await json(['token', 'create', '--project', p.uuid, '--abilities', 'read']);
    const c = await json(['token', 'create', '--project', p.uuid, '--abilities', 'read']);
    for (const tok of [a, b, c]) expect((await getApi(p.uuid, tok.token)).status).toBe(200);

    const byPrefix = await cms(['token', 'revoke', '--project', p.uuid, a.prefix], env);
    expect(byPrefix.code).toBe(0);
    expect(byPrefix.stdout).toMatch(new RegExp(`^Token ${a.id} \\(${a.prefix}…, "CLI token"\\) is revoked since `));
    const first = await json(['token', 'revoke', '--project', p.uuid, String(b.id)]);
    expect(first).toMatchObject({ id: b.id, revoked_at: expect.any(String) });
    await json(['token', 'revoke', '--project', p.uuid, c.token]);

    expect((await getApi(p.uuid, a.token)).status).toBe(401);
    expect((await getApi(p.uuid, b.token)).status).toBe(401);
    expect((await getApi(p.uuid, c.token)).status).toBe(401);
    expect((await getApi(p.uuid, p.token)).status).toBe(200); // the others stay

    const again = await json(['token', 'revoke', '--project', p.uuid, String(b.id)]);
    expect(again.revoked_at).toBe(first.revoked_at);
    const listed = await json(['token', 'list', '--project', p.uuid]);
    expect(listed.filter((x: { revoked_at: string | null }) => x.revoked_at !== null).map((x: { id: number }) => x.id)).toEqual([a.id, b.id, c.id]);
  }, 120_000);

  it('a token of another project, or an unknown one, is not revoked: exit 2 with the reason', async () => {
    const mine = await t.project({ name: 'Mine' });
    const theirs = await t.project({ name: 'Theirs' });
    const tok = await json(['token', 'create', '--project', theirs.uuid, '--abilities', 'read']);
    for (const ref of [String(tok.id), tok.prefix, tok.token, 'cms_nothere', '999999999999999999999']) {
      const r = await cms(['token', 'revoke', '--project', mine.uuid, ref], env);
      expect(r.code, ref).toBe(2);
      expect(r.stdout, ref).toBe('');
      expect(r.stderr, ref).toMatch(/Token not found/);
    }
    expect((await getApi(theirs.uuid, tok.token)).status).toBe(200);
  }, 120_000);
});
