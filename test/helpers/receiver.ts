import http from 'node:http';

export interface Received {
  /** Path and query the request was sent to. */
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  json: Record<string, any>;
  at: number;
}

export type Responder = (r: Received) => { status: number; body?: string; delayMs?: number } | Promise<{ status: number; body?: string; delayMs?: number }>;

export async function waitFor(pred: () => boolean | Promise<boolean>, timeoutMs = 20_000, describe?: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await pred()) return;
    if (Date.now() > end) throw new Error(`timed out waiting${describe ? `: ${describe()}` : ''}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/** A webhook receiver on 127.0.0.1 that keeps every request's raw body. */
export async function startReceiver(responder: Responder = () => ({ status: 200, body: 'ok' })) {
  const received: Received[] = [];
  let respond = responder;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, any> = {};
      try {
        json = JSON.parse(raw);
      } catch {
        /* kept raw */
      }
      const r: Received = { path: req.url ?? '', headers: req.headers, raw, json, at: Date.now() };
      received.push(r);
      const answer = await respond(r);
      if (answer.delayMs) await new Promise((ok) => setTimeout(ok, answer.delayMs));
      if (res.destroyed) return;
      res.writeHead(answer.status, { 'content-type': 'text/plain' });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  const until = async (pred: (rs: Received[]) => boolean, timeoutMs = 20_000): Promise<Received[]> => {
    await waitFor(() => pred(received), timeoutMs, () => `receiver got ${received.length} requests`);
    return received;
  };
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    setResponder(r: Responder) {
      respond = r;
    },
    /** Resolves once `pred` holds over the received requests. */
    until,
    /** Resolves with the first `n` deliveries once at least `n` have arrived. */
    async deliveries(n: number, timeoutMs = 20_000): Promise<Received[]> {
      return (await until((rs) => rs.length >= n, timeoutMs)).slice(0, n);
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
