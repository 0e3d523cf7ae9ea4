import { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Plugin } from 'graphql-yoga';
import type { LiveBatch, LiveSink, LiveSubscription, Rendition } from '../../live/subscription.ts';
import type { GraphQLContext } from '../context.ts';

/**
 * Live subscriptions over Server-Sent Events (the distinct-connections mode of GraphQL over SSE, as
 * Yoga speaks it: `event: next` / `event: complete`), with what Yoga's own writer lacks:
 * - `id: <outbox id>` on every event, so a reconnecting client (EventSource does this by itself)
 *   sends `Last-Event-ID` and receives exactly what it missed;
 * - `event: reset` when the server cannot resume (past the window, or the client fell behind);
 * - a final `next` carrying the error when the token is revoked or loses `read`;
 * - heartbeats (`:` comments) every LIVE_HEARTBEAT_MS, which also surface a dead connection.
 *
 * The hub pushes each member's events to the response (src/graphql/server/respond.ts sends `liveBodyOf` as the
 * body): one frame per event, encoded once per group and written to every member as the same Buffer,
 * with no per-event promise, web stream or JSON work per subscriber. While the socket does not take
 * more, events wait in the member's bounded queue (LIVE_MAX_QUEUE, LIVE_MAX_QUEUE_BYTES), and past it
 * the member gets `reset`.
 */

const liveOf = new WeakMap<Request, LiveSubscription>();
const bodies = new WeakMap<Response, Readable>();

/** The subscription a request's result streams (set by the subscribe resolvers). */
export function attachLive(request: Request, sub: LiveSubscription): void {
  liveOf.set(request, sub);
}

/** The Node stream to send as a live response's body, or undefined for any other response. */
export const liveBodyOf = (response: Response): Readable | undefined => bodies.get(response);

/**
 * Where a client resumes from: the `Last-Event-ID` header (distinct mode; EventSource sends it by
 * itself), or the operation's `extensions.lastEventId` (the single-connection mode, whose stream
 * carries no event ids of ours: the client takes the last `id` field of the payloads it received).
 */
export function lastEventIdOf(c: GraphQLContext): string | undefined {
  const header = c.request.headers.get('last-event-id');
  if (header !== null) return header;
  const extensions = (c as { params?: { extensions?: Record<string, unknown> } }).params?.extensions;
  const id = extensions?.lastEventId;
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : undefined;
}

const accepts = (request: Request) => (request.headers.get('accept') ?? '').includes('text/event-stream');

const HEARTBEAT = Buffer.from(':\n\n');
const COMPLETE = Buffer.from('event: complete\ndata:\n\n');

/** The SSE frame of one event, made once per rendition and shared by every member that receives it. */
const frameOf = (r: Rendition): Buffer => (r.encoded ??= Buffer.from(`id: ${r.id}\nevent: next\ndata: ${r.json}\n\n`));

/** The frames of a group's batch as one Buffer, made once per batch and shared by every member that receives it. */
const framesOf = (b: LiveBatch): Buffer => (b.encoded ??= b.renditions.length === 1 ? frameOf(b.renditions[0]) : Buffer.concat(b.renditions.map(frameOf)));

/**
 * Bodies with frames waiting for the next flush. Frames are not written as they are handed over but
 * once per turn of the event loop for all bodies together: a member handed several events in one
 * turn (a pass of the change stream that released several changes, a resume's backlog) sends them in
 * one write, and a turn costs one scheduled callback, not one per socket as the response's own
 * per-write cork would (bench/live.ts).
 */
let pending: SseBody[] = [];
let flushScheduled = false;

function flushAll(): void {
  flushScheduled = false;
  const bodies = pending;
  pending = [];
  for (const b of bodies) {
    // One body failing must not leave the others' frames unsent (they would wait for ever).
    try {
      b.flush();
    } catch (err) {
      b.destroy(err as Error);
    }
  }
}

/**
 * The body Fastify sends. It is a Readable only so that Fastify's lifecycle runs as for any stream
 * (onSend hooks, then `pipe`, and `destroy` when the client goes away); `pipe` hands it the response,
 * and after the headers the frames go to the response's socket directly, without the stream
 * machinery, the response's per-write cork, or a promise per event. The response is close-delimited
 * rather than chunked (HTTP/1.1 allows it for a body that ends with the connection): its body is the
 * bytes on the socket, so writing them there is the same stream. Backpressure is the socket's: once
 * its buffer and this turn's frames pass its high-water mark, `write` answers false and the member
 * waits (its bounded queue takes over) until the socket drains.
 */
class SseBody extends Readable implements LiveSink {
  private heartbeat?: NodeJS.Timeout;
  private out?: NodeJS.WritableStream;
  /** The connection, when the response is a plain Node one (a test's injected response is not). */
  private socket?: Socket;
  /**
   * Frames for the next flush, and their bytes. The usual turn hands a subscriber one frame, kept
   * without an array (100,000 a second under bench/live.ts: an array each was garbage to collect).
   */
  private frame?: Buffer;
  private more?: Buffer[];
  private frameBytes = 0;
  /** `write` answered false: the member waits for `sub.drained()`. */
  private blocked = false;
  private finished = false;

