import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** What a caller's `x-request-id` may be: short and log-safe (no spaces, quotes or control characters). */
const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `x-request-id` when it is well formed (so a trace spans the
 * proxy, this server and the logs), else a fresh UUID. A malformed id is replaced, not refused:
 * tracing must never be the reason a request fails.
 */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && VALID.test(given) ? given : randomUUID();
}

/** Every response (REST, GraphQL, errors, 404s) carries the request id it was logged under. */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    void reply.header('x-request-id', req.id);
    done();
  });
}
