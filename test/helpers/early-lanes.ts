/**
 * For tests of the early lanes (src/http/cached-reads.ts, src/http/cached-graphql-posts.ts), which
 * answer repeated cached reads before Fastify routes them: the tests count routed requests with an
 * onRequest hook and compare an early answer with the full path's.
 */

/**
 * Repeats a request until it is answered early: the authentication cache must hold the token (its
 * change feed connects after start) and this replica a rate lease with points left (a refill asks
 * Redis, so it goes through the router). Gives the last answer after 10 s.
 */
export async function untilAnsweredEarly<T extends { routed: boolean }>(send: () => Promise<T>): Promise<T> {
  for (const deadline = Date.now() + 10_000; ; ) {
    const r = await send();
    if (!r.routed || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An answer's headers without those that differ per request (date, request id, rate-limit state). */
export function comparableHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset'].includes(k)) out[k] = v;
  });
  return out;
}