  constructor(
    private readonly sub: LiveSubscription,
    private readonly heartbeatMs: number,
  ) {
    super();
  }

  override pipe<T extends NodeJS.WritableStream>(dest: T): T {
    const res = dest as unknown as ServerResponse;
    // Sets Node's "no transfer-encoding" flag: the body is then the bytes written, ended by close.
    if (typeof res.removeHeader === 'function' && !res.headersSent) res.removeHeader('transfer-encoding');
    this.out = dest;
    // Flowing, so that push(null) ends it and Fastify, watching it, ends the response.
    this.resume();
    // Some browsers wait for a first byte before they report the stream open. Written through the
    // response, which sends the headers with it; what follows may then go to the socket behind them.
    dest.write(HEARTBEAT);
    const socket = res instanceof ServerResponse && !res.chunkedEncoding && res.socket instanceof Socket ? res.socket : undefined;
    if (socket) {
      this.socket = socket;
      socket.on('drain', () => this.unblock());
    } else dest.on('drain', () => this.unblock());
    this.heartbeat = setInterval(() => this.send(HEARTBEAT), this.heartbeatMs);
    this.heartbeat.unref();
    this.sub.attach(this);
    return dest;
  }

  override _read(): void {}

  write(r: Rendition): boolean {
    if (this.finished || !this.out) return true;
    const ok = this.send(frameOf(r));
    if (!ok) this.blocked = true;
    return ok;
  }

  /**
   * A group's batch, written to the socket now: it comes from the group's own once-per-turn write
   * (src/live/group.ts), so waiting for this turn's flush would only add a pass over every member.
   * Behind frames already waiting for the flush (a resume's backlog), it joins them instead.
   */
  writeBatch(batch: LiveBatch): boolean {
    if (this.finished || !this.out) return true;
    const frames = framesOf(batch);
    const socket = this.socket;
    let ok: boolean;
    if (!socket || this.frame !== undefined) ok = this.send(frames);
    else ok = socket.destroyed || socket.write(frames);
    if (!ok) this.blocked = true;
    return ok;
  }

  /** Queues a frame for this turn's flush; false when the connection holds enough unsent. */
  private send(frame: Buffer): boolean {
    if (!this.socket) return this.out!.write(frame);
    if (this.frame === undefined) {
      this.frame = frame;
      pending.push(this);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushAll);
      }
    } else (this.more ??= []).push(frame);
    this.frameBytes += frame.length;
    return this.socket.writableLength + this.frameBytes < this.socket.writableHighWaterMark;
  }

  /** Writes this turn's frames in one write. */
  flush(): void {
    const first = this.frame;
    if (first === undefined) return;
    const more = this.more;
    this.frame = undefined;
    this.more = undefined;
    this.frameBytes = 0;
    const socket = this.socket!;
    if (this.finished && this.destroyed) return;
    if (socket.destroyed) return;
    const ok = socket.write(more ? Buffer.concat([first, ...more]) : first);
    if (ok) this.unblock();
  }

  private unblock(): void {
    if (!this.blocked || this.frame !== undefined) return;
    this.blocked = false;
    this.sub.drained();
  }

  end(): void {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.heartbeat);
    // What this turn handed over goes first, through the same socket, in order.
    this.flush();
    const end = this.sub.ended;
    if (this.out && !this.destroyed) {
      if (end?.kind === 'reset') this.out.write(`event: reset\ndata: ${JSON.stringify({ reason: end.reason })}\n\n`);
      if (end?.kind === 'error') {
        const status = end.code === 'FORBIDDEN' ? 403 : 401;
        this.out.write(`event: next\ndata: ${JSON.stringify({ errors: [{ message: end.message, extensions: { code: end.code, status } }] })}\n\n`);
      }
      this.out.write(COMPLETE);
    }
    if (!this.destroyed) this.push(null);
    // Not piped, so ending the response is ours (Fastify's pipe would have done it).
    this.out?.end();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    // The client went away (or the response failed): the member leaves its group.
    this.finished = true;
    this.frame = undefined;
    this.more = undefined;
    this.frameBytes = 0;
    clearInterval(this.heartbeat);
    this.sub.end();
    callback(err);
  }
}

export function useLiveSse(opts: { heartbeatMs: number }): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      const sub = liveOf.get(request);
      if (!sub || !accepts(request) || !(Symbol.asyncIterator in Object(result))) return;
      // The result's iterator is left unread: the member pushes to the body instead.
      setResultProcessor((_result, fetchAPI) => {
        const response = new fetchAPI.Response(null, {
          status: 200,
          // `X-Accel-Buffering: no` keeps nginx-style proxies from holding events back; compression
          // skips text/event-stream (src/http/compression.ts).
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
        });
        bodies.set(response, new SseBody(sub, opts.heartbeatMs));
        return response;
      }, 'text/event-stream');
    },
  };
}
