import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { LOCAL_HEADERS_FILE } from '../../src/graphql/graphiql/page.ts';
import { root } from '../cli/subprocess.ts';

/**
 * `npm start` in a checkout writes the first start's GraphiQL headers to ./.data; a test app must
 * never see them (nor any other file a developer's server left there).
 */
describe('test apps keep to their own data directory', () => {
  const checkoutData = resolve(root, '.data');
  const file = resolve(checkoutData, LOCAL_HEADERS_FILE);
  let saved: string | undefined;
  let t: TestApp;
  let u: TestApp;
  const planted = { 'project-id': '00000000-0000-4000-8000-000000000001', Authorization: 'Bearer planted-by-npm-start' };

  beforeAll(async () => {
    saved = await readFile(file, 'utf8').catch(() => undefined);
    await mkdir(checkoutData, { recursive: true });
    await writeFile(file, JSON.stringify(planted));
    [t, u] = await Promise.all([startTestApp({ embedded: true }), startTestApp({ embedded: true })]);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), u?.close()]);
    if (saved === undefined) await rm(file, { force: true });
    else await writeFile(file, saved);
  });

  it("GraphiQL on an embedded test app does not offer the checkout's ./.data headers", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html', host: 'localhost:4000' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<project uuid>');
    expect(res.body).not.toContain('planted-by-npm-start');
  });

  it('each test app has a fresh temporary directory of its own', () => {
    const [a, b] = [t.services.config.DATA_DIR, u.services.config.DATA_DIR];
    expect(a).not.toBe(b);
    for (const dir of [a, b]) expect(resolve(root, dir).startsWith(checkoutData)).toBe(false);
  });
});
