import { ref } from './openapi/components.ts';
import { defineRoutes, type RouteDef } from './route.ts';
import { buildOpenApi } from './openapi.ts';
import { docsScriptUrls } from './docs-assets.ts';
import type { LocalHeaders } from '../edge/local-headers.ts';
import { LRUCache } from 'lru-cache';
import type { Ctx } from '../context.ts';
import { listCollections } from '../collections/operations.ts';
import { buildCollectionSchema } from '../collections/model.ts';
import { projectOpenApi } from './openapi/project.ts';
import { releasesInScope } from '../releases/operations/access.ts';

/**
 * The API's own documentation, public (no project, no token): the OpenAPI document and a reference
 * page that renders it with Scalar. Everything the page loads comes from this server (the renderer
 * from /static/, see docs-assets.ts), so it works with no internet access. The page starts with the
 * first start's headers under the same rule as GraphiQL (src/edge/local-headers.ts), and shows the
 * project's typed document once headers are given.
 */

let cached: Record<string, unknown> | undefined;

/**
 * Per project, schema revision and token scope: a collection or field change gives a new revision,
 * hence a new document; a scoped token's document shows only what it can reach (`listCollections`,
 * and no release routes for a token limited to collections). Kept per services
 * instance (per database), where project ids are unique.
 */
const byServices = new WeakMap<object, LRUCache<string, Record<string, unknown>>>();

async function projectDocument(ctx: Ctx, base: Record<string, unknown>): Promise<Record<string, unknown>> {
  const key = `${ctx.project.id}:${ctx.project.schemaRevision}:${ctx.scope?.digest ?? '-'}`;
  let byRevision = byServices.get(ctx.services);
  if (!byRevision) byServices.set(ctx.services, (byRevision = new LRUCache<string, Record<string, unknown>>({ max: 200 })));
  const hit = byRevision.get(key);
  if (hit) return hit;
  const collections = (await listCollections(ctx)).map((c) => buildCollectionSchema(c, c.fields));
  const doc = projectOpenApi(base as Parameters<typeof projectOpenApi>[0], collections, ctx.project.name, { releases: releasesInScope(ctx.scope) }) as unknown as Record<string, unknown>;
  byRevision.set(key, doc);
  return doc;
}

/**
 * Scalar's settings, each keeping the page on this server (test/browser/pages.test.ts refuses and
 * reports any request that leaves the machine):
 * - `withDefaultFonts: false`: it would fetch Inter and JetBrains Mono from fonts.scalar.com;
 * - `agent.disabled`: its AI agent panel asks api.scalar.com (through proxy.scalar.com) at load;
 * - `hideClientButton`: a link that opens the document on client.scalar.com;
 * - `showDeveloperTools: 'never'`: on localhost its toolbar offers "Upload Document" and "Deploy on
 *   Scalar", which send the document to Scalar's servers;
 * - `telemetry: false`.
 * No `proxyUrl`: "Test request" calls this same origin directly, never through Scalar's proxy.
 */
const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  agent: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: 'never',
  telemetry: false,
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON inside a <script> element: only `</` and `<!--` can break out, so those `<` become `\u003c`. */
const jsonForScript = (value: unknown) => JSON.stringify(value).replace(/<(?=[/!])/g, '\\u003c');

/** The headers the boot script starts with: the first start's (local browser only) or none. */
const startHeaders = (local: LocalHeaders | undefined) =>
  local ? { projectId: local['project-id'], token: local.Authorization.replace(/^Bearer /, '') } : null;

const page = (scripts: { boot: string; renderer: string }, local: LocalHeaders | undefined) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Content gateway REST API</title>
  <style>
    #project-headers { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .6rem 1rem; font: 14px system-ui, sans-serif; border-bottom: 1px solid #ddd; background: #fafafa; }
    #project-headers label { display: flex; gap: .4rem; align-items: center; }
    #project-headers input { font: 13px ui-monospace, monospace; padding: .25rem .4rem; width: 22rem; max-width: 60vw; }
    #project-headers-status.failed { color: #b00020; }
  </style>
</head>
<body>
  <noscript>This page renders ${escapeHtml('/api/openapi.json')} with Scalar: it needs JavaScript.</noscript>
  <form id="project-headers" autocomplete="off">
    <label>project-id <input name="project-id" placeholder="project uuid" spellcheck="false"></label>
    <label>API token <input name="token" type="password" placeholder="token (without Bearer)" spellcheck="false"></label>
    <button type="submit">Show this project's reference</button>
    <span id="project-headers-status" role="status"></span>
  </form>
  <div id="reference"></div>
  <script type="application/json" id="api-reference-config">${jsonForScript({ documentUrl: '/api/openapi.json', scalar: SCALAR_CONFIGURATION, headers: startHeaders(local) })}</script>
  <script src="${scripts.boot}"></script>
  <script src="${scripts.renderer}"></script>
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
    publicHandler: async ({ reply, localHeaders }) => {
      void reply.type('text/html; charset=utf-8');
      // Never kept by any cache: the page may carry the first start's token, and it names the current
      // renderer file (a new one after an upgrade).
      return { body: page(await docsScriptUrls(), await localHeaders?.()), headers: { 'Cache-Control': 'no-store' } };
    },
  },
  ]);
