import pino from 'pino';
import type { Logger } from '../logger.ts';
import { isUuid } from '../uuid.ts';
import type { ResponseObserver } from './response-observers.ts';

/** What pino writes to: the logger's own destination (the server's buffered one, src/logger.ts). */
interface Destination {
  write(line: string): unknown;
}

/**
 * One `info` line per request: method, route pattern (never the raw URL: it can carry filter values),
 * status, duration, request id and the project the caller named, nothing at all when the level is
 * above info.
 *
 * The line is pino's own (same level number, timestamp, bindings and destination, so it is a line of
 * the server log like any other), but it is put together here rather than by `logger.info({...})`:
 * on the cached published read, whose whole cost is a few dozen microseconds, pino's generic object
 * serialisation (a key walk with escaping checks per value, plus the log-method hook) was the largest
 * single item the access line added (BENCHMARKS.md, "Cost of the operations plugins"). Every value
 * here is known to need no JSON escaping, which is what makes the template safe: the method is an
 * HTTP token (Node's parser accepts nothing else), the route is one of the server's own patterns
 * (quoted once by JSON.stringify and remembered), the status and duration are numbers, the request id
 * matches src/http/request-id.ts's pattern or is a UUID, and the project is printed only when it is a UUID.
 */
export function accessLog(log: Logger): ResponseObserver | undefined {
  const access = log.child({ log: 'access' });
  if (!access.isLevelEnabled('info')) return undefined;
  const destination = (access as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Destination;
  const time = (access as unknown as Record<symbol, () => string>)[pino.symbols.timeSym];
  const bindings = (access as unknown as Record<symbol, string>)[pino.symbols.chindingsSym];
  const head = `{"level":${access.levels.values.info}`;
  const quotedRoutes = new Map<string, string>();
  return ({ method, route, status, ms, requestId, projectHeader }) => {
    let quoted = quotedRoutes.get(route);
    if (quoted === undefined) {
      quoted = JSON.stringify(route);
      // Patterns are a fixed set (unmatched requests share one name), so this stays small.
      if (quotedRoutes.size < 10_000) quotedRoutes.set(route, quoted);
    }
    const projectField = typeof projectHeader === 'string' && isUuid(projectHeader) ? `,"project":"${projectHeader}"` : '';
    destination.write(
      `${head}${time()}${bindings},"method":"${method}","route":${quoted},"status":${status},"ms":${Math.round(ms * 10) / 10},"reqId":"${requestId}"${projectField}}\n`,
    );
  };
}
