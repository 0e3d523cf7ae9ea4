import { z } from 'zod';
import type { RouteDef } from './route.ts';
import { COMPONENT_SCHEMAS } from './openapi/components.ts';

/**
 * The OpenAPI 3.1 document of the REST API, generated from the route table the router is built
 * from (src/rest/index.ts), so it cannot drift from what is served: method, path, ability, summary,
 * tags, request body (zod → JSON Schema with zod 4's `z.toJSONSchema`), query parameters when a
 * route declares them, the two authentication headers and the one error shape.
 */

type Json = Record<string, unknown>;

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'The project-id header is missing or names no project, or the request is malformed.',
  '401': 'The bearer token is missing, invalid, revoked or issued for another project.',
  '403': 'The token lacks the ability this operation requires (see `x-ability`).',
  '404': 'The collection, entry, version, asset or webhook does not exist in this project.',
  '422': 'Validation failed: `errors` maps each offending key (e.g. `data.title`, `items.0.locale`) to messages.',
  '429': 'Rate limited: retry after the number of seconds in the `Retry-After` header.',
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  assets: 'Uploaded files (media).',
  bulk: 'Many entries of one collection in one all-or-nothing request.',
  collections: 'The content model: collections and their fields.',
  docs: 'This document and its reference page.',
  entries: 'Entries of any collection, addressed by slug.',
  fields: 'Fields of a collection.',
  graphql: 'The GraphQL endpoint.',
  project: 'The project and its locales.',
  versions: 'Published versions of an entry.',
  webhooks: 'Webhooks and their delivery logs.',
};

/** `/api/:collection/:uuid` → `/api/{collection}/{uuid}` and its path parameters. */
export function openApiPath(url: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

function jsonSchema(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as Json;
  delete out.$schema;
  return out;
}

function queryParameters(schema: z.ZodType): Json[] {
  const js = jsonSchema(schema);
  const props = (js.properties ?? {}) as Record<string, Json>;
  const required = new Set((js.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
    // Nested parameters (`where[title][like]=x`) use PHP/qs bracket notation.
    ...(s.type === 'object' ? { style: 'deepObject', explode: true } : {}),
  }));
}

const operationId = (route: RouteDef): string =>
  `${route.method.toLowerCase()}${route.url
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `By${seg[1].toUpperCase()}${seg.slice(2)}` : seg.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : '')).replace(/^./, (c) => c.toUpperCase())))
    .join('')}`;

/**
 * Read-your-writes across API replicas when the server reads from PostgreSQL replicas
 * (docs/foundation.md, "Scaling out", "Read replicas"): a write answers the primary's WAL position,
 * and a read that sends it back sees that write on any replica.
 */
const READ_AFTER_DESCRIPTION = "The primary's WAL position after this write (only when the server reads from replicas): send it back as `Read-After` on the next reads to see this write on any API replica.";
const readAfterParameter: Json = {
  name: 'Read-After',
  in: 'header',
  required: false,
  description: 'A WAL position a write answered: the read waits for a replica that has replayed it, else reads the primary (only when the server reads from replicas).',
  schema: { type: 'string', example: '0/3000148' },
};

function operation(route: RouteDef): Json {
  const isPublic = route.auth === false;
  const tokenRoute = !isPublic && route.auth !== 'enduser';
  const { params } = openApiPath(route.url);
  const parameters: Json[] = params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  if (route.query) parameters.push(...queryParameters(route.query));
  if (tokenRoute && route.method === 'GET') parameters.push(readAfterParameter);
  const { schema, contentType = 'application/json', description } = route.response;
  const responses: Json = {
    [String(route.successStatus)]: {
      description: description ?? 'Success.',
      ...(tokenRoute && route.method !== 'GET' ? { headers: { 'Read-After': { description: READ_AFTER_DESCRIPTION, schema: { type: 'string' } } } } : {}),
      ...(schema ? { content: { [contentType]: { schema } } } : {}),
    },
  };
  for (const code of Object.keys(ERROR_RESPONSES)) {
    if (isPublic && (code === '401' || code === '403')) continue;
    responses[code] = { $ref: `#/components/responses/Error${code}` };
  }
  const op: Json = {
    operationId: operationId(route),
    summary: route.summary,
    tags: route.tags ?? [],
    parameters,
    responses,
    'x-ability': route.ability,
    ...(isPublic ? { security: [] } : {}),
  };
  if (route.ability) op.description = `Requires the \`${route.ability}\` ability (or \`*\`).`;
  if (route.wholeProject) {
    op['x-whole-project'] = true;
    op.description = `${op.description ?? ''} ${route.wholeProject} belong to the whole project: a token limited to collections or fields is refused (403).`.trim();
  }
  if (route.auth === 'enduser') op.description = 'End-user auth: no CMS token. Routes marked (user) take the end user\'s access token as `Authorization: Bearer`; see docs/auth.md.';
  if (route.body) op.requestBody = { required: false, content: { 'application/json': { schema: jsonSchema(route.body) } } };
  return op;
}

export interface OpenApiOptions {
  /** Absolute base URL of the service (PUBLIC_URL), when known. */
  serverUrl?: string;
  version?: string;
}

export function buildOpenApi(routes: RouteDef[], opts: OpenApiOptions = {}): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const { path } = openApiPath(route.url);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  paths['/graphql'] = {
    post: {
      operationId: 'postGraphql',
      summary: 'GraphQL endpoint: the core schema plus one typed schema per project (GraphiQL on GET with a browser)',
      tags: ['graphql'],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['query'],
              properties: { query: { type: 'string' }, variables: { type: 'object' }, operationName: { type: 'string' } },
            },
          },
        },
      },
      responses: {
        '200': { description: 'A GraphQL response: `data` and/or `errors` (each with `extensions.code`).' },
        '400': { description: 'The document is malformed or over a limit; `errors` says which.' },
      },
    },
  };
  const errorResponses: Record<string, Json> = {};
  for (const [code, description] of Object.entries(ERROR_RESPONSES)) {
    errorResponses[`Error${code}`] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Content gateway REST API',
      version: opts.version ?? '1.0.0',
      description:
        'Every request names its project in the `project-id` header and authenticates with `Authorization: Bearer <token>`. ' +
        'Each operation lists the ability its token needs (`x-ability`). Errors are always `{ message, errors? }`.',
    },
    // Relative to where the document was fetched from unless PUBLIC_URL says otherwise.
    servers: [{ url: opts.serverUrl ? opts.serverUrl.replace(/\/$/, '') : '/' }],
    security: [{ projectId: [], bearer: [] }],
    tags: [...new Set(routes.flatMap((r) => r.tags ?? []))].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        projectId: { type: 'apiKey', in: 'header', name: 'project-id', description: 'UUID of the project every request works in.' },
        bearer: { type: 'http', scheme: 'bearer', description: 'An API token of that project.' },
      },
      schemas: COMPONENT_SCHEMAS,
      responses: errorResponses,
    },
  };
}
