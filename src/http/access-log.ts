import type { FastifyInstance } from 'fastify';
import type { Logger } from '../logger.ts';
import { isUuid } from '../uuid.ts';

/**
 * One `info` line per request: method, route pattern (never the raw URL: it can carry filter values),
 * status, duration, request id and the project the caller named. Fastify's own request lines are off
 * (`disableRequestLogging`); this is one pino call on a child made once, with a handful of fields,
 * and nothing at all when the level is above info.
 */
export function registerAccessLog(app: FastifyInstance, log: Logger): void {
  const access = log.child({ log: 'access' });
  if (!access.isLevelEnabled('info')) return;
  app.addHook('onResponse', (req, reply, done) => {
    const project = req.headers['project-id'];
    access.info({
      method: req.method,
      route: req.routeOptions.url ?? '(unmatched)',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      reqId: req.id,
      project: typeof project === 'string' && isUuid(project) ? project : undefined,
    });
    done();
  });
}
