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
const startsWith = (b: Buffer, at: number, end: number, prefix: Buffer) => end - at >= prefix.length && b.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
const ID = Buffer.from('id: ');
const EVENT = Buffer.from('event: ');
const DATA = Buffer.from('data: ');

type EventKind = 'next' | 'reset' | 'complete' | 'other';
const kindOf = (b: Buffer, at: number, end: number): EventKind => {
  const name = b.toString('latin1', at, end);
  return name === 'next' || name === 'reset' || name === 'complete' ? name : 'other';
};

export function subscribeSse(opts: SubscribeOptions): SseSubscriber {
  const body = Buffer.from(JSON.stringify({ query: opts.query }));
  const sub: SseSubscriber = {
    ids: opts.into?.ids ?? [],
    at: opts.into?.at ?? [],
    anomalies: opts.into?.anomalies ?? [],
    lastId: opts.lastEventId,
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
  const socket = net.connect({ host: opts.base.hostname, port: Number(opts.base.port || 80), noDelay: true });

  // The event being read: its id (-1: none), kind and whether its data held "errors".
  let id = -1;
  let idText: string | undefined;
  let kind: EventKind | undefined;
  let hasErrors = false;
  /** An incomplete last line carried over to the next chunk. */
  let rest: Buffer | undefined;

  const scan = (chunk: Buffer, now: number): void => {
    const b = rest ? Buffer.concat([rest, chunk]) : chunk;
    rest = undefined;
    let at = 0;
    for (;;) {
      const nl = b.indexOf(NL, at);
      if (nl < 0) break;
      if (nl === at) {
        if (kind === 'next' && !hasErrors && id >= 0) {
          sub.ids.push(id);
          sub.at.push(now);
          sub.lastId = idText;
          opts.onEvent?.(id, now);
        } else if (kind === 'next' || kind === 'reset' || (kind === 'complete' && !closing)) sub.anomalies.push(kind + (hasErrors ? ' (errors)' : ''));
        id = -1;
        idText = undefined;
        kind = undefined;
        hasErrors = false;
      } else if (startsWith(b, at, nl, ID)) {
        idText = b.toString('latin1', at + ID.length, nl);
        id = Number(idText);
      } else if (startsWith(b, at, nl, EVENT)) kind = kindOf(b, at + EVENT.length, nl);
      else if (startsWith(b, at, nl, DATA)) {
        const e = b.indexOf(ERRORS, at);
        if (e >= 0 && e < nl) hasErrors = true;
      }
      at = nl + 1;
    }
    if (at < b.length) rest = b.subarray(at);
  };

  sub.opened = new Promise<void>((resolve, reject) => {
    let response: Buffer | undefined = Buffer.alloc(0);
    let refused: string | undefined;
    let opened = false;
    socket.on('error', (err) => (closing || opened ? resolve() : reject(err)));
    socket.on('close', () => {
      if (refused !== undefined) reject(new Error(refused + (response ? response.toString('utf8').slice(0, 300) : '')));
      else if (!opened && !closing) reject(new Error('the server closed the connection before answering'));
    });
    socket.on('data', (chunk: Buffer) => {
      if (response === undefined) return scan(chunk, Date.now());
      response = Buffer.concat([response, chunk]);
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
      if (after.length) scan(after, Date.now());
    });
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
