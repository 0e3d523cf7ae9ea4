import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a caller's `x-request-id` may be: short and log-safe (no spaces, quotes or control characters). */
const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `x-request-id` when it is well formed (so a trace spans the
 * proxy, this server and the logs), else a fresh UUID. A malformed id is replaced, not refused:
 * tracing must never be the reason a request fails. Every response echoes it
 * (src/http/response-headers.ts).
 */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && VALID.test(given) ? given : randomUUID();
}
