import type { FastifyInstance } from 'fastify';
import type { EdgeServices } from '../edge/services.ts';
import type { RateState } from '../edge/rate-limit.ts';

/**
 * The headers every response may carry, set by one `onSend` hook. They used to be four hooks (request
 * id, 401 challenge, rate budget, drain), and on the cached published read, whose whole cost is a
 * few dozen microseconds, each hook and each header set through its own call showed in the
 * benchmark (BENCHMARKS.md, "Cost of the operations plugins").
 * - `x-request-id`: the id the request was logged under (src/http/request-id.ts), on every response;
 * - `WWW-Authenticate: Bearer` on every 401 (RFC 6750);
 * - requests that drew on a rate budget: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`
 *   (seconds) and `RateLimit-Policy` (`<limit>;w=<window>`), 429s included (the IETF httpapi
 *   draft's separate-field form, as most gateways send it);
 * - `Connection: close` while the process drains (src/http/drain.ts), so a keep-alive client's
 *   connection ends with the response it was waiting for instead of being cut while idle.
 */
export function registerResponseHeaders(app: FastifyInstance, services: EdgeServices, draining: () => boolean): void {
  const { rateLimiter } = services;
  app.addHook('onSend', (req, reply, payload, done) => {
    const rate = rateLimiter.takeState(req.id);
    if (rate) {
      void reply.headers({ 'x-request-id': req.id, ...rateHeaders(rate) });
    } else {
      void reply.header('x-request-id', req.id);
    }
    if (reply.statusCode === 401 && !reply.hasHeader('www-authenticate')) void reply.header('www-authenticate', 'Bearer');
    if (draining()) void reply.header('connection', 'close');
    done(null, payload);
  });
}

/** The `RateLimit-*` fields of a budget's state, as every response that drew on one carries them (the early lanes included). */
export function rateHeaders(rate: RateState): Record<string, string | number> {
  return {
    'ratelimit-limit': rate.limit,
    'ratelimit-remaining': rate.remaining,
    'ratelimit-reset': rate.resetSeconds,
    'ratelimit-policy': `${rate.limit};w=${rate.windowSeconds}`,
  };
}
