import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { authorize } from '../../context.ts';
import type { Pipeline } from '../../edge/pipeline/index.ts';
import type { GraphQLContext } from '../context.ts';
import { schema as coreSchema } from '../schema/core/index.ts';
import type { TypedSchemaCache } from '../schema/typed/cache.ts';
import { useSchemaAwareJit } from '../schema/typed/jit.ts';
import { useLiveSse } from '../subscriptions/sse.ts';
import { useLiveSubscribe } from '../subscriptions/execute.ts';
import { useGraphqlStream } from '../subscriptions/single-connection.ts';
import type { ServerContext } from '../plugins/request/gate.ts';
import { useCredentials, type Callers } from '../plugins/request/use-credentials.ts';
import { useTrustedDocuments } from '../plugins/request/use-trusted-documents.ts';
import { createApqStore } from '../plugins/request/apq-store.ts';
import { useDocumentLimits } from '../plugins/validation/use-document-limits.ts';
import { useQueryLimits } from '../plugins/validation/use-query-limits.ts';
import { useAbilityRefusals } from '../plugins/validation/use-ability-refusals.ts';
import { createConditionalGets, type ConditionalGets } from '../plugins/result/use-http-caching.ts';
import { useContentReadCache } from '../plugins/result/use-read-cache.ts';
import { useReadYourWrites } from '../plugins/result/use-read-your-writes.ts';
import { useOperationMetrics } from '../plugins/result/use-metrics.ts';
import { useHttpStatuses } from '../plugins/result/use-http-statuses.ts';
import { graphqlLogger, maskError } from '../plugins/result/mask-error.ts';
import { graphiqlOptions, renderGraphiqlPage } from '../graphiql/page.ts';
import { DEFAULT_QUERY } from '../graphiql/default-query.ts';
import { useSchemaChoice } from './schema-choice.ts';
import type { AuthOf } from './credentials.ts';

export type GraphqlYoga = YogaServerInstance<ServerContext, GraphQLContext>;

/**
 * The Yoga server of `/graphql` and `/graphql/stream`: the GraphQL adapter of the request pipeline
 * (src/edge/pipeline/) as Yoga plugins, in the pipeline's order. Request phase: the gate
 * (src/graphql/plugins/request/gate.ts) and the schema choice; validation phase: the document and
 * query limits; result phase: conditional GETs, the read cache, read-your-writes, metrics, statuses.
 * The pipeline's guard ran in Fastify before Yoga sees the request (src/http/server.ts).
 */
export function createGraphqlYoga(pipeline: Pipeline, schemas: TypedSchemaCache, authOf: AuthOf): { yoga: GraphqlYoga; conditionalGets: ConditionalGets } {
  const { services } = pipeline;
  const config = services.config;
  const callers: Callers = new WeakMap();
  const conditionalGets = createConditionalGets(config);
  const logging = graphqlLogger(services.log);
  const readCache = pipeline.readCache.graphql;
  const yoga = createYoga<ServerContext, GraphQLContext>({
    graphqlEndpoint: '/graphql',
    cors: false, // one CORS policy for both surfaces: src/http/cors.ts
    logging,
    maskedErrors: { maskError },
    plugins: [
      // The gate, every transport: credentials and budgets, trusted documents and persisted queries, then the schema.
      useCredentials({ services, authOf, callers }),
      useTrustedDocuments({ callers, apq: createApqStore(services.redis, services.log), maxTokens: config.GRAPHQL_MAX_TOKENS }),
      useSchemaChoice({ callers, schemas, coreSchema, maxTokens: config.GRAPHQL_MAX_TOKENS }),
      useDocumentLimits({ maxTokens: config.GRAPHQL_MAX_TOKENS, maxAliases: config.GRAPHQL_MAX_ALIASES, maxDirectives: config.GRAPHQL_MAX_DIRECTIVES }),
      useQueryLimits({ maxDepth: config.GRAPHQL_MAX_DEPTH, maxComplexity: config.GRAPHQL_MAX_COMPLEXITY, introspection: config.GRAPHQL_INTROSPECTION }),
      useAbilityRefusals(services.log),
      useGraphqlStream({
        // Requests of the stream protocol that carry no operation: the pipeline's stages 2-3 alone.
        credentials: async (_request, serverContext) => void (await authOf((serverContext as ServerContext).req)),
        // A stream exists for subscriptions, which all need `read`: refused with a clear 403 before one is reserved.
        streamAccess: async (_request, serverContext) => authorize(await authOf((serverContext as ServerContext).req), 'read'),
        log: logging,
      }),
      // Before the read cache: a cached answer is tagged as well.
      conditionalGets.plugin,
      ...(readCache ? [useContentReadCache(readCache)] : []),
      useSchemaAwareJit(),
      useReadYourWrites(pipeline),
      useOperationMetrics(services),
      useHttpStatuses(),
      useLiveSubscribe(),
      useLiveSse({ heartbeatMs: config.LIVE_HEARTBEAT_MS }),
    ],
    // Served from this server (no CDN); see src/graphql/graphiql/page.ts for which headers a page starts with.
    graphiql: graphiqlOptions(config, DEFAULT_QUERY),
    renderGraphiQL: renderGraphiqlPage,
    context: ({ request, req }) => ({ services, request, auth: () => authOf(req) }),
  });
  return { yoga, conditionalGets };
}
