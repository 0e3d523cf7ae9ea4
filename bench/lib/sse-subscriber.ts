import net from 'node:net';

/**
 * One benchmark subscriber: a raw TCP connection speaking just enough HTTP/1.1 to POST a GraphQL
 * subscription and read its Server-Sent Events. Kept minimal on purpose: thousands of them share the
 * harness process with the latency clock and the same two cores as the server it measures, so it
 * skips Node's HTTP client (parser, IncomingMessage stream, string decoding per chunk) and scans the
 * bytes for the `id:` and `event:` lines only, noting when each `next` arrived; payloads are not
 * parsed (an `"errors"` in one is counted instead). The server's live stream is close-delimited
 * (src/graphql/subscriptions/sse.ts), so after the headers the bytes are the event stream itself;
 * a chunked one is refused rather than misread.
 */
export interface SseSubscriber {
  /** Outbox ids delivered, in arrival order (duplicates kept, so they can be counted). */
  ids: number[];
  /** Date.now() at arrival, parallel to `ids`. */
  at: number[];
  /** Events other than data: `reset`, an errors payload, `complete` before the end of the run. */
  anomalies: string[];
  /** The last `id:` seen: what a reconnect sends as Last-Event-ID. */
  lastId?: string;
  /** Resolves once the response headers (and the stream's first comment) arrived. */
  opened: Promise<void>;
  close(): void;
}

export interface SubscribeOptions {
  base: URL;
  headers: Record<string, string>;
  query: string;
  lastEventId?: string;
  /** Ids already seen and their arrival times (a reconnect appends to the same record). */
  into?: Pick<SseSubscriber, 'ids' | 'at' | 'anomalies'>;
  /** Arrivals before this time are not latency samples (a resumed backlog is late by design). */
  onEvent?: (id: number, at: number) => void;
}

