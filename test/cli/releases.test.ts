import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { field, world, type World } from '../helpers/world.ts';
import { cmsInProcess as cms } from './subprocess.ts';

/** `cms release list|publish` (docs/releases.md) as their own processes against a running server's database. */
describe('cms release', () => {
  let w: World;
  let env: Record<string, string>;
  beforeAll(async () => {
    w = await world({ collections: [{ slug: 'posts', fields: [field.text('title')] }] });
    env = { DATABASE_URL: w.t.databaseUrl!, MIGRATE_ON_START: 'false' };
  });
  afterAll(() => w.close());

  it('lists releases and publishes one; a failing one exits 2 and changes nothing', async () => {
    const post = (await w.api('POST', '/api/posts', { data: { title: 'from the CLI' } })).body.uuid;
    const doomed = (await w.api('POST', '/api/posts', { data: { title: 'doomed' } })).body.uuid;
    const ok = (await w.api('POST', '/api/releases', { title: 'CLI launch' })).body.data;
    await w.api('POST', `/api/releases/${ok.id}/items`, { items: [{ collection: 'posts', uuid: post, action: 'publish' }] });
    const bad = (await w.api('POST', '/api/releases', { title: 'Broken' })).body.data;
    await w.api('POST', `/api/releases/${bad.id}/items`, { items: [{ collection: 'posts', uuid: doomed, action: 'publish' }] });
    await w.api('DELETE', `/api/posts/${doomed}?force=1`);

    const listed = await cms(['release', 'list', '--project', w.p.uuid, '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((r: { id: string }) => r.id)).toEqual([bad.id, ok.id]);
    const human = await cms(['release', 'list', '--project', w.p.uuid, '--status', 'open'], env);
    expect(human.stdout).toMatch(/^ID\s+STATUS\s+ITEMS\s+TITLE\s+PUBLISHED\n/);
    expect(human.stdout).toContain(`${ok.id}  open    1      CLI launch`);

    const published = await cms(['release', 'publish', '--project', w.p.uuid, ok.id], env);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toContain(`Published release ${ok.id} (CLI launch).`);
    expect((await w.api('GET', `/api/posts/${post}`)).body.fields.title).toBe('from the CLI');

    const failed = await cms(['release', 'publish', '--project', w.p.uuid, bad.id, '--json'], env);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('items.0.uuid');
    expect((await w.api('GET', `/api/releases/${bad.id}`)).body.data.status).toBe('open');
    const publishedOnly = await cms(['release', 'list', '--project', w.p.uuid, '--status', 'published', '--json'], env);
    expect(JSON.parse(publishedOnly.stdout).map((r: { id: string }) => r.id)).toEqual([ok.id]);
  }, 300_000);
});
