import { randomUUID } from 'node:crypto';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import { TOKEN_HEADER_KEY, TOKEN_QUERY_KEY, type RequestParams, type Response as SseResponse } from 'graphql-sse';
import { maskError, type GraphQLLogger } from '../plugins/result/mask-error.ts';
import { clientErrors, refusalStatus } from '../plugins/result/use-http-statuses.ts';

/**
 * `/graphql/stream`: GraphQL over SSE in graphql-sse's protocol, both its modes. Single connection:
 * one stream reserved with PUT, opened with GET, operations sent with POST and
 * `x-graphql-event-stream-token`, all of a client's subscriptions multiplexed over the one stream.
 * Distinct connections: a GET or POST with `Accept: text/event-stream` and no stream token is one
 * operation and its own stream.
 *
 * graphql-sse runs the protocol; every operation runs through `yoga.getResultForParams`, the very
 * pipeline of `/graphql` after its request parsing: the gate (src/graphql/plugins/request/gate.ts: credentials,
 * budgets, trusted documents and persisted queries, document limits), validation, depth and cost,
 * then the resolvers with their abilities. An operation refused before it runs (no data) is answered
 * as `/graphql` answers it, `{ errors: [{ message, extensions: { code } }] }` with the error's status;
 * its results otherwise go to the stream. Requests that carry no operation (reserving, opening or
 * cancelling a stream) are authenticated and charged the same way, and a stream needs `read`.
 */
export interface StreamOptions {
  /** Credentials and budget of a request of the protocol (rejects with an AppError). */
  credentials: (request: Request, serverContext: unknown) => Promise<void>;
  /** What a stream itself needs (rejects with an AppError): checked when one is reserved or opened. */
  streamAccess: (request: Request, serverContext: unknown) => Promise<void>;
  log: GraphQLLogger;
}

/** Answers a refused request as /graphql would: `{ errors: [...] }` with the worst error's status and headers. */
function refusal(errors: readonly GraphQLError[]): SseResponse {
  const { status, headers } = refusalStatus(errors);
  const body = JSON.stringify({ errors: clientErrors(errors) });
  return [body, { status, statusText: status === 429 ? 'Too Many Requests' : 'Refused', headers: { 'content-type': 'application/json; charset=utf-8', ...headers } }];
}

/** graphql-sse insists on a `query` in every operation; one named by its persisted-query hash gets an empty one, which the gate resolves. */
async function withDocumentSlot(request: Request): Promise<Request> {
  if (request.method === 'GET') {
    const url = new URL(request.url);
    if (!url.searchParams.has('extensions') || url.searchParams.has('query')) return request;
    url.searchParams.set('query', '');
    return new Request(url, request);
  }
  if (request.method !== 'POST' || !(request.headers.get('content-type') ?? '').includes('application/json')) return request;
  const text = await request.text();
  let body = text;
  try {
    const data = JSON.parse(text) as unknown;
    if (data && typeof data === 'object' && !Array.isArray(data) && (data as { query?: unknown }).query == null) {
      body = JSON.stringify({ ...data, query: '' });
    }
  } catch {
    // graphql-sse answers an unreadable body itself
  }
  return new Request(request.url, { method: 'POST', headers: request.headers, body, signal: request.signal });
}

/** Reserving a stream (PUT) or opening a reserved one (GET with its token); any other request carries an operation. */
function opensStream(request: Request): boolean {
  if (request.method === 'PUT') return true;
  if (request.method !== 'GET' || request.headers.get('accept') !== 'text/event-stream') return false;
  return request.headers.has(TOKEN_HEADER_KEY) || new URL(request.url).searchParams.has(TOKEN_QUERY_KEY);
}

export function useGraphqlStream(opts: StreamOptions): Plugin {
  const serverContextOf = new WeakMap<Request, unknown>();
  let handler: ((request: Request) => Promise<Response>) | undefined;
  /** Yoga's error handling for an error thrown before a result exists: the mask, and a log line for unexpected ones. */
  const masked = (err: unknown): GraphQLError => {
    const error = maskError(err, 'Unexpected error.');
    if (error !== err) opts.log.error(err);
    return error;
  };
  return {
    onYogaInit({ yoga }) {
      const server = yoga as unknown as YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
      handler = createHandler(
        {
          async authenticate(req) {
            try {
              await opts.credentials(req.raw, serverContextOf.get(req.raw));
              if (opensStream(req.raw)) await opts.streamAccess(req.raw, serverContextOf.get(req.raw));
            } catch (err) {
              return refusal([masked(err)]);
            }
            // graphql-sse's own default: the stream token of the request, or a new one for a reservation.
            return req.headers.get(TOKEN_HEADER_KEY) ?? new URL(req.url ?? '', 'http://localhost/').searchParams.get(TOKEN_QUERY_KEY) ?? randomUUID();
          },
          async onSubscribe(req, params: RequestParams) {
            let result: ExecutionResult | AsyncIterable<ExecutionResult>;
            try {
              result = (await server.getResultForParams({ params, request: req.raw }, serverContextOf.get(req.raw) as Record<string, unknown>)) as typeof result;
            } catch (err) {
              return refusal([masked(err)]);
            }
            if (isAsyncIterable(result)) return result;
            // Refused before it ran (or nothing of it ran): answered now, with its status, as /graphql does.
            if (result.data === undefined || result.data === null) return refusal(result.errors ?? []);
            return result;
          },
          // Results go out as /graphql sends them: Yoga's internal `extensions.http` never reaches a body.
          onNext: (_ctx, _req, result) => (result.errors?.length ? { ...result, errors: clientErrors(result.errors) as unknown as GraphQLError[] } : undefined),
        },
        yoga.fetchAPI,
      );
    },
    async onRequest({ request, endResponse, serverContext }) {
      const [path] = request.url.split('?');
      if (!path?.endsWith('/graphql/stream') || !handler) return;
      const slotted = await withDocumentSlot(request);
      serverContextOf.set(slotted, serverContext);
      endResponse(await handler(slotted));
    },
  };
}
