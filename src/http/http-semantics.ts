import type { FastifyInstance, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';
import type { EdgeServices } from '../edge/services.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The HTTP details clients and proxies rely on, in one place (the error shapes stay in
 * error-handler.ts):
 * - a path that exists with another method answers 405 with `Allow` (a bare OPTIONS answers 204
 *   with `Allow`); a path that does not exist, 404. Fastify's router only says "no match", so a
 *   second router, fed by onRoute with the same options, knows which methods each path has.
 * - every 401 carries `WWW-Authenticate: Bearer` (RFC 6750).
 * - requests that drew on a rate budget carry `RateLimit-Limit`, `RateLimit-Remaining`,
 *   `RateLimit-Reset` (seconds) and `RateLimit-Policy` (`<limit>;w=<window>`), 429s included
 *   (the IETF httpapi draft's separate-field form, as most gateways send it).
 * Register before any route, so onRoute sees them all.
 */
export function registerHttpSemantics(app: FastifyInstance, services: EdgeServices, routerOptions: { ignoreTrailingSlash: boolean; maxParamLength: number }): void {
  const known = FindMyWay({ ...routerOptions, defaultRoute: () => {} });
  app.addHook('onRoute', (route) => {
    // A catch-all (the CORS plugin's `OPTIONS *`) says nothing about which paths exist.
    if (route.url === '*' || route.url === '/*') return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethods[];
    for (const method of methods) {
      if (!(METHODS as readonly string[]).includes(method)) continue;
      if (known.hasRoute(method as 'GET', route.url)) continue;
      known.on(method as 'GET', route.url, () => {});
    }
  });

  const allowedOn = (url: string): string[] => {
    const path = url.split('?')[0]!;
    return METHODS.filter((m) => known.find(m, path) !== null);
  };

  app.setNotFoundHandler((req, reply) => {
    const allow = allowedOn(req.url);
    if (allow.length === 0) return reply.status(404).send({ message: 'Not found.' });
    const header = [...new Set([...allow, 'OPTIONS'])].join(', ');
    if (req.method === 'OPTIONS') return reply.status(204).header('allow', header).send();
    return reply.status(405).header('allow', header).send({ message: `The ${req.method} method is not allowed here; allowed: ${header}.` });
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    if (reply.statusCode === 401 && !reply.hasHeader('www-authenticate')) void reply.header('www-authenticate', 'Bearer');
    const rate = services.rateLimiter.takeState(req.id);
    if (rate) {
      void reply.header('ratelimit-limit', rate.limit);
      void reply.header('ratelimit-remaining', rate.remaining);
      void reply.header('ratelimit-reset', rate.resetSeconds);
      void reply.header('ratelimit-policy', `${rate.limit};w=${rate.windowSeconds}`);
    }
    done(null, payload);
  });
}
