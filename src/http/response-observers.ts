import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What one finished request tells its observers: the route pattern (never the raw URL) and its duration. */
export interface FinishedRequest {
  req: FastifyRequest;
  reply: FastifyReply;
  /** The matched route pattern, or `(unmatched)`. */
  route: string;
  ms: number;
}

export type ResponseObserver = (finished: FinishedRequest) => void;

/**
 * One `onResponse` hook for everything that watches finished requests (the access log, the HTTP
 * histogram): the route pattern and the duration are read once (`routeOptions` builds a new object
 * on each read) and handed to each observer.
 */
export function registerResponseObservers(app: FastifyInstance, observers: Array<ResponseObserver | undefined>): void {
  const active = observers.filter((o): o is ResponseObserver => o !== undefined);
  if (active.length === 0) return;
  app.addHook('onResponse', (req, reply, done) => {
    const finished: FinishedRequest = { req, reply, route: req.routeOptions.url ?? '(unmatched)', ms: reply.elapsedTime };
    for (const observe of active) observe(finished);
    done();
  });
}
