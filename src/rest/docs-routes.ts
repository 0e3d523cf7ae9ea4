import { ref } from './openapi/components.ts';
import { defineRoutes, type RouteDef } from './route.ts';
import { buildOpenApi } from './openapi.ts';
import { rendererUrl } from './docs-assets.ts';
import { LRUCache } from 'lru-cache';
import type { Ctx } from '../context.ts';
import { listCollections } from '../collections/operations.ts';
import { buildCollectionSchema } from '../collections/model.ts';
import { projectOpenApi } from './openapi/project.ts';

/**
 * The API's own documentation, public (no project, no token): the OpenAPI document and a reference
 * page that renders it with Scalar. Everything the page loads comes from this server (the renderer
 * from /static/, see docs-assets.ts), so it works with no internet access.
 */

let cached: Record<string, unknown> | undefined;

/** Per project and schema revision: a collection or field change gives a new revision, hence a new document. */
const byRevision = new LRUCache<string, Record<string, unknown>>({ max: 200 });

async function projectDocument(ctx: Ctx, base: Record<string, unknown>): Promise<Record<string, unknown>> {
  const key = `${ctx.project.id}:${ctx.project.schemaRevision}`;
  const hit = byRevision.get(key);
  if (hit) return hit;
  const collections = (await listCollections(ctx)).map((c) => buildCollectionSchema(c, c.fields));
  const doc = projectOpenApi(base as Parameters<typeof projectOpenApi>[0], collections, ctx.project.name) as unknown as Record<string, unknown>;
  byRevision.set(key, doc);
  return doc;
}

/**
 * Scalar's settings, each keeping the page on this server (test/browser/pages.test.ts refuses and
 * reports any request that leaves the machine):
 * - `withDefaultFonts: false`: it would fetch Inter and JetBrains Mono from fonts.scalar.com;
 * - `agent.disabled`: its AI agent panel asks api.scalar.com (through proxy.scalar.com) at load;
 * - `hideClientButton`: a link that opens the document on client.scalar.com.
 * No `proxyUrl`: "Test request" calls this same origin directly, never through Scalar's proxy.
 */
const SCALAR_CONFIGURATION = { withDefaultFonts: false, agent: { disabled: true }, hideClientButton: true };

const escapeAttribute = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (renderer: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Content gateway REST API</title>
</head>
<body>
  <noscript>This page renders /api/openapi.json with Scalar: it needs JavaScript.</noscript>
  <script id="api-reference" data-url="/api/openapi.json" data-configuration="${escapeAttribute(JSON.stringify(SCALAR_CONFIGURATION))}"></script>
  <script src="${renderer}"></script>
</body>
</html>
`;

/** `routes` gives the whole table (this one included) when the document is first asked for. */
export const docsRoutes = (routes: () => RouteDef[]): RouteDef[] =>
  defineRoutes([
  {
    method: 'GET',
    url: '/api/openapi.json',
    successStatus: 200,
    response: { schema: ref('OpenApiDocument') },
    ability: null,
    auth: false,
    summary: 'The OpenAPI 3.1 document of this REST API (public)',
    tags: ['docs'],
    handler: async () => ({ status: 404 }),
    publicHandler: async (input) => {
      cached ??= buildOpenApi(routes(), { serverUrl: process.env.PUBLIC_URL });
      // With a project's headers: that project's collections as typed paths (401/400 when they fail).
      if (input.headers['project-id'] !== undefined && input.admit) {
        const body = await projectDocument(await input.admit(), cached);
        return { body, headers: { 'Cache-Control': 'private, no-cache', Vary: 'project-id, authorization' } };
      }
      return { body: cached, headers: { 'Cache-Control': 'public, max-age=300', Vary: 'project-id, authorization' } };
    },
  },
  {
    method: 'GET',
    url: '/api/docs',
    successStatus: 200,
    response: { contentType: 'text/html', schema: { type: 'string' } },
    ability: null,
    auth: false,
    summary: 'A browsable reference of this API (HTML page; everything it loads is served here)',
    tags: ['docs'],
    handler: async () => ({ status: 404 }),
    publicHandler: async ({ reply }) => {
      void reply.type('text/html; charset=utf-8');
      // Revalidated on each visit: after an upgrade it must name the new renderer file.
      return { body: page(await rendererUrl()), headers: { 'Cache-Control': 'no-cache' } };
    },
  },
  ]);
