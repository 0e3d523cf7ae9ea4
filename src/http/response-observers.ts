import type { FastifyInstance } from 'fastify';

/**
 * What one finished request tells its observers (the access log, the HTTP histogram): the route
 * pattern (never the raw URL) and its duration. Plain values, so a request answered before routing
 * (src/http/cached-reads.ts) is observed exactly like one Fastify answered.
 */
export interface FinishedRequest {
  method: string;
  /** The matched route pattern, or `(unmatched)`. */
  route: string;
  status: number;
  ms: number;
  requestId: string;
  /** The `project-id` header as sent (observers decide what of it they show). */
  projectHeader: string | string[] | undefined;
}

export type ResponseObserver = (finished: FinishedRequest) => void;

/** The observers that are on (an access log above its level is `undefined`), as one call. */
export function combineObservers(observers: Array<ResponseObserver | undefined>): ResponseObserver | undefined {
  const active = observers.filter((o): o is ResponseObserver => o !== undefined);
  if (active.length === 0) return undefined;
  if (active.length === 1) return active[0];
  return (finished) => {
    for (const observe of active) observe(finished);
  };
}

/**
 * One `onResponse` hook for everything that watches finished requests: the route pattern and the
 * duration are read once (`routeOptions` builds a new object on each read) and handed to each observer.
 */
export function registerResponseObservers(app: FastifyInstance, observe: ResponseObserver | undefined): void {
  if (!observe) return;
  app.addHook('onResponse', (req, reply, done) => {
    observe({
      method: req.method,
      route: req.routeOptions.url ?? '(unmatched)',
      status: reply.statusCode,
      ms: reply.elapsedTime,
      requestId: req.id,
      projectHeader: req.headers['project-id'],
    });
    done();
  });
}
