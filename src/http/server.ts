import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EarlyListener } from './early-listener.ts';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import qs from 'qs';
import { authorize } from '../context.ts';
import { requireWholeProject } from '../admin-scope.ts';
import { requireCollectionInScope } from '../collections/token-scope.ts';
import { notFound, zodToAppError } from '../errors.ts';
import type { EdgeServices } from '../edge/services.ts';
import { createPipeline, type Pipeline, type RequestCredentials } from '../edge/pipeline/index.ts';
import { errorHandler, frameworkErrorHandler } from './error-handler.ts';
import { admitEndUser } from '../edge/enduser.ts';
import { localFirstStartHeaders } from '../edge/local-headers.ts';
import { allRoutes } from '../rest/index.ts';
import type { RouteDef, RestInput } from '../rest/route.ts';
import { fixedPathAnswer, fixedPathAnswerFor, routeForProject } from '../rest/reserved-slugs.ts';
import { mountGraphql } from '../graphql/server/mount.ts';
import { mountMultipartRoutes, multipartRoutes } from '../rest/asset-routes.ts';
import { mountStaticAssets } from './static-assets.ts';
import { requestIdOf } from './request-id.ts';
import { accessLog } from './access-log.ts';
import { registerMetrics } from './metrics.ts';
import { registerHealth } from './drain.ts';
import { corsVariesByOrigin, registerCors } from './cors.ts';
import { registerCompression } from './compression.ts';
import { registerMethodNotAllowed } from './method-not-allowed.ts';
import { registerResponseHeaders } from './response-headers.ts';
import { combineObservers, registerResponseObservers } from './response-observers.ts';
import { cachedReadAnswerer, type EarlyAnswer } from './cached-reads.ts';
import { cachedGraphqlPostAnswerer, registerBodyReplay, type EarlyPost } from './cached-graphql-posts.ts';
import { clientErrorHandler, createApiServer } from './connections.ts';
import { hadInvalidUtf8, refuseJsonBodies, registerRequestBodies } from './request-body.ts';

/**
 * Query strings are parsed the way PHP/Laravel clients send them (`where[or][0][title][eq]=a`),
 * with hard caps so a hostile query string cannot build a huge or deep object, and null-prototype
 * objects so keys like `__proto__` are plain data.
 */
export function parseQuery(str: string): Record<string, unknown> {
  return qs.parse(str, { depth: 8, arrayLimit: 100, parameterLimit: 500, plainObjects: true, allowPrototypes: false, strictDepth: false }) as Record<string, unknown>;
}

/**
 * The GraphQL endpoints' paths as requested (trailing slash allowed, as the router allows it): on both,
 * `query` is a GraphQL document, so a NUL in it makes the request malformed (400), on every transport.
 */
const GRAPHQL_PATH = /^\/graphql(?:\/stream)?\/?(?:\?|$)/;

/**
 * `listener`: a port the process bound before loading this module (src/main.ts); the app takes its
 * requests over instead of listening itself. Without one (tests, benches) the app makes its own server.
 */
