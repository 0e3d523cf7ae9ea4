import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The browser pages load everything from this server: GraphiQL at /graphql and the REST reference at
 * /api/docs name only /static/ files, which come with their type and a year-long immutable cache.
 */
describe('static files of the browser pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
  }, 120_000);
  afterAll(() => t.close());

  const referenced = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);

  const TYPES: Record<string, RegExp> = {
    js: /^application\/javascript; charset=utf-8$/,
    css: /^text\/css; charset=utf-8$/,
    ico: /^image\/(x-icon|vnd\.microsoft\.icon)$/,
  };

  async function expectServedStatic(url: string) {
    expect(url).toMatch(/^\/static\/[a-z-]+\.[0-9a-f]{16}\.(js|css|ico)$/);
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode, url).toBe(200);
    expect(res.headers['content-type']).toMatch(TYPES[url.split('.').pop()!]);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.rawPayload.length).toBeGreaterThan(100);
    return res;
  }

  it('GraphiQL names no other host and every file it loads is served here', async () => {
    const page = await t.request({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/https?:\/\//);
    const config = JSON.parse(/id="graphiql-config">(.*?)<\/script>/s.exec(page.text)![1]) as { workers: Record<string, string> };
    const urls = [...referenced(page.text), ...Object.values(config.workers)];
    expect(urls).toHaveLength(4 + 3); // favicon, CSS, boot script, editor; three Monaco workers
    for (const url of urls) await expectServedStatic(url);
  });

  it('the REST reference names no other host and its renderer is served here', async () => {
    const page = await t.request({ method: 'GET', url: '/api/docs' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(/https?:\/\//);
    const urls = referenced(page.text);
    expect(urls).toHaveLength(2); // boot script, renderer
    const [boot, renderer] = await Promise.all(urls.map(expectServedStatic));
    expect(boot.body).toContain('createApiReference');
    expect(renderer.body).toContain('@scalar/api-reference');
    // The renderer must not fetch its fonts from fonts.scalar.com, nor offer to upload the document.
    expect(page.text).toContain('"withDefaultFonts":false');
    expect(page.text).toContain('"showDeveloperTools":"never"');
  });

  it('answers HEAD like GET, without the body', async () => {
    const page = await t.request({ method: 'GET', url: '/api/docs' });
    const [url] = referenced(page.text);
    const res = await t.app.inject({ method: 'HEAD', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('');
  });

  it.each(['/static/graphiql-editor.0000000000000000.js', '/static/scalar-api-reference.js', '/static/nothing.css', '/static/..%2Fpackage.json'])(
    'an unknown name %s is a 404 with a JSON message',
    async (url) => {
      const res = await t.request({ method: 'GET', url });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body.message).toMatch(/No static file named/);
    },
  );
});
