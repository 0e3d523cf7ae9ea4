/** A minimal Server-Sent Events reader over fetch: it parses `id:` / `event:` / `data:` lines itself. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The next event (heartbeat comments skipped); rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Events until (and including) one of `kind`, e.g. 'complete'. */
  until(kind: string, timeoutMs?: number): Promise<SseEvent[]>;
  /** Comment lines (heartbeats) seen so far. */
  comments: number;
  /** Whether the server ended the stream. */
  ended(): boolean;
  close(): void;
  /** Only for non-stream answers (errors before the stream): the JSON body. */
  json(): Promise<unknown>;
}

export async function openSse(
  baseUrl: string,
  query: string,
  opts: { headers?: Record<string, string>; variables?: Record<string, unknown>; lastEventId?: string } = {},
): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
      ...opts.headers,
    },
    body: JSON.stringify({ query, variables: opts.variables }),
  });
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  let done = false;
  const state = { comments: 0 };
  const isStream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (isStream && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      let cur: Partial<SseEvent> & { data?: string } = {};
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).replace(/\r$/, '');
            buf = buf.slice(nl + 1);
            if (line === '') {
              if (cur.event !== undefined || cur.data !== undefined) {
                events.push({ id: cur.id, event: cur.event ?? 'message', data: cur.data ?? '' });
                waiters.splice(0).forEach((w) => w());
              }
              cur = {};
            } else if (line.startsWith(':')) state.comments++;
            else {
              const i = line.indexOf(':');
              const field = i < 0 ? line : line.slice(0, i);
              const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
              if (field === 'data') cur.data = cur.data === undefined ? value : `${cur.data}\n${value}`;
              else if (field === 'event') cur.event = value;
              else if (field === 'id') cur.id = value;
            }
          }
        }
      } catch {
        // aborted
      }
      done = true;
      waiters.splice(0).forEach((w) => w());
    })();
  }
  let read = 0;
  const next = async (timeoutMs = 15_000): Promise<SseEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (read >= events.length) {
      if (done) throw new Error('stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for an event');
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return events[read++];
  };
  return {
    status: res.status,
    headers: res.headers,
    next,
    async until(kind, timeoutMs = 15_000) {
      const out: SseEvent[] = [];
      for (;;) {
        const e = await next(timeoutMs);
        out.push(e);
        if (e.event === kind) return out;
      }
    },
    get comments() {
      return state.comments;
    },
    ended: () => done,
    close: () => controller.abort(),
    json: () => res.json(),
  };
}

/** The payload of a `next` event: `{ data, errors }`. */
export const payloadOf = (e: SseEvent): { data?: Record<string, any>; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } => JSON.parse(e.data);
