import type { Ctx } from '../context.ts';
import { RESERVED_SLUGS } from '../collections/operations.ts';
import { projectHasCollection } from '../collections/schema-cache.ts';
import type { RestResult, RouteDef } from './route.ts';

/**
 * Fixed routes whose first segment became a reserved collection slug after projects could already
 * have a collection of that name (`/api/releases`, ...). Such a project keeps its collection's routes:
 * for it, a request to one of these fixed routes is served by the collection route the path matches
 * (`/api/:collection...`, with the collection's own ability and body rules), exactly as before the
 * fixed route existed, and a path only the fixed routes know is a 404. Every other project gets the
 * fixed route. The project reaches the feature through GraphQL and the CLI until it renames the
 * collection (docs/releases.md).
 */

const segments = (url: string) => url.split('?')[0].split('/').filter(Boolean);

/**
 * The collection route of the table that serves `method path`, preferring fixed segments to
 * parameters from the left (as the router does), with its path parameters.
 */
export function collectionRouteFor(routes: RouteDef[], method: string, path: string): { route: RouteDef; params: Record<string, string> } | null {
  const parts = segments(path).map((p) => decodeURIComponent(p));
  let best: { route: RouteDef; params: Record<string, string>; rank: string } | null = null;
  for (const route of routes) {
    if (route.method !== method || !route.url.startsWith('/api/:collection') || route.reservedSlug) continue;
    const pattern = segments(route.url);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let rank = '';
    let ok = true;
    for (const [i, seg] of pattern.entries()) {
      if (seg.startsWith(':')) {
        params[seg.slice(1)] = parts[i];
        rank += '0';
      } else if (seg === parts[i]) {
        rank += '1';
      } else {
        ok = false;
        break;
      }
    }
    if (ok && (!best || rank > best.rank)) best = { route, params, rank };
  }
  return best && { route: best.route, params: best.params };
}

/**
 * The route that serves a request to `route` for this project: the route itself, or (a fixed route
 * under a reserved slug the project uses as a collection) the collection's route, or null (404).
 */
export async function routeForProject(ctx: Ctx, routes: RouteDef[], route: RouteDef, method: string, path: string): Promise<{ route: RouteDef; params?: Record<string, string> } | null> {
  if (!route.reservedSlug || !(await projectHasCollection(ctx, route.reservedSlug))) return { route };
  return collectionRouteFor(routes, method, path);
}

const isCatchAll = (route: RouteDef) => route.url.startsWith('/api/:collection');

/** The methods of the table's fixed routes (not the `/api/:collection` catch-alls) whose pattern matches `path`. */
export function fixedMethodsFor(routes: RouteDef[], path: string): string[] {
  const parts = segments(path);
  const methods = new Set<string>();
  for (const route of routes) {
    if (isCatchAll(route)) continue;
    const pattern = segments(route.url);
    if (pattern.length === parts.length && pattern.every((seg, i) => seg.startsWith(':') || seg === parts[i])) methods.add(route.method);
  }
  return [...methods];
}

/**
 * A request a catch-all route matched although its first segment is a reserved slug (`PATCH
 * /api/webhooks/{id}`, `GET /api/releases/{id}/x`): it names a fixed path, not a collection, so it
 * never gets a collection's answer. 405 with `Allow` when the fixed path exists with other methods,
 * 404 when it does not (as the router answers any other unknown path). Null when the route serves it:
 * the slug is not reserved, or the project kept a collection of that slug from before it was.
 * A slug older projects may hold as a collection (a fixed route's `reservedSlug`) needs the project
 * to decide: without `hasCollection` (before authentication) the answer waits for it (null).
 */
export async function fixedPathAnswer(
  routes: RouteDef[],
  request: { route: RouteDef; method: string; path: string; slug: string | undefined },
  hasCollection?: (slug: string) => Promise<boolean>,
): Promise<RestResult | null> {
  const { route, method, path, slug } = request;
  if (!isCatchAll(route) || slug === undefined || !(RESERVED_SLUGS as readonly string[]).includes(slug)) return null;
  if (routes.some((r) => r.reservedSlug === slug) && (!hasCollection || (await hasCollection(slug)))) return null;
  const allowed = fixedMethodsFor(routes, path);
  if (allowed.length === 0) return { status: 404, body: { message: 'Not found.' } };
  // HEAD comes with every GET (Fastify adds it), OPTIONS with every path (CORS), as the router's own 405 lists them.
  const allow = [...new Set([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].join(', ');
  return { status: 405, headers: { allow }, body: { message: `The ${method} method is not allowed here; allowed: ${allow}.` } };
}

/** `fixedPathAnswer` once the project is known: a legacy collection of the slug keeps its routes. */
export const fixedPathAnswerFor = (ctx: Ctx, routes: RouteDef[], request: Parameters<typeof fixedPathAnswer>[1]) =>
  fixedPathAnswer(routes, request, (slug) => projectHasCollection(ctx, slug));
