import { defineRoutes, type RouteDef } from './route.ts';
import { buildOpenApi } from './openapi.ts';

/**
 * The API's own documentation, public (no project, no token): the OpenAPI document and a reference
 * page that renders it. The page loads its renderer (Scalar) from a CDN, so it needs internet access
 * in the browser; the JSON document itself is served from here.
 */

let cached: unknown;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Content gateway REST API</title>
</head>
<body>
  <noscript>This page renders /api/openapi.json with Scalar, loaded from a CDN: it needs JavaScript and internet access.</noscript>
  <script id="api-reference" data-url="/api/openapi.json"></script>
  <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
</body>
</html>
`;

/** `routes` gives the whole table (this one included) when the document is first asked for. */
export const docsRoutes = (routes: () => RouteDef[]): RouteDef[] =>
  defineRoutes([
  {
    method: 'GET',
    url: '/api/openapi.json',
    ability: null,
    auth: false,
    summary: 'The OpenAPI 3.1 document of this REST API (public)',
    tags: ['docs'],
    successStatus: 200,
    handler: async () => ({ status: 404 }),
    publicHandler: async () => {
      cached ??= buildOpenApi(routes(), { serverUrl: process.env.PUBLIC_URL });
      return { body: cached, headers: { 'Cache-Control': 'public, max-age=300' } };
    },
  },
  {
    method: 'GET',
    url: '/api/docs',
    ability: null,
    auth: false,
    summary: 'A browsable reference of this API (HTML; loads its renderer from a CDN)',
    tags: ['docs'],
    successStatus: 200,
    handler: async () => ({ status: 404 }),
    publicHandler: async ({ reply }) => {
      void reply.type('text/html; charset=utf-8');
      return { body: PAGE, headers: { 'Cache-Control': 'public, max-age=300' } };
    },
  },
  ]);
