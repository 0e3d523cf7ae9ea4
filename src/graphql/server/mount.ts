import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga } from 'graphql-yoga';
import { authorize, type Ctx } from '../../context.ts';
import type { EdgeServices } from '../../edge/services.ts';
import { admit } from '../../edge/pipeline/stages.ts';
import { useReadYourWrites } from '../plugins/result/use-read-your-writes.ts';
import { schema as coreSchema } from '../schema/index.ts';
import type { GraphQLContext } from '../builder.ts';
import { graphqlLogger, maskError } from '../plugins/result/mask-error.ts';
import { createTypedSchemaCache, type TypedSchemaCache } from '../typed/cache.ts';
import { useSchemaAwareJit } from '../typed/jit.ts';
import { createGraphqlReadCache, useContentReadCache } from '../plugins/result/use-read-cache.ts';
import { answerFromCache } from './cached-answers.ts';
import { graphiqlOptions, renderGraphiqlPage } from '../graphiql/page.ts';
import { useOperationMetrics } from '../plugins/result/use-metrics.ts';
import { liveBodyOf, useLiveSse } from '../subscriptions/sse.ts';
import { useLiveSubscribe } from '../subscriptions/execute.ts';
import { useHttpStatuses } from '../plugins/result/use-http-statuses.ts';
import { createApqStore } from '../plugins/request/apq-store.ts';
import { createConditionalGets } from '../plugins/result/use-http-caching.ts';
import { useGraphqlStream } from '../subscriptions/single-connection.ts';
import { createGate } from '../plugins/request/use-gate.ts';

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
  const readCache = services.graphqlReadCache ? createGraphqlReadCache(services.graphqlReadCache) : undefined;

  const conditionalGets = createConditionalGets();
  const gate = createGate({
    services,
    schemas: cache,
    coreSchema,
    authOf,
    apq: createApqStore(services.redis, services.log),
    limits: {
      maxTokens: config.GRAPHQL_MAX_TOKENS,
      maxAliases: config.GRAPHQL_MAX_ALIASES,
      maxDirectives: config.GRAPHQL_MAX_DIRECTIVES,
      maxDepth: config.GRAPHQL_MAX_DEPTH,
      maxComplexity: config.GRAPHQL_MAX_COMPLEXITY,
      introspection: config.GRAPHQL_INTROSPECTION,
    },
  });
  const logging = graphqlLogger(services.log);
  const yoga = createYoga<ServerContext, GraphQLContext>({
    graphqlEndpoint: '/graphql',
    cors: false, // one CORS policy for both surfaces: src/http/cors.ts
    logging,
    maskedErrors: { maskError },
    plugins: [
      // Credentials, budgets, trusted documents and persisted queries, document limits: every transport (src/graphql/gate.ts).
      ...gate.plugins,
      useGraphqlStream({
        credentials: async (_request, serverContext) => void (await gate.credentials((serverContext as ServerContext).req)),
        // A stream exists for subscriptions, which all need `read`: refused with a clear 403 before one is reserved.
        streamAccess: async (_request, serverContext) => authorize(await authOf((serverContext as ServerContext).req), 'read'),
        log: logging,
      }),
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
    context: ({ request, req }) => ({ services, request, auth: () => authOf(req) }),
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
      // "Uncached reads"). GraphiQL's page, multipart and event streams pass through.
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
