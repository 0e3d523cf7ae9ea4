import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { cms } from './subprocess.ts';

async function cli(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { LOG_LEVEL: 'silent', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env }, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err, json: code === 0 && argv.includes('--json') ? JSON.parse(out) : undefined };
}

/**
 * `cms schema snapshot | diff | apply` between two servers' databases (development → production):
 * the snapshot written by the real `cms` process to a file, the diff readable and as JSON, the apply
 * idempotent and refusing deletions without --allow-destructive.
 */
describe('cms schema', () => {
  let dev: TestApp;
  let prod: TestApp;
  let devProject: TestProject;
  let prodProject: TestProject;
  let dir: string;
  beforeAll(async () => {
    const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    [dev, prod] = await Promise.all([startTestApp({ env }), startTestApp({ env })]);
    devProject = await dev.project({ name: 'Dev' });
    prodProject = await prod.project({ name: 'Prod' });
    dir = await mkdtemp(join(tmpdir(), 'cms-schema-'));
    const r = await dev.request({
      method: 'POST',
      url: '/api/collections',
      headers: devProject.headers,
      body: { name: 'Pages', slug: 'pages', fields: [{ type: 'text', label: 'Title', name: 'title' }, { type: 'richtext', label: 'Body', name: 'body' }] },
    });
    expect(r.status, r.text).toBe(201);
  });
  afterAll(async () => {
    await dev?.close();
    await prod?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('snapshot > file, diff, apply, apply again', async () => {
    const snap = await cms(['schema', 'snapshot', '--project', devProject.uuid], { DATABASE_URL: dev.databaseUrl! });
    expect(snap.code, snap.stderr).toBe(0);
    const file = join(dir, 'schema.json');
    await writeFile(file, snap.stdout);
    expect(JSON.parse(snap.stdout).collections[0]).toMatchObject({ slug: 'pages', fields: [{ name: 'title' }, { name: 'body' }] });

    const prodEnv = { DATABASE_URL: prod.databaseUrl! };
    const diff = await cli(['schema', 'diff', '--project', prodProject.uuid, file], prodEnv);
    expect(diff.code, diff.err).toBe(0);
    expect(diff.out).toBe(
      ['+ collection pages: name "Pages"', '+ field pages.title: type "text"', '+ field pages.body: type "richtext"', '', '3 changes, 0 destructive.', ''].join('\n'),
    );
    const diffJson = await cli(['schema', 'diff', '--project', prodProject.uuid, file, '--json'], prodEnv);
    expect(diffJson.json.changes).toHaveLength(3);

    const apply = await cli(['schema', 'apply', '--project', prodProject.uuid, file, '--json'], prodEnv);
    expect(apply.code, apply.err).toBe(0);
    expect(apply.json).toMatchObject({ destructive: 0, schema_revision: expect.any(Number) });
    // The server sees the applied model at once (no restart, no cache to clear).
    const created = await prod.request({ method: 'POST', url: '/api/pages', headers: prodProject.headers, body: { data: { title: 'Home' } } });
    expect(created.status, created.text).toBe(201);

    const again = await cli(['schema', 'apply', '--project', prodProject.uuid, file], prodEnv);
    expect(again.out).toBe('No changes: the project already matches the document.\n');
    const same = await cli(['schema', 'snapshot', '--project', prodProject.uuid, '--json'], prodEnv);
    expect(same.json).toEqual(JSON.parse(snap.stdout));
  });

  it('refuses a destructive apply without --allow-destructive (exit 2, nothing written)', async () => {
    const prodEnv = { DATABASE_URL: prod.databaseUrl! };
    const doc = (await cli(['schema', 'snapshot', '--project', prodProject.uuid, '--json'], prodEnv)).json;
    doc.collections[0].fields = doc.collections[0].fields.filter((f: { name: string }) => f.name !== 'body');
    const file = join(dir, 'smaller.json');
    await writeFile(file, JSON.stringify(doc));
    const diff = await cli(['schema', 'diff', '--project', prodProject.uuid, file], prodEnv);
    expect(diff.out).toContain('- field pages.body  [destructive]');
    expect(diff.out).toContain('1 change, 1 destructive (apply needs --allow-destructive).');

    const refused = await cli(['schema', 'apply', '--project', prodProject.uuid, file], prodEnv);
    expect(refused.code).toBe(2);
    expect(refused.out).toBe('');
    expect(refused.err).toMatch(/allow_destructive=true \(cms: --allow-destructive\)/);
    expect(refused.err).toContain('field.pages.body: Applying would delete the field "pages.body".');
    const still = await cli(['schema', 'diff', '--project', prodProject.uuid, file, '--json'], prodEnv);
    expect(still.json.destructive).toBe(1);

    const ok = await cli(['schema', 'apply', '--project', prodProject.uuid, file, '--allow-destructive'], prodEnv);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/Applied \(schema revision \d+\)\./);
    expect((await cli(['schema', 'diff', '--project', prodProject.uuid, file, '--json'], prodEnv)).json).toEqual({ changes: [], destructive: 0 });
  });

  it('reports bad input with exit 2', async () => {
    const prodEnv = { DATABASE_URL: prod.databaseUrl! };
    const notJson = join(dir, 'bad.json');
    await writeFile(notJson, '{ nope');
    const cases: Array<[string[], RegExp]> = [
      [['schema', 'diff', '--project', prodProject.uuid, notJson], /bad\.json is not JSON/],
      [['schema', 'diff', '--project', prodProject.uuid, join(dir, 'missing.json')], /Cannot read .*missing\.json/],
      [['schema', 'diff', '--project', '00000000-0000-4000-8000-000000000000', notJson], /Project not found/],
      [['schema', 'apply', '--project', prodProject.uuid], /missing required argument 'file'/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv, prodEnv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
    }
  });
});
