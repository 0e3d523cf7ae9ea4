import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { hashToken } from '../../src/auth/tokens.ts';
import { openPostgres, type Database } from '../../src/db/client.ts';
import { createPrivateDatabase } from '../db/private-db.ts';

const run = promisify(execFile);

async function cli(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { LOG_LEVEL: 'silent', ...env }, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err, json: code === 0 && argv.includes('--json') ? JSON.parse(out) : undefined };
}

describe('cms CLI', () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Database;
  beforeAll(async () => {
    ({ url, drop } = await createPrivateDatabase('cms_cli'));
    db = openPostgres(url, 2);
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  it('project create with --json prints one JSON object with the defaults', async () => {
    const r = await cli(['project', 'create', '--name', 'Acme', '--json'], { DATABASE_URL: url });
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.json).toEqual({ uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme', plan: 'basic', default_locale: 'en', locales: ['en'] });
    const row = await db.prisma.project.findUniqueOrThrow({ where: { uuid: r.json.uuid } });
    expect(row.name).toBe('Acme');
  });

  it('project create takes plan, locales and the default locale', async () => {
    const r = await cli(['project', 'create', '--name', 'Intl', '--plan', 'pro', '--locales', 'en,FR,de', '--default-locale', 'fr', '--json'], { DATABASE_URL: url });
    expect(r.json).toMatchObject({ name: 'Intl', plan: 'pro', default_locale: 'fr', locales: ['en', 'fr', 'de'] });
  });

  it('token create limits a token to collections and fields and gives it an expiry', async () => {
    const p = (await cli(['project', 'create', '--name', 'Scoped', '--json'], { DATABASE_URL: url })).json;
    const project = await db.prisma.project.findUniqueOrThrow({ where: { uuid: p.uuid } });
    await db.prisma.collection.create({ data: { projectId: project.id, slug: 'posts', name: 'Posts', fields: { create: [{ name: 'title', label: 'Title', type: 'text', order: 0 }, { name: 'notes', label: 'Notes', type: 'text', order: 1 }] } } });
    const before = Date.now();
    const r = await cli(['token', 'create', '--project', p.uuid, '--abilities', 'read', '--collections', 'posts', '--fields', 'posts:title', '--expires', '30d', '--json'], { DATABASE_URL: url });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ collections: ['posts'], fields: { posts: ['title'] } });
    expect(new Date(r.json.expires_at).getTime()).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1000);
    const bad = await cli(['token', 'create', '--project', p.uuid, '--abilities', 'read', '--fields', 'posts:ghost', '--json'], { DATABASE_URL: url });
    expect(bad.code).not.toBe(0);
  });

  it('token create issues a working token with the given abilities', async () => {
    const p = (await cli(['project', 'create', '--name', 'T', '--json'], { DATABASE_URL: url })).json;
    const r = await cli(['token', 'create', '--project', p.uuid, '--abilities', 'read,admin', '--name', 'ci', '--json'], { DATABASE_URL: url });
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['abilities', 'collections', 'delivery', 'expires_at', 'fields', 'id', 'name', 'prefix', 'token']);
    expect(r.json).toMatchObject({ collections: null, fields: null, expires_at: null, delivery: false });
    expect(r.json).toMatchObject({ name: 'ci', abilities: ['read', 'admin'], prefix: r.json.token.slice(0, 12) });
    const row = await db.prisma.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(r.json.token) } });
    expect(row).toMatchObject({ id: r.json.id, name: 'ci', abilities: ['read', 'admin'] });
    const star = await cli(['token', 'create', '--project', p.uuid, '--abilities', '*', '--json'], { DATABASE_URL: url });
    expect(star.json.abilities).toEqual(['*']);
    // Without --json a person reads the secret and how to send it.
    const human = await cli(['token', 'create', '--project', p.uuid, '--abilities', 'read'], { DATABASE_URL: url });
    expect(human.out).toMatch(/only time the secret is shown/);
    expect(human.out).toMatch(new RegExp(`project-id: ${p.uuid}\n  Authorization: Bearer cms_\\S{43}\\n$`));
  });

  it('bad arguments exit 2 with a message on stderr and nothing on stdout', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /Usage: cms/],
      [['project'], /Usage: cms project/],
      [['nope'], /unknown command 'nope'/],
      [['project', 'create'], /required option '--name <name>' not specified/],
      [['project', 'create', '--name', 'X', '--plan', 'gold'], /'gold' is invalid\. Allowed choices are basic, grow, pro/],
      [['project', 'create', '--name', 'X', '--nme', 'y'], /unknown option '--nme'/],
      [['project', 'create', '--name', 'X', '--locales', 'english!'], /locale/],
      [['project', 'create', '--name', 'X', '--locales', ','], /--locales needs at least one locale/],
      [['project', 'list', 'extra'], /too many arguments/],
      [['token', 'create', '--abilities', 'read'], /required option '--project <uuid>' not specified/],
      [['token', 'create', '--project', 'abc', '--abilities', 'read'], /Expected a project UUID/],
      [['token', 'list', '--project', '00000000-0000-4000-8000-000000000000'], /Project not found/],
      [['token', 'revoke', '--project', '00000000-0000-4000-8000-000000000000'], /missing required argument 'token'/],
      [['token', 'create', '--project', '00000000-0000-4000-8000-000000000000', '--abilities', 'read'], /Project not found/],
      [['token', 'create', '--project', '00000000-0000-4000-8000-000000000000', '--abilities', 'read,fly'], /Unknown ability "fly"/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv, { DATABASE_URL: url });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.out, argv.join(' ')).toBe('');
      expect(r.err, argv.join(' ')).toMatch(message);
    }
  });

  it('a bad environment is a clear exit 2; an unreachable database exit 1', async () => {
    const bad = await cli(['migrate'], { DATABASE_URL: 'not a url' });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/DATABASE_URL/);
    const down = await cli(['migrate'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nope' });
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/^cms: /);
  });

  it('migrate reports what it applied (nothing on a migrated database)', async () => {
    const r = await cli(['migrate', '--json'], { DATABASE_URL: url });
    expect(r).toMatchObject({ code: 0, json: { applied: [] } });
    expect((await cli(['migrate'], { DATABASE_URL: url })).out).toBe('Nothing to apply: the database is up to date.\n');
  });

  it('runs as `npx cms` through bin/cms.js: with --json stdout is exactly one JSON line, logs stay on stderr', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const { stdout } = await run('npx', ['--no-install', 'cms', 'project', 'create', '--name', 'Bin', '--locales', 'en,fr', '--json'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info' },
    });
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'Bin', locales: ['en', 'fr'] });

    const bad = await run('node', ['bin/cms.js', 'project', 'create'], { cwd: root, env: { ...process.env, DATABASE_URL: url } }).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/required option '--name <name>' not specified/);
  }, 120_000);
});