export async function buildServer(services: EdgeServices, listener?: EarlyListener): Promise<FastifyInstance> {
  // The request pipeline, assembled once (src/edge/pipeline/): this file is its REST adapter and
  // src/graphql/server/ its GraphQL adapter; both early lanes take its stages too.
  const pipeline = createPipeline(services);
  // maxParamLength: a 255-character original filename, URL-encoded (up to 9 characters each), fits GET /api/files/name/{filename}.
  const routing = { ignoreTrailingSlash: true, maxParamLength: 2400 };
  // Repeated cached published reads are answered before routing (src/http/cached-reads.ts, and
  // GraphQL POSTs: src/http/cached-graphql-posts.ts); the answerers need the app's observers and drain state, so it is set once they exist.
  let early: EarlyAnswer | undefined;
  let earlyPost: EarlyPost | undefined;
  let serve: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const app = Fastify({
    // Timeouts and the per-address connection cap: src/http/connections.ts. Under src/main.ts the
    // server was made and bound before the app loaded (src/http/early-listener.ts).
    serverFactory: (handler) => {
      serve = (req: IncomingMessage, res: ServerResponse) => {
        if (early?.(req, res) || earlyPost?.(req, res, handler)) return;
        handler(req, res);
      };
      return listener ? listener.server : createApiServer(services.config, serve);
    },
    clientErrorHandler: clientErrorHandler(services.config),
    // Our access line (src/http/access-log.ts) replaces Fastify's two per request.
    loggerInstance: services.log as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Fastify makes a child logger per request to bind its id; nothing on the request path logs
    // through it, so it was pure cost on every cached read. Failures bind the id themselves
    // (error-handler.ts) and the access line carries it (access-log.ts).
    childLoggerFactory: (logger) => logger,
    bodyLimit: services.config.BODY_LIMIT_BYTES,
    routerOptions: { querystringParser: parseQuery, ...routing },
    requestIdHeader: false,
    genReqId: requestIdOf,
    // On close, idle keep-alive connections end at once; busy ones after their response (src/http/drain.ts).
    forceCloseConnections: 'idle',
    // Malformed percent-encoding in the path and over-long parameters: our `{ message }` shape, not Fastify's.
    frameworkErrors: frameworkErrorHandler,
  });
  app.setErrorHandler(errorHandler);
  registerMethodNotAllowed(app, routing);
  registerResponseHeaders(app, services, () => app.draining);
  const observe = combineObservers([accessLog(services.log), registerMetrics(app, services)]);
  registerResponseObservers(app, observe);
  await registerCors(app, services.config.CORS_ORIGINS, services.config.CORS_ALLOW_HEADERS);
  await registerCompression(app, services.config.COMPRESSION_MIN_BYTES);
  registerHealth(app, services);

  registerRequestBodies(app, services.config.BODY_LIMIT_BYTES);
  registerBodyReplay(app);

  // Stage 1, the guard: every parsed request value is checked once, before authentication and before any operation:
  // NUL characters, unpaired surrogates, bytes that are not UTF-8 and hostile nesting would otherwise fail deep inside
  // (PostgreSQL data exceptions, stack overflows) as 500s. Multipart uploads parse their parts in
  // the handler; the asset operation checks the file name itself.
  app.addHook('preValidation', async (req) => {
    // The raw path, not `routeOptions` (a getter that builds an object on every read).
    const refused = pipeline.guard({ params: req.params, query: req.query, body: req.body, graphql: GRAPHQL_PATH.test(req.url), url: req.url, invalidUtf8: hadInvalidUtf8(req) });
    if (refused) throw refused;
  });

  // Upload routes live in their own scope so only they get the multipart parser.
  const scoped = new Set(multipartRoutes);
  for (const route of allRoutes) if (!scoped.has(route)) registerRoute(app, pipeline, route);
  await app.register(async (scope) => {
    refuseJsonBodies(scope, 'multipart/form-data');
    await mountMultipartRoutes(scope, services, (s, _services, route) => registerRoute(s, pipeline, route));
  });
  await mountGraphql(app, pipeline);
  mountStaticAssets(app);
  const earlyOptions = {
    observe,
    compressionMinBytes: services.config.COMPRESSION_MIN_BYTES,
    varyOrigin: corsVariesByOrigin(services.config.CORS_ORIGINS),
    draining: () => app.draining,
  };
  early = cachedReadAnswerer(pipeline, earlyOptions);
  earlyPost = cachedGraphqlPostAnswerer(pipeline, earlyOptions);
  if (listener) {
    // The bound port keeps answering "starting" until every route is in place.
    await app.ready();
    listener.handle(serve!);
  }
  return app;
}

