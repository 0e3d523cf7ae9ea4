import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from '../graphql/typed-world.ts';
import { allRoutes } from '../../src/rest/index.ts';
import { openApiPath } from '../../src/rest/openapi.ts';
import { redoclyLint, typecheckStrict } from './openapi-tools.ts';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }>; $ref?: string }>; parameters?: Array<{ name: string; schema: unknown }> }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};

describe('OpenAPI: exact success answers, lint-clean, per-project typed paths (PGlite)', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'OpenAPI');
  });
  afterAll(() => t.close());

  const generic = async () => (await t.request({ method: 'GET', url: '/api/openapi.json' })).body as Doc;
  const forProject = async (headers: Record<string, string> = w.p.headers) => t.request({ method: 'GET', url: '/api/openapi.json', headers });

  it('gives every route its exact success status and a body schema (none for 204)', async () => {
    const doc = await generic();
    for (const route of allRoutes) {
      const op = doc.paths[openApiPath(route.url).path][route.method.toLowerCase()];
      const success = Object.keys(op.responses).filter((code) => code.startsWith('2'));
      expect(success, `${route.method} ${route.url}`).toEqual([String(route.successStatus)]);
      const answer = op.responses[success[0]];
      if (route.successStatus === 204) expect(answer.content).toBeUndefined();
      else {
        const schema = Object.values(answer.content ?? {})[0]?.schema;
        expect(schema, `${route.method} ${route.url}`).toBeDefined();
        expect(schema).not.toEqual({});
      }
    }
    expect(doc.paths['/api/{collection}/{uuid}'].get.responses['200'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/Entry' });
    expect(doc.paths['/api/bulk/{collection}/entries'].post.responses['201'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/BulkWriteResult' });
    expect(doc.paths['/api/webhooks/{webhook}/logs'].get.responses['200'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookLogPage' });
    expect(doc.components.schemas.Error.properties).toHaveProperty('errors');
  });

  it('passes redocly lint with the recommended rules, generic and per project', async () => {
    const plain = await redoclyLint(await generic());
    expect(plain.errors).toEqual([]);
    const typed = await redoclyLint((await forProject()).body);
    expect(typed.errors).toEqual([]);
  });

  it("describes a project's collections with typed fields and a typed where when asked with its headers", async () => {
    const res = await forProject();
    expect(res.status).toBe(200);
    const doc = res.body as Doc;
    expect(doc.paths['/api/posts'].get.responses['200']).toBeDefined();
    const fields = doc.components.schemas.PostsFields.properties!;
    expect(Object.keys(fields)).toEqual(expect.arrayContaining(['title', 'views', 'status', 'tags', 'author', 'cover-image', 'seo', 'when']));
    expect(fields).not.toHaveProperty('secret');
    expect(fields).not.toHaveProperty('internal');
    expect(fields.views).toMatchObject({ anyOf: [{ type: 'number' }, { type: 'null' }] });
    expect(fields.status).toMatchObject({ anyOf: [{ type: 'string', enum: ['draft review', 'in-progress', 'done'] }, { type: 'null' }] });
    const where = doc.paths['/api/posts'].get.parameters!.find((p) => p.name === 'where');
    expect(where?.schema).toEqual({ $ref: '#/components/schemas/PostsWhere' });
    const whereProps = doc.components.schemas.PostsWhere.properties as Record<string, { properties: Record<string, unknown> }>;
    expect(Object.keys(whereProps.views.properties)).toEqual(expect.arrayContaining(['eq', 'gt', 'between', 'null']));
    expect(whereProps.views.properties).not.toHaveProperty('like');
    expect(whereProps).not.toHaveProperty('secret');
    // The generic document knows no project.
    expect((await generic()).paths['/api/posts']).toBeUndefined();
  });

  it('answers 401 for a project document asked with a token that fails, 400 for an unknown project', async () => {
    expect((await forProject({ 'project-id': w.p.uuid, authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await forProject({ 'project-id': '00000000-0000-4000-8000-000000000000', authorization: w.p.headers.authorization })).status).toBe(400);
  });

  it('builds a new document after a schema change (cached per schema revision)', async () => {
    const before = (await forProject()).body as Doc;
    expect(before.paths['/api/events']).toBeUndefined();
    const created = await w.rest('POST', '/api/collections', { name: 'Events', slug: 'events', fields: [{ type: 'number', label: 'Seats', name: 'seats' }] });
    expect(created.status).toBe(201);
    const after = (await forProject()).body as Doc;
    expect(after.components.schemas.EventsFields.properties).toHaveProperty('seats');
  });

  it('gives openapi-typescript real types that a strict TypeScript client compiles against', async () => {
    const doc = (await forProject()).body;
    const types = astToString(await openapiTS(doc as never));
    const client = `
import type { paths, components } from './api';
type Post = paths['/api/posts/{uuid}']['get']['responses'][200]['content']['application/json'];
declare const post: Post;
const title: string | null | undefined = post.fields.title;
const views: number | null | undefined = post.fields.views;
const state: 'draft' | 'published' = post.state;
type Hook = components['schemas']['Webhook'];
declare const hook: Hook;
const events: string[] = hook.events;
type Bulk = paths['/api/bulk/{collection}/entries']['post']['responses'][201]['content']['application/json'];
declare const bulk: Bulk;
const first: number = bulk.data[0].id;
type Where = NonNullable<paths['/api/posts']['get']['parameters']['query']>['where'];
const where: Where = { views: { gt: 10 }, or: [{ title: { like: 'x' } }] };
// @ts-expect-error views is a number, not a string
const wrong: Where = { views: { gt: 'ten' } };
export { title, views, state, events, first, where, wrong };
`;
    const r = await typecheckStrict({ 'api.ts': types, 'client.ts': client }, 'client.ts');
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
  }, 120_000);
});
