import http from 'node:http';

/**
 * One benchmark subscriber: a raw `http` connection (no agent, so no pooling and no per-host socket
 * cap) reading a GraphQL-over-SSE stream. Kept minimal on purpose: thousands of them share the
 * harness process with the latency clock, so it only reads the `id:` and `event:` lines and notes
 * when each `next` arrived; payloads are not parsed (an `"errors"` in one is counted instead).
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

export function subscribeSse(opts: SubscribeOptions): SseSubscriber {
  const body = JSON.stringify({ query: opts.query });
  const sub: SseSubscriber = {
    ids: opts.into?.ids ?? [],
    at: opts.into?.at ?? [],
    anomalies: opts.into?.anomalies ?? [],
    lastId: opts.lastEventId,
    opened: Promise.resolve(),
    close: () => {},
  };
  let closing = false;
  const req = http.request(opts.base, {
    method: 'POST',
    agent: false,
    headers: {
      ...opts.headers,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'content-length': String(Buffer.byteLength(body)),
      ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
    },
  });
  sub.opened = new Promise<void>((resolve, reject) => {
    req.on('error', (err) => (closing ? resolve() : reject(err)));
    req.on('response', (res) => {
      if (res.statusCode !== 200 || !(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => reject(new Error(`subscribe answered ${res.statusCode}: ${text.slice(0, 300)}`)));
        return;
      }
      res.setEncoding('utf8');
      let buf = '';
      let id: string | undefined;
      let event: string | undefined;
      let hasErrors = false;
      let first = true;
      res.on('data', (chunk: string) => {
        if (first) {
          first = false;
          resolve();
        }
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line === '') {
            if (event === 'next' && !hasErrors && id !== undefined) {
              const now = Date.now();
              sub.ids.push(Number(id));
              sub.at.push(now);
              sub.lastId = id;
              opts.onEvent?.(Number(id), now);
            } else if (event === 'next' || event === 'reset' || (event === 'complete' && !closing)) sub.anomalies.push(event + (hasErrors ? ' (errors)' : ''));
            id = event = undefined;
            hasErrors = false;
          } else if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ') && line.includes('"errors"')) hasErrors = true;
        }
      });
      res.on('error', () => {});
    });
  });
  sub.opened.catch(() => {});
  sub.close = () => {
    closing = true;
    req.destroy();
  };
  req.end(body);
  return sub;
}
