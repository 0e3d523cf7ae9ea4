import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A port bound before the application's modules load (src/main.ts): a port in use or refused is
 * reported at once instead of after every module has loaded. Until the application takes the
 * listener over (`handle`), `/healthz` answers 200 (the process lives) and `/readyz` 503 (not ready:
 * orchestrators and load balancers that probe leave the replica out). Any other request waits,
 * unread, and is handed to the application once it is ready: a proxy that sends to a replica as
 * soon as it accepts connections (Caddy's DNS upstreams in docker-compose.yml) sees a slower first
 * answer, not an error. Past EARLY_QUEUE_LIMIT waiting requests the next ones get 503.
 *
 * Plain node:http only: this file is imported before anything heavy.
 */
export interface EarlyListener {
  server: Server;
  /** Hands the waiting requests and every later one to `handler` (the application's). */
  handle(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Requests held while the application loads; beyond this they are turned away with 503. */
export const EARLY_QUEUE_LIMIT = 1000;

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...(status === 503 ? { 'retry-after': '1' } : {}) });
  res.end(JSON.stringify(body));
}

/** A start-up failure described in one line (the setting to change included), printed without a stack trace. */
export class ListenError extends Error {}

/**
 * Binds `port` on `host`. `setting` names the variable the port came from (PORT, METRICS_PORT), so
 * the one-line error says what to change. `make` builds the server (plain node:http by default).
 */
export async function bindEarly(port: number, host: string, setting: string, make: (listener: Handler) => Server = (l) => createServer(l)): Promise<EarlyListener> {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  const starting: Handler = (req, res) => {
    const path = req.url?.split('?')[0];
    if (path === '/healthz') return answer(res, 200, { status: 'ok' });
    if (path === '/readyz') return answer(res, 503, { status: 'unavailable', checks: { process: 'starting' } });
    if (waiting.length >= EARLY_QUEUE_LIMIT) return answer(res, 503, { message: 'The server is starting; retry in a moment.' });
    waiting.push([req, res]);
  };
  let current: Handler = starting;
  // The API port's server is made with its connection bounds (src/http/connections.ts) here, before
  // the app loads, so a slow client is bounded from the first byte.
  const server = make((req, res) => current(req, res));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    throw new ListenError(describeListenError(err, port, host, setting));
  }
  return {
    server,
    handle(handler) {
      current = handler;
      for (const [req, res] of waiting.splice(0)) if (!req.destroyed) handler(req, res);
    },
  };
}

function describeListenError(err: unknown, port: number, host: string, setting: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return `${setting}=${port} is already in use on ${host} (EADDRINUSE): stop the other process or set ${setting} to a free port.`;
  if (code === 'EACCES') return `${setting}=${port} may not be bound by this user on ${host} (EACCES): use a port above 1023 or grant the capability.`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `HOST=${host} is not an address of this machine (${code}): set HOST to one of its addresses, or 0.0.0.0 for all.`;
  return `cannot listen on ${host}:${port} (${setting}): ${err instanceof Error ? err.message : String(err)}`;
}
