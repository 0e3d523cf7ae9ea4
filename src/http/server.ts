import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import qs from 'qs';
import { authorize } from '../context.ts';
import { zodToAppError } from '../errors.ts';
import type { EdgeServices } from '../edge/services.ts';
import { admit, afterWrite } from '../edge/pipeline.ts';
import { admitEndUser } from '../edge/enduser.ts';
import { errorHandler } from './error-handler.ts';
import { allRoutes } from '../rest/index.ts';
import type { RouteDef, RestInput } from '../rest/route.ts';
import { mountGraphql } from '../graphql/yoga.ts';
import { mountMultipartRoutes, multipartRoutes } from '../rest/asset-routes.ts';

/**
 * Query strings are parsed the way PHP/Laravel clients send them (`where[or][0][title][eq]=a`),
 * with hard caps so a hostile query string cannot build a huge or deep object, and null-prototype
 * objects so keys like `__proto__` are plain data.
 */
export function parseQuery(str: string): Record<string, unknown> {
  return qs.parse(str, { depth: 8, arrayLimit: 100, parameterLimit: 500, plainObjects: true, allowPrototypes: false, strictDepth: false }) as Record<string, unknown>;
}

export async function buildServer(services: EdgeServices): Promise<FastifyInstance> {
  const app = Fastify({
    // Fastify's per-request access lines cost ~10 % of a cheap request; they show at debug level only.
    // Quieter levels (error, fatal, silent) are kept as configured.
    loggerInstance: services.log.child({}, { level: services.config.LOG_LEVEL === 'info' ? 'warn' : services.config.LOG_LEVEL }) as unknown as FastifyBaseLogger,
    bodyLimit: services.config.BODY_LIMIT_BYTES,
    routerOptions: { querystringParser: parseQuery, ignoreTrailingSlash: true, maxParamLength: 200 },
    requestIdHeader: 'x-request-id',
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((_req, reply) => void reply.status(404).send({ message: 'Not found.' }));

  // JSON bodies: an empty body is "no body" (clients send Content-Type on bodiless POSTs such as publish).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const err = new SyntaxError('The request body is not valid JSON.');
      done(err, undefined);
    }
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const checks: Record<string, string> = {};
    try {
      await services.database.query('SELECT 1');
      checks.database = 'ok';
    } catch {
      checks.database = 'down';
    }
    if (services.redis) {
      try {
        await services.redis.ping();
        checks.redis = 'ok';
      } catch {
        checks.redis = 'down';
      }
    }
    const ok = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  });

  // Upload routes live in their own scope so only they get the multipart parser.
  const scoped = new Set(multipartRoutes);
  for (const route of allRoutes) if (!scoped.has(route)) registerRoute(app, services, route);
  await app.register((scope) => mountMultipartRoutes(scope, services, registerRoute));
  await mountGraphql(app, services);
  return app;
}

function registerRoute(app: FastifyInstance, services: EdgeServices, route: RouteDef): void {
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
        readCache: services.readCache,
      };
      let result;
      if (route.auth === false && route.publicHandler) {
        result = await route.publicHandler(input);
      } else if (route.auth === 'enduser' && route.endUserHandler) {
        const headers = { projectId: req.headers['project-id'], authorization: req.headers.authorization, userAgent: req.headers['user-agent'] };
        result = await route.endUserHandler(await admitEndUser(services, { ...headers, ip: req.ip, requestId: req.id }), input);
      } else {
        const ctx = await admit(services, { projectId: req.headers['project-id'], authorization: req.headers.authorization, ip: req.ip, requestId: req.id }, route.bucket);
        // The table's ability is checked before any body or path validation, so a caller lacking it
        // always gets 403, never a 422 or 404 that reveals what exists (the operation checks again).
        if (route.ability) authorize(ctx, route.ability);
        if (route.body) {
          const parsed = route.body.safeParse(req.body ?? {});
          if (!parsed.success) throw zodToAppError(parsed.error);
          input.body = parsed.data;
        }
        try {
          result = await route.handler(ctx, input);
        } finally {
          if (route.method !== 'GET') afterWrite(services, ctx);
        }
      }
      if (reply.sent) return reply;
      if (result.headers) for (const [k, v] of Object.entries(result.headers)) void reply.header(k, v);
      void reply.status(result.status ?? 200);
      if (result.json !== undefined) return reply.type('application/json; charset=utf-8').send(result.json);
      return result.body === undefined ? reply.send() : reply.send(result.body);
    },
  });
}
