import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { allRoutes } from '../../src/rest/index.ts';
import { buildOpenApi, openApiPath } from '../../src/rest/openapi.ts';

describe('OpenAPI document and reference page (PGlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
  });
  afterAll(() => t.close());

  it('serves /api/openapi.json without a project or a token', async () => {
    const res = await t.request({ method: 'GET', url: '/api/openapi.json' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.securitySchemes).toMatchObject({
      projectId: { type: 'apiKey', in: 'header', name: 'project-id' },
      bearer: { type: 'http', scheme: 'bearer' },
    });
  });

  it('describes every route of the route table, with its ability, parameters and error responses', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/openapi.json' })).body;
    for (const route of allRoutes) {
      const { path, params } = openApiPath(route.url);
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.url}`).toBeDefined();
      expect(op.summary).toBe(route.summary);
      expect(op['x-ability']).toBe(route.ability);
      expect(op.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name)).toEqual(params);
      if (route.auth === false) {
        expect(op.security).toEqual([]);
      } else {
        for (const code of ['400', '401', '403', '422', '429']) expect(op.responses[code]).toEqual({ $ref: `#/components/responses/Error${code}` });
      }
      // Read-your-writes across replicas: token writes answer Read-After, token reads accept it.
      if (route.auth === undefined || route.auth === true) {
        const success = op.responses[String(route.successStatus)];
        if (route.method === 'GET') expect(op.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Read-After'), `${route.method} ${route.url}`).toBe(true);
        else expect(success.headers?.['Read-After'], `${route.method} ${route.url}`).toBeDefined();
      }
    }
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops as Record<string, { operationId: string }>).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('turns zod request bodies into JSON Schema', () => {
    const doc = buildOpenApi(allRoutes) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>> };
    const locales = doc.paths['/api/project/locales'].post.requestBody!.content['application/json'].schema;
    expect(locales).toMatchObject({ type: 'object', properties: { locale: { type: 'string' } }, required: ['locale'] });
    const create = doc.paths['/api/{collection}'].post.requestBody!.content['application/json'].schema;
    expect(create).toMatchObject({ type: 'object', properties: { data: {}, locale: {}, state: {} } });
  });

  it('opens GraphiQL at /graphql with the auth headers documented and an example query', async () => {
    const res = await t.request({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('project-id');
    expect(res.text).toContain('Bearer <token>');
    expect(res.text).toContain('query Project');
  });

  it('serves a reference page that loads the document', async () => {
    const res = await t.request({ method: 'GET', url: '/api/docs' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('"documentUrl":"/api/openapi.json"');
    // No token can be on a page a cache might keep.
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
