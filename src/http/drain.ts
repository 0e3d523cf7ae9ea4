import { Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { EdgeServices } from '../edge/services.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** True once the process has begun to shut down (src/main.ts): readiness fails, connections close. */
    readonly draining: boolean;
    /** Starts the drain; the listener itself closes with `app.close()`. */
    beginDrain(): void;
    /**
     * Closes the listening socket only. Node's http `server.close()` (which `app.close()` calls)
     * also destroys every connection without a request in progress, including one accepted a moment
     * ago whose request is still on its way: that client would see a reset. Closing the listener
     * first, and `app.close()` a little later, lets those requests arrive and be answered.
     */
    stopAccepting(): Promise<void>;
  }
}

/**
 * Health, readiness and the drain flag. While draining, /readyz answers 503 (load balancers stop
 * sending) and every response carries `Connection: close` (src/http/response-headers.ts), so a
 * client's keep-alive connection ends with the response it was waiting for instead of being cut
 * while idle and reused.
 *
 * Readiness answers "can this replica serve?": PostgreSQL is required (503 without it), asked on a
 * connection of its own (`Database.ping`) so a pool taken by requests reads as busy, not down; Redis only
 * carries shared rate limits, the delivery queue and cache invalidation, each with an in-process
 * fallback, so Redis down is `200` with `redis: "degraded"` rather than pulling a working replica.
 * Database read replicas likewise: reads fall back to the primary, so their state (`replicas`, each
 * with its status and lag) is reported and never makes the answer 503.
 */
export function registerHealth(app: FastifyInstance, services: EdgeServices): void {
  let draining = false;
  app.decorate('draining', { getter: () => draining });
  app.decorate('beginDrain', () => {
    draining = true;
    // Live streams never finish by themselves: they end now (clients reconnect elsewhere with
    // Last-Event-ID) so the listener's close is not held up by them.
    void services.live.close();
  });
  app.decorate('stopAccepting', () => new Promise<void>((resolve) => NetServer.prototype.close.call(app.server, () => resolve())));

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const checks: Record<string, string> = {};
    try {
      // Its own connection where there is one: a saturated pool is busy, not down.
      await (services.database.ping ? services.database.ping() : services.database.query('SELECT 1'));
      checks.database = 'ok';
    } catch {
      checks.database = 'down';
    }
    if (services.redis) checks.redis = await redisState(services);
    if (draining) checks.process = 'draining';
    const ready = checks.database === 'ok' && !draining;
    // Replicas never make a replica unready: reads fall back to the primary. Their state is for operators.
    const replicas = services.replicas?.states().map((r) => ({ name: r.name, status: r.status, lagMs: r.lagMs }));
    if (replicas) checks.replicas = replicas.every((r) => r.status === 'up') ? 'ok' : replicas.some((r) => r.status === 'up') ? 'degraded' : 'primary-only';
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks, ...(replicas ? { replicas } : {}) });
  });
}

async function redisState(services: EdgeServices): Promise<string> {
  try {
    await services.redis!.ping();
    return 'ok';
  } catch {
    return 'degraded';
  }
}
