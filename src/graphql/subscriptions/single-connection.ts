import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { useGraphQLSSE } from '@graphql-yoga/plugin-graphql-sse';
import { TOKEN_HEADER_KEY, TOKEN_QUERY_KEY, type Response as SseResponse } from 'graphql-sse';
import { maskError } from '../errors.ts';

/**
 * The single-connection mode of GraphQL over SSE (graphql-sse's protocol, `/graphql/stream`): one
 * stream reserved with PUT, operations sent with POST and `x-graphql-event-stream-token`, all of a
 * client's subscriptions multiplexed over one GET stream. Served by `@graphql-yoga/plugin-graphql-sse`,
 * which runs operations through this Yoga's envelop (document and query limits, the resolvers'
 * `read` check, the hub's caps) but bypasses Yoga's request parsing, where the project's schema is
 * chosen and the request authenticated. So every request of the protocol is authenticated here first
 * (the same `admit` as /graphql: token, project, rate budget): an unauthenticated client cannot even
 * reserve a stream, and `choose` picks the project's typed schema for the operation's request.
 */
export interface SingleConnectionOptions {
  /** Authenticates a request (rejects with an AppError) and records its schema for onEnveloped. */
  choose: (request: Request, serverContext: unknown) => Promise<void>;
}

/** Answers a refused request as /graphql would: `{ errors: [{ message, extensions: { code } }] }`. */
function refusal(err: unknown): SseResponse {
  const e = maskError(err, 'Unexpected error.') as { message: string; extensions?: { code?: unknown; http?: { status?: number; headers?: Record<string, string> } } };
  const status = e.extensions?.http?.status ?? 500;
  const { http: _http, ...extensions } = e.extensions ?? {};
  return [JSON.stringify({ errors: [{ message: e.message, extensions }] }), { status, statusText: status === 429 ? 'Too Many Requests' : 'Refused', headers: { 'content-type': 'application/json; charset=utf-8', ...e.extensions?.http?.headers } }];
}

export function useSingleConnectionSse(opts: SingleConnectionOptions): Plugin[] {
  const serverContextOf = new WeakMap<Request, unknown>();
  const remember: Plugin = {
    onRequest({ request, serverContext }) {
      serverContextOf.set(request, serverContext);
    },
  };
  const sse = useGraphQLSSE({
    endpoint: '/graphql/stream',
    async authenticate(req) {
      try {
        await opts.choose(req.raw, serverContextOf.get(req.raw));
      } catch (err) {
        return refusal(err);
      }
      // graphql-sse's own default: the stream token of the request, or a new one for a reservation.
      return req.headers.get(TOKEN_HEADER_KEY) ?? new URL(req.url ?? '', 'http://localhost/').searchParams.get(TOKEN_QUERY_KEY) ?? randomUUID();
    },
  });
  return [remember, sse as Plugin];
}