const credentialsOf = (req: FastifyRequest): RequestCredentials => ({
  projectId: req.headers['project-id'],
  authorization: req.headers.authorization,
  ip: req.ip,
  requestId: req.id,
  readAfter: req.headers['read-after'],
});

/** The REST adapter of the pipeline: one route of the table, through stages 2-7 (stage 1 is the preValidation hook above). */
function registerRoute(app: FastifyInstance, pipeline: Pipeline, route: RouteDef): void {
  const { services } = pipeline;
  app.route({
    method: route.method,
    url: route.url,
    handler: async (req, reply) => {
      const input: RestInput = {
        params: req.params as Record<string, string>,
        query: (req.query ?? {}) as Record<string, unknown>,
        body: req.body,
        headers: req.headers,
        raw: req,
        reply,
        readCache: pipeline.readCache.rest,
        knownReads: pipeline.readCache.knownRest,
        localHeaders: () => localFirstStartHeaders(services.config, req),
        admit: () => pipeline.admit(req, credentialsOf(req), route.bucket),
      };
      let result;
      let written: string | undefined;
      if (route.method === 'GET') pipeline.readOnly(req);
      if (route.auth === false && route.publicHandler) {
        result = await route.publicHandler(input);
      } else if (route.auth === 'enduser' && route.endUserHandler) {
        const headers = { projectId: req.headers['project-id'], authorization: req.headers.authorization, userAgent: req.headers['user-agent'] };
        result = await route.endUserHandler(await admitEndUser(services, { ...headers, ip: req.ip, requestId: req.id }), input);
      } else {
        // A catch-all never answers for a fixed path (a reserved slug): 405 or 404, not "Collection not found",
        // decided before authentication unless the project may hold a collection of that slug.
        const fixedPath = { route, method: req.method, path: req.url, slug: input.params.collection };
        const early = await fixedPathAnswer(allRoutes, fixedPath);
        if (early) return reply.status(early.status!).headers(early.headers ?? {}).send(early.body);
        const ctx = await pipeline.admit(req, credentialsOf(req), route.bucket);
        const fixed = await fixedPathAnswerFor(ctx, allRoutes, fixedPath);
        if (fixed) return reply.status(fixed.status!).headers(fixed.headers ?? {}).send(fixed.body);
        // A fixed route under a reserved slug steps aside for a project with a collection of that slug.
        const serving = route.reservedSlug ? await routeForProject(ctx, allRoutes, route, route.method, req.url) : { route };
        if (!serving) throw notFound('Not found.');
        const active = serving.route;
        if (serving.params) input.params = serving.params;
        // The table's ability is checked before any body or path validation, so a caller lacking it
        // always gets 403, never a 422 or 404 that reveals what exists (the operation checks again).
        if (active.ability) authorize(ctx, active.ability);
        if (active.wholeProject) requireWholeProject(ctx, active.wholeProject);
        // Likewise a collection outside a limited token's scope is unknown before its body is read.
        const addressed = input.params.collection ?? (active.url.startsWith('/api/collections/:slug') ? input.params.slug : undefined);
        if (addressed !== undefined) requireCollectionInScope(ctx, addressed);
        if (active.body) {
          const parsed = active.body.safeParse(req.body ?? {});
          if (!parsed.success) throw zodToAppError(parsed.error);
          input.body = parsed.data;
        }
        let failed = true;
        try {
          result = await active.handler(ctx, input);
          failed = (result.status ?? 200) >= 400;
        } finally {
          if (route.method !== 'GET') written = await pipeline.afterWrite(ctx, failed ? 'failed' : 'succeeded');
        }
      }
      if (reply.sent) return reply;
      if (written) void reply.header('read-after', written);
      if (result.headers) for (const [k, v] of Object.entries(result.headers)) void reply.header(k, v);
      void reply.status(result.status ?? 200);
      if (result.json !== undefined) return reply.type('application/json; charset=utf-8').send(result.json);
      return result.body === undefined ? reply.send() : reply.send(result.body);
    },
  });
}
