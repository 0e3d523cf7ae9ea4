import type { Plugin } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import type { LiveSubscription } from '../../live/subscription.ts';
import type { OutboxChange } from '../../live/stream.ts';

/**
 * Live subscriptions over Server-Sent Events (the distinct-connections mode of GraphQL over SSE, as
 * Yoga speaks it: `event: next` / `event: complete`), with what Yoga's own writer lacks:
 * - `id: <outbox id>` on every event, so a reconnecting client (EventSource does this by itself)
 *   sends `Last-Event-ID` and receives exactly what it missed;
 * - `event: reset` when the server cannot resume (past the window, or the client fell behind);
 * - a final `next` carrying the error when the token is revoked or loses `read`;
 * - heartbeats (`:` comments) every LIVE_HEARTBEAT_MS, which also surface a dead connection.
 */

const liveOf = new WeakMap<Request, LiveSubscription>();

/** The subscription a request's result streams (set by the subscribe resolvers). */
export function attachLive(request: Request, sub: LiveSubscription): void {
  liveOf.set(request, sub);
}

/** The `Last-Event-ID` header, when a client resumes. */
export const lastEventIdOf = (request: Request): string | undefined => request.headers.get('last-event-id') ?? undefined;

/**
 * Maps a subscription's changes to payloads; `map` answers null to skip one (a typed `where` that
 * does not match). Hand-written rather than an async generator: `return()` must end the subscription
 * at once even while `next()` waits for a change, which a suspended generator cannot do.
 */
export function liveResults<T>(request: Request, sub: LiveSubscription, map: (change: OutboxChange) => Promise<T | null>): AsyncIterableIterator<T> {
  attachLive(request, sub);
  const source = sub[Symbol.asyncIterator]();
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      for (;;) {
        const r = await source.next();
        if (r.done) return { done: true, value: undefined };
        const value = await map(r.value);
        if (value === null) continue;
        sub.lastDelivered = r.value.id;
        return { done: false, value };
      }
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

const accepts = (request: Request) => (request.headers.get('accept') ?? '').includes('text/event-stream');

/** Errors as the client sees them: internal extensions (`http`) stay on the server, as Yoga does. */
function stringify(result: ExecutionResult): string {
  return JSON.stringify(result, (key, value) => (key === 'http' ? undefined : value));
}

export function useLiveSse(opts: { heartbeatMs: number }): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      const sub = liveOf.get(request);
      if (!sub || !accepts(request) || !(Symbol.asyncIterator in Object(result))) return;
      setResultProcessor((res, fetchAPI) => {
        const enc = new fetchAPI.TextEncoder();
        const iterator = (res as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator]();
        let heartbeat: NodeJS.Timeout | undefined;
        const body = new fetchAPI.ReadableStream<Uint8Array>({
          start(controller) {
            // Some browsers wait for a first byte before they report the stream open.
            controller.enqueue(enc.encode(':\n\n'));
            heartbeat = setInterval(() => {
              if (controller.desiredSize === null) clearInterval(heartbeat);
              else controller.enqueue(enc.encode(':\n\n'));
            }, opts.heartbeatMs);
            heartbeat.unref();
          },
          async pull(controller) {
            const r = await iterator.next();
            if (!r.done) {
              const id = sub.lastDelivered !== undefined ? `id: ${sub.lastDelivered}\n` : '';
              controller.enqueue(enc.encode(`${id}event: next\ndata: ${stringify(r.value)}\n\n`));
              return;
            }
            const end = sub.ended;
            if (end?.kind === 'reset') controller.enqueue(enc.encode(`event: reset\ndata: ${JSON.stringify({ reason: end.reason })}\n\n`));
            if (end?.kind === 'error') {
              const status = end.code === 'FORBIDDEN' ? 403 : 401;
              controller.enqueue(enc.encode(`event: next\ndata: ${JSON.stringify({ errors: [{ message: end.message, extensions: { code: end.code, status } }] })}\n\n`));
            }
            controller.enqueue(enc.encode('event: complete\ndata:\n\n'));
            clearInterval(heartbeat);
            controller.close();
          },
          async cancel() {
            clearInterval(heartbeat);
            await iterator.return?.();
          },
        });
        return new fetchAPI.Response(body, {
          status: 200,
          // `X-Accel-Buffering: no` keeps nginx-style proxies from holding events back; compression
          // skips text/event-stream (src/http/compression.ts).
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
        });
      }, 'text/event-stream');
    },
  };
}
