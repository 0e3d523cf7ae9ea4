import type { Logger } from '../logger.ts';
import { isUuid } from '../uuid.ts';
import type { ResponseObserver } from './response-observers.ts';

/**
 * One `info` line per request: method, route pattern (never the raw URL: it can carry filter values),
 * status, duration, request id and the project the caller named. Fastify's own request lines are off
 * (`disableRequestLogging`); this is one pino call on a child made once, with a handful of fields,
 * written through the server's buffered destination (src/logger.ts), and nothing at all when the
 * level is above info.
 */
export function accessLog(log: Logger): ResponseObserver | undefined {
  const access = log.child({ log: 'access' });
  if (!access.isLevelEnabled('info')) return undefined;
  return ({ req, reply, route, ms }) => {
    const project = req.headers['project-id'];
    access.info({
      method: req.method,
      route,
      status: reply.statusCode,
      ms: Math.round(ms * 10) / 10,
      reqId: req.id,
      project: typeof project === 'string' && isUuid(project) ? project : undefined,
    });
  };
}
