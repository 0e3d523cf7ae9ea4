import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

for (const embedded of [false, true]) {
  describe(`authentication over REST and GraphQL (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
    let t: TestApp;
    let p: TestProject;
    let other: TestProject;
    beforeAll(async () => {
      t = await startTestApp({ embedded });
      p = await t.project({ name: 'Acme' });
      other = await t.project({ name: 'Other' });
    });
    afterAll(() => t.close());

    it('400 without project-id, naming the header', async () => {
      const res = await t.request({ method: 'GET', url: '/api', headers: { authorization: `Bearer ${p.token}` } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Project header missing.' });
    });

    it('400 for an unknown or malformed project', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await t.request({ method: 'GET', url: '/api', headers: { 'project-id': id, authorization: `Bearer ${p.token}` } });
        expect(res.status).toBe(400);
        expect(res.body.message).toBe('Project not found.');
      }
    });

    it('401 without a token, with a bad token, and with a token of another project, each saying which', async () => {
      const cases: Array<[string | undefined, RegExp]> = [
        [undefined, /^Unauthenticated\. The Authorization header is missing: send `Authorization: Bearer <token>`/],
        [`Basic ${p.token}`, /^Unauthenticated\. The Authorization header must be `Bearer <token>`/],
        [p.token, /^Unauthenticated\. The Authorization header must be `Bearer <token>`/],
        ['Bearer nope', /^Unauthenticated\. The token is not a token of this project/],
        [`Bearer ${other.token}`, /^Unauthenticated\. The token is not a token of this project/],
      ];
      for (const [authorization, message] of cases) {
        const headers: Record<string, string> = { 'project-id': p.uuid };
        if (authorization) headers.authorization = authorization;
        const res = await t.request({ method: 'GET', url: '/api', headers });
        expect(res.status, authorization).toBe(401);
        expect(res.body.message, authorization).toMatch(message);
        // GraphQL says the same.
        const gql = await t.graphql('{ project { uuid } }', {}, headers);
        expect(gql.status).toBe(401);
        expect(gql.body.errors[0].message).toMatch(message);
      }
    });

    it('401 for a revoked token says it was revoked and how to get another', async () => {
      const headers = await p.tokenWith('*');
      const tokenId = (await t.services.database.prisma.apiToken.findFirstOrThrow({ where: { projectId: p.id }, orderBy: { id: 'desc' } })).id;
      await t.services.database.prisma.apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
      const res = await t.request({ method: 'GET', url: '/api', headers });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Unauthenticated. The token has been revoked: issue a new one (`cms token create`).');
    });

    it('403 when the ability is missing; * holds every ability', async () => {
      const writeOnly = await p.tokenWith(['create']);
      const denied = await t.request({ method: 'GET', url: '/api', headers: writeOnly });
      expect(denied.status).toBe(403);
      expect(denied.body.message).toMatch(/"read" or "\*"/);
      const ok = await t.request({ method: 'GET', url: '/api', headers: p.headers });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ uuid: p.uuid, name: 'Acme', default_locale: 'en', locales: ['en'] });
    });

    it('GraphQL reports the same classes in extensions.code and the HTTP status', async () => {
      const q = '{ project { uuid name } }';
      const missing = await t.graphql(q, {}, { authorization: `Bearer ${p.token}` });
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      const bad = await t.graphql(q, {}, { 'project-id': p.uuid, authorization: 'Bearer nope' });
      expect(bad.status).toBe(401);
      expect(bad.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      // A field the token may not read fails alone: `data` is present (null root), so GraphQL over
      // HTTP answers 200 and the class and status travel in the error's extensions.
      const forbidden = await t.graphql(q, {}, await p.tokenWith('delete'));
      expect(forbidden.status).toBe(200);
      expect(forbidden.body.data).toEqual({ project: null });
      expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(forbidden.body.errors[0].extensions.status).toBe(403);
      const ok = await t.graphql(q, {}, p.headers);
      expect(ok.status).toBe(200);
      expect(ok.body.data.project).toEqual({ uuid: p.uuid, name: 'Acme' });
    });

    it('malformed bodies are 4xx JSON, never 500', async () => {
      const bad = await t.request({ method: 'POST', url: '/graphql', headers: { ...p.headers, 'content-type': 'application/json' }, payload: '{"query":' });
      expect(bad.status).toBeGreaterThanOrEqual(400);
      expect(bad.status).toBeLessThan(500);
      const huge = await t.request({ method: 'POST', url: '/graphql', headers: { ...p.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ query: 'x'.repeat(2_000_000) }) });
      expect(huge.status).toBe(413);
      // /graphql answers in GraphQL's error shape, whatever stage refused the request.
      expect(huge.body.errors[0].message).toMatch(/too large/);
      expect(huge.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    });
  });
}