const NL = 10;
const HEADERS_END = Buffer.from('\r\n\r\n');
const ERRORS = Buffer.from('"errors"');
const ID = Buffer.from('id: ');
const EVENT = Buffer.from('event: ');
const DATA = Buffer.from('data: ');
const is = (b: Buffer, at: number, end: number, prefix: Buffer): boolean => {
  if (end - at < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (b[at + k] !== prefix[k]) return false;
  return true;
};

type EventKind = 'next' | 'reset' | 'complete' | 'other';
const NEXT = Buffer.from('next');
const RESET = Buffer.from('reset');
const COMPLETE = Buffer.from('complete');
const kindOf = (b: Buffer, at: number, end: number): EventKind => {
  const n = end - at;
  if (n === 4 && is(b, at, end, NEXT)) return 'next';
  if (n === 5 && is(b, at, end, RESET)) return 'reset';
  if (n === 8 && is(b, at, end, COMPLETE)) return 'complete';
  return 'other';
};

/**
 * One buffer every subscriber's socket reads into (net's `onread`): the harness reads 100,000 events
 * a second, and a fresh Buffer plus a stream `data` event per read was a share of its CPU that the
 * server, on the same two cores, then lacked. Safe to share: each read is scanned synchronously in its
 * callback before the next read can land, and what outlives the callback (an incomplete line, the
 * response head) is copied.
 */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

export function subscribeSse(opts: SubscribeOptions): SseSubscriber {
  const body = Buffer.from(JSON.stringify({ query: opts.query }));
  /** The last `id:` seen, as a number: kept as text only when asked (a reconnect). */
  let lastId: number | undefined = opts.lastEventId === undefined ? undefined : Number(opts.lastEventId);
  const lastIdText = opts.lastEventId;
  const sub: SseSubscriber = {
    ids: opts.into?.ids ?? [],
    at: opts.into?.at ?? [],
    anomalies: opts.into?.anomalies ?? [],
    get lastId() {
      return lastId === undefined ? undefined : lastIdText !== undefined && Number(lastIdText) === lastId ? lastIdText : String(lastId);
    },
    opened: Promise.resolve(),
    close: () => {},
  };
  let closing = false;
  const headers: Record<string, string> = {
    host: opts.base.host,
    // The server then closes a refusal's connection too, which is how its body is read to the end.
    connection: 'close',
    ...opts.headers,
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'content-length': String(body.length),
    ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
  };
  const head = `POST ${opts.base.pathname}${opts.base.search} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;

  // The event being read: its id (-1: none), kind and whether its data held "errors".
  let id = -1;
  let kind: EventKind | undefined;
  let hasErrors = false;
  /** An incomplete last line carried over to the next read (a copy: the read buffer is shared). */
  let rest: Buffer | undefined;

  /** Scans b[0, length): whole lines only; the incomplete tail is kept for the next read. */
  const scan = (chunk: Buffer, length: number, now: number): void => {
    // Bounded to this read: past `length` the shared buffer holds an earlier read's bytes.
    const b = rest ? Buffer.concat([rest, chunk.subarray(0, length)]) : chunk.subarray(0, length);
    const len = b.length;
    rest = undefined;
    let at = 0;
    // Where the next `"errors"` is at or after `at` (-1: none in this read): found once per read,
    // not searched from every data line to the end of the read.
    let errorsAt = -2;
    for (;;) {
      const nl = b.indexOf(NL, at);
      if (nl < 0) break;
      if (nl === at) {
        if (kind === 'next' && !hasErrors && id >= 0) {
          sub.ids.push(id);
          sub.at.push(now);
          lastId = id;
          opts.onEvent?.(id, now);
        } else if (kind === 'next' || kind === 'reset' || (kind === 'complete' && !closing)) sub.anomalies.push(kind + (hasErrors ? ' (errors)' : ''));
        id = -1;
        kind = undefined;
        hasErrors = false;
      } else if (is(b, at, nl, ID)) {
        let v = 0;
        let ok = nl > at + ID.length;
        for (let k = at + ID.length; k < nl; k++) {
          const d = b[k] - 48;
          if (d < 0 || d > 9) {
            ok = false;
            break;
          }
          v = v * 10 + d;
        }
        id = ok ? v : Number.NaN;
      } else if (is(b, at, nl, EVENT)) kind = kindOf(b, at + EVENT.length, nl);
      else if (is(b, at, nl, DATA)) {
        if (errorsAt !== -1 && errorsAt < at) {
          errorsAt = b.indexOf(ERRORS, at);
        }
        if (errorsAt >= 0 && errorsAt < nl) hasErrors = true;
      }
      at = nl + 1;
    }
    if (at < len) rest = Buffer.from(b.subarray(at, len));
  };

  let onBytes: (buf: Buffer, n: number) => void = () => {};
  const socket = net.connect({
    host: opts.base.hostname,
    port: Number(opts.base.port || 80),
    noDelay: true,
    onread: {
      buffer: READ_BUFFER,
      callback: (n: number, buf: Buffer) => {
        onBytes(buf, n);
        return true;
      },
    },
  });

  sub.opened = new Promise<void>((resolve, reject) => {
    let response: Buffer | undefined = Buffer.alloc(0);
    let refused: string | undefined;
    let opened = false;
    socket.on('error', (err) => (closing || opened ? resolve() : reject(err)));
    socket.on('close', () => {
      if (refused !== undefined) reject(new Error(refused + (response ? response.toString('utf8').slice(0, 300) : '')));
      else if (!opened && !closing) reject(new Error('the server closed the connection before answering'));
    });
    onBytes = (buf, n) => {
      if (response === undefined) return scan(buf, n, Date.now());
      response = Buffer.concat([response, buf.subarray(0, n)]);
      if (refused !== undefined) return;
      const end = response.indexOf(HEADERS_END);
      if (end < 0) return;
      const text = response.toString('latin1', 0, end);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]);
      const type = /\r\ncontent-type:\s*([^\r]*)/i.exec(text)?.[1] ?? '';
      const chunked = /\r\ntransfer-encoding:\s*chunked/i.test(text);
      const after = response.subarray(end + HEADERS_END.length);
      if (status !== 200 || !type.startsWith('text/event-stream') || chunked) {
        refused = `subscribe answered ${status}${status === 200 && chunked ? ' (chunked, not close-delimited)' : ''}: `;
        response = after;
        return;
      }
      response = undefined;
      opened = true;
      resolve();
      if (after.length) scan(after, after.length, Date.now());
    };
  });
  sub.opened.catch(() => {});
  sub.close = () => {
    closing = true;
    socket.destroy();
  };
  socket.write(head);
  socket.write(body);
  return sub;
}
