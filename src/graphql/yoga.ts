import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga, type Plugin } from 'graphql-yoga';
import { Kind, type DocumentNode, type GraphQLSchema } from 'graphql';
import { authorize, type Ctx } from '../context.ts';
import type { EdgeServices } from '../edge/services.ts';
import { admit, drawAddressBudget } from '../edge/pipeline.ts';
import { useReadYourWrites } from './read-your-writes.ts';
import { schema as coreSchema } from './schema/index.ts';
import type { GraphQLContext } from './builder.ts';
import { graphqlLogger, maskError } from './errors.ts';
import { useQueryLimits } from './limits.ts';
import { checkDocumentSize, useDocumentLimits } from './document-limits.ts';
import { parse } from 'graphql';
import { createTypedSchemaCache, type TypedSchemaCache } from './typed/cache.ts';
import { useSchemaAwareJit } from './typed/jit.ts';
import { createGraphqlReadCache, useContentReadCache } from './read-cache.ts';
import { answerFromCache } from './cached-answers.ts';
import { graphiqlOptions, renderGraphiqlPage } from './graphiql.ts';
import { useOperationMetrics } from './metrics.ts';
import { liveBodyOf, useLiveSse } from './subscriptions/sse.ts';
import { useLiveSubscribe } from './subscriptions/execute.ts';
import { useHttpStatuses } from './http-statuses.ts';
import { useAPQ } from '@graphql-yoga/plugin-apq';
import { createApqStore } from './apq-store.ts';
import { createConditionalGets } from './http-caching.ts';
import { useTrustedDocuments } from './trusted-documents.ts';
import { useSingleConnectionSse } from './subscriptions/single-connection.ts';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

const DEFAULT_QUERY = `# Set the project-id and Authorization headers (Headers tab below), then
# re-fetch the schema: every collection of the project appears with its own type,
# list query (e.g. posts), single query (post) and mutations (createPost, ...).

query Project {
  project {
    uuid
    name
    defaultLocale
    locales
  }
}

# query Posts($perPage: Int = 10) {
#   posts(perPage: $perPage, sort: [publishedAt_DESC], where: { title: { like: "news" } }) {
#     data { uuid title publishedAt }
#     pageInfo { total currentPage lastPage }
#   }
# }
`;

/**
 * A document whose every operation asks only for `__schema` / `__type` / `__typename`. Only called on
 * text that passed `checkDocumentSize`; syntax errors: not introspection (Yoga reports them).
 */
