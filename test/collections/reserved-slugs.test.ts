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

  it('are refused with the list in the message', async () => {
    for (const slug of ['docs', 'openapi', 'files']) {
      const res = await t.request({ method: 'POST', url: '/api/collections', headers: p.headers, body: { name: 'X', slug } });
      expect(res.status, slug).toBe(422);
      expect(res.body.errors.slug[0]).toContain(`Reserved: ${RESERVED_SLUGS.join(', ')}.`);
    }
  });
});
