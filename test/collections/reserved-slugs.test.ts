import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_SLUGS } from '../../src/collections/operations.ts';
import { allRoutes } from '../../src/rest/index.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

/**
 * A collection's REST routes are `/api/{slug}...` catch-alls, so a slug equal to a fixed route's first
 * segment would be shadowed by it. The reserved list, the route table and the documented list agree.
 */
describe('reserved collection slugs', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('reserve the first segment of every fixed /api route, and /graphql', () => {
    const fixed = new Set(allRoutes.map((r) => r.url.split('/')[2]?.replace(/\.json$/, '')).filter((s): s is string => !!s && !s.startsWith(':')));
    fixed.add('graphql');
    expect([...fixed].filter((s) => !(RESERVED_SLUGS as readonly string[]).includes(s))).toEqual([]);
  });

  it('are the ones docs/foundation.md lists', () => {
    const doc = readFileSync(new URL('../../docs/foundation.md', import.meta.url), 'utf8');
    const sentence = /unique per project, not one of ([^(]+)\(/.exec(doc)![1];
    const listed = [...sentence.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...RESERVED_SLUGS].sort());
  });

  it('a fixed path never gets a collection answer: an unsupported method is 405 with Allow, an unknown fixed path 404', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const cases: Array<[string, string, string]> = [
      ['PUT', `/api/schedules/${id}`, 'PATCH, DELETE, OPTIONS'],
      ['GET', `/api/schedules/${id}`, 'PATCH, DELETE, OPTIONS'],
      ['PATCH', `/api/webhooks/${id}`, 'GET, HEAD, PUT, DELETE, OPTIONS'],
      ['PUT', `/api/releases/${id}`, 'GET, HEAD, PATCH, DELETE, OPTIONS'],
      ['PATCH', `/api/preview-tokens/${id}`, 'DELETE, OPTIONS'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await t.request({ method: method as 'GET', url, headers: p.headers, body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${url}: ${res.text}`).toBe(405);
      expect(String(res.headers.allow).split(', ').sort(), `${method} ${url}`).toEqual(allow.split(', ').sort());
      expect(res.body.message).toContain(`The ${method} method is not allowed here`);
    }
    // Not even authentication is asked for a path no collection can have.
    const anonymous = await t.request({ method: 'PATCH', url: `/api/webhooks/${id}`, body: {} });
    expect(anonymous.status).toBe(405);
    for (const [method, url] of [['GET', '/api/schedules'], ['POST', `/api/releases/${id}/restore`], ['GET', `/api/webhooks/${id}/versions`]]) {
      const res = await t.request({ method: method as 'GET', url, headers: p.headers, body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${url}: ${res.text}`).toBe(404);
      expect(res.body).toEqual({ message: 'Not found.' });
    }
  });

  it('are refused with the list in the message', async () => {
    for (const slug of ['docs', 'openapi', 'files']) {
      const res = await t.request({ method: 'POST', url: '/api/collections', headers: p.headers, body: { name: 'X', slug } });
      expect(res.status, slug).toBe(422);
      expect(res.body.errors.slug[0]).toContain(`Reserved: ${RESERVED_SLUGS.join(', ')}.`);
    }
  });
});