function isIntrospectionOnly(query: unknown, maxTokens: number): boolean {
  if (typeof query !== 'string') return false;
  let doc: DocumentNode;
  try {
    doc = parse(query, { maxTokens });
  } catch {
    return false;
  }
  return doc.definitions.every(
    (d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ||
      (d.kind === Kind.OPERATION_DEFINITION && d.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'))),
  );
}

interface SchemaChoiceOptions {
  cache: TypedSchemaCache;
  authFor: (request: Request, req: FastifyRequest) => Promise<Ctx>;
  /** Takes a point from the client address's budget (429 when spent). */
  chargeAddress: (req: FastifyRequest) => Promise<void>;
  maxTokens: number;
  /** The schema picked per request, also filled by the single-connection SSE endpoint. */
  chosen: WeakMap<Request, GraphQLSchema>;
}

/**
 * Picks the schema of each request. Every operation but introspection needs a project and a token
 * anyway, so the request is authenticated right away (the same promise the resolvers' `auth()`
 * returns: it runs once) and the project's typed schema is served, keyed by the `schema_revision`
 * on the project row authentication just read: every replica notices a schema change on its next
 * request, at no extra query. A failed authentication answers with its 400/401/429 as REST does,
 * typed operation or not. Introspection without a project header, or with headers that do not
 * authenticate (GraphiQL's placeholders), gets the core schema instead. Either way a request without
 * valid credentials first pays from its address's budget, before the document is even parsed.
 */
function useProjectSchema({ cache, authFor, chargeAddress, maxTokens, chosen }: SchemaChoiceOptions): Plugin<Record<string, unknown>, ServerContext> {
  // Mapped here: Yoga would read an AppError's `errors` field as an AggregateError's list.
  const mapped = (err: unknown) => maskError(err, 'Unexpected error.');
  // GraphiQL's unfilled headers (`<project uuid>`, `Bearer <token>`) or no token at all: introspection
  // gets the core schema. Credentials that look real but fail answer their 400/401, so a mistyped token
  // shows an authentication error instead of a schema without the project's types.
  const unfilled = (value: string | null) => value === null || value.trim() === '' || /^(bearer\s+)?<[^>]*>$/i.test(value.trim());
  const placeholderCredentials = (request: Request) => unfilled(request.headers.get('project-id')) || unfilled(request.headers.get('authorization'));
  return {
    onRequestParse({ request, serverContext }) {
      return {
        async onRequestParseDone({ requestParserResult }) {
          const all = Array.isArray(requestParserResult) ? requestParserResult : [requestParserResult];
          const params = all[0];
          const introspection = () => isIntrospectionOnly(params?.query, maxTokens);
          // Measured before anything else is done with the text: a refused document costs a bounded scan.
          const checkSize = () => {
            for (const p of all) if (typeof p?.query === 'string') checkDocumentSize(p.query, maxTokens);
          };
          const anonymous = !request.headers.has('project-id');
          if (anonymous) {
            await chargeAddress(serverContext.req).catch((err: unknown) => {
              throw mapped(err);
            });
          }
          checkSize();
          if (anonymous && introspection()) {
            chosen.set(request, coreSchema);
            return;
          }
          try {
            const ctx = await authFor(request, serverContext.req);
            chosen.set(request, await cache.schemaFor({ projectId: ctx.project.id, schemaRevision: ctx.project.schemaRevision }));
          } catch (err) {
            if (!anonymous) {
              await chargeAddress(serverContext.req).catch((spent: unknown) => {
                throw mapped(spent);
              });
            }
            if (!introspection() || !placeholderCredentials(request)) throw mapped(err);
            chosen.set(request, coreSchema);
          }
        },
      };
    },
    onEnveloped({ setSchema, context }) {
      const request = (context as { request?: Request } | undefined)?.request;
      setSchema((request && chosen.get(request)) ?? coreSchema);
    },
  };
}

const caches = new WeakMap<EdgeServices, TypedSchemaCache>();

/** The typed-schema cache of a running server (observability, tests). */
export const typedSchemaCacheOf = (services: EdgeServices): TypedSchemaCache | undefined => caches.get(services);

export async function mountGraphql(app: FastifyInstance, services: EdgeServices): Promise<void> {
  const config = services.config;
  const cache = createTypedSchemaCache(services, coreSchema);
  caches.set(services, cache);
  services.onClose.push(() => cache.close());

  // One authentication (and one rate-budget charge) per HTTP request, whoever asks first: the
  // cached-answer fast path, the schema choice or a resolver.
  const authenticated = new WeakMap<FastifyRequest, Promise<Ctx>>();
  const authOf = (req: FastifyRequest): Promise<Ctx> => {
    let pending = authenticated.get(req);
    if (!pending) {
      const { headers } = req;
      pending = admit(services, {
        projectId: typeof headers['project-id'] === 'string' ? headers['project-id'] : undefined,
        authorization: headers.authorization,
        ip: req.ip,
        requestId: req.id,
      });
      authenticated.set(req, pending);
    }
    return pending;
  };
  const authFor = (_request: Request, req: FastifyRequest): Promise<Ctx> => authOf(req);
  const readCache = services.graphqlReadCache ? createGraphqlReadCache(services.graphqlReadCache) : undefined;

  const conditionalGets = createConditionalGets();
  const chosen = new WeakMap<Request, GraphQLSchema>();
  const yoga = createYoga<ServerContext, GraphQLContext>({
    graphqlEndpoint: '/graphql',
    cors: false, // one CORS policy for both surfaces: src/http/cors.ts
    logging: graphqlLogger(services.log),
    maskedErrors: { maskError },
    plugins: [
      useProjectSchema({ cache, authFor, chargeAddress: (req) => drawAddressBudget(services, req.ip), maxTokens: config.GRAPHQL_MAX_TOKENS, chosen }),
      useTrustedDocuments((request, server) => authFor(request, server.req)),
      // Automatic persisted queries (Apollo protocol): a hash stands for a document sent once before.
      useAPQ({ store: createApqStore(services.redis, services.log) }),
      ...useSingleConnectionSse({
        choose: async (request, serverContext) => {
          const { req } = serverContext as ServerContext;
          const ctx = await authFor(request, req).catch(async (err: unknown) => {
            await drawAddressBudget(services, req.ip);
            throw err;
          });
          // The stream exists for subscriptions, which all need `read`: refused here with a clear 403,
          // since the plugin answers an operation refused later with an opaque 400.
          authorize(ctx, 'read');
          chosen.set(request, await cache.schemaFor({ projectId: ctx.project.id, schemaRevision: ctx.project.schemaRevision }));
        },
      }),
      useDocumentLimits({ maxTokens: config.GRAPHQL_MAX_TOKENS, maxAliases: config.GRAPHQL_MAX_ALIASES, maxDirectives: config.GRAPHQL_MAX_DIRECTIVES }),
      useQueryLimits({ maxDepth: config.GRAPHQL_MAX_DEPTH, maxComplexity: config.GRAPHQL_MAX_COMPLEXITY, introspection: config.GRAPHQL_INTROSPECTION }),
      // Before the read cache: a cached answer is tagged as well.
      conditionalGets.plugin,
      ...(readCache ? [useContentReadCache(readCache)] : []),
      useSchemaAwareJit(),
      useReadYourWrites(services),
      useOperationMetrics(services),
      useHttpStatuses(),
      useLiveSubscribe(),
      useLiveSse({ heartbeatMs: config.LIVE_HEARTBEAT_MS }),
    ],
    // Served from this server (no CDN); see src/graphql/graphiql.ts for which headers a page starts with.
    graphiql: graphiqlOptions(config, DEFAULT_QUERY),
    renderGraphiQL: renderGraphiqlPage,
    context: ({ request, req }) => ({ services, request, auth: () => authFor(request, req) }),
  });

  app.route({
    url: '/graphql',
    // No OPTIONS: preflights are answered as on every REST path (src/http/cors.ts).
    method: ['GET', 'POST'],
    handler: async (req, reply) => {
      if (readCache && (await answerFromCache({ cache: readCache, authFor: authOf }, req, reply))) return reply;
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      // Single JSON answers are sent as the string Yoga built: piping its body stream through Fastify
      // cost a Readable, a pipe and their listeners per request for one chunk (BENCHMARKS.md,
      // session 7, "Uncached reads"). GraphiQL's page, multipart and event streams pass through.
      if (/json/.test(response.headers.get('content-type') ?? '')) {
        const body = await response.text();
        if (req.method === 'GET' && response.status === 200) {
          const cached = conditionalGets.conditional(req, response.status, body);
          for (const [key, value] of Object.entries(cached?.headers ?? {})) void reply.header(key, value);
          void reply.status(cached?.status ?? 200);
          return cached?.status === 304 ? reply.send() : reply.send(body);
        }
        return reply.status(response.status).send(body);
      }
      void reply.status(response.status);
      // A live stream's body is the Node stream the hub writes to (src/graphql/subscriptions/sse.ts).
      return reply.send(liveBodyOf(response) ?? response.body);
    },
  });
  // The single-connection mode of GraphQL over SSE (src/graphql/subscriptions/single-connection.ts).
  app.route({
    url: '/graphql/stream',
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      void reply.status(response.status);
      return reply.send(response.body);
    },
  });
}
