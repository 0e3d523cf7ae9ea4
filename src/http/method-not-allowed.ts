import type { FastifyInstance, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * 405 versus 404: a path that exists with another method answers 405 with `Allow` (a bare OPTIONS
 * answers 204 with `Allow`); a path that does not exist, 404. Fastify's router only says "no
 * match", so a second router, fed by onRoute with the same options, knows which methods each path
 * has. (The error shapes are in error-handler.ts, the per-response headers in response-headers.ts.)
 * Register before any route, so onRoute sees them all.
 */
export function registerMethodNotAllowed(app: FastifyInstance, routerOptions: { ignoreTrailingSlash: boolean; maxParamLength: number }): void {
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
}
