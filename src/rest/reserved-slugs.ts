import type { Ctx } from '../context.ts';
import { projectHasCollection } from '../collections/schema-cache.ts';
import type { RouteDef } from './route.ts';

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
