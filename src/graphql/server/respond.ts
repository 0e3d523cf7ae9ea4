import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConditionalGets } from '../plugins/result/use-http-caching.ts';
import { liveBodyOf } from '../subscriptions/sse.ts';

/**
 * Sends Yoga's answer to `/graphql` through Fastify. Single JSON answers are sent as the string Yoga
 * built: piping its body stream through Fastify cost a Readable, a pipe and their listeners per
 * request for one chunk (BENCHMARKS.md, "Uncached reads"); a GET's is tagged and answered 304 when
 * the client holds it (conditional GETs, ../plugins/result/use-http-caching.ts). GraphiQL's page,
 * multipart and event streams pass through.
 */
export async function sendYogaResponse(response: Response, req: FastifyRequest, reply: FastifyReply, conditionalGets: ConditionalGets): Promise<FastifyReply> {
  response.headers.forEach((value, key) => void reply.header(key, value));
  if (/json/.test(response.headers.get('content-type') ?? '')) {
    const body = await response.text();
    if (req.method === 'GET' && response.status === 200) {
      const cached = conditionalGets.conditional(req, response.status, body);
      for (const [key, value] of Object.entries(cached?.headers ?? {})) void reply.header(key, value);
      void reply.status(cached?.status ?? 200);
      return cached?.status === 304 ? reply.send() : reply.send(body);
    }
    return reply.status(response.status).send(body);
  }
  void reply.status(response.status);
  // A live stream's body is the Node stream the hub writes to (src/graphql/subscriptions/sse.ts).
  return reply.send(liveBodyOf(response) ?? response.body);
}
