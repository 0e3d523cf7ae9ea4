import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from '../edge/client-key.ts';

export interface ConnectionLimits {
  HTTP_REQUEST_TIMEOUT_MS: number;
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: number;
  RATE_LIMIT_IPV6_PREFIX: number;
}

/**
 * The API's HTTP server with its bounds on slow and greedy clients (documented in docs/foundation.md,
 * "Connections and timeouts"):
 * - a request whose headers have not all arrived within HTTP_HEADERS_TIMEOUT_MS, or whose body has not
 *   arrived within HTTP_REQUEST_TIMEOUT_MS of its start, is answered 408 and its connection closed (a
 *   client trickling one byte every few seconds would otherwise hold a socket and a parser forever);
 *   a connection that never sends a byte is cut after the headers timeout too;
 * - a keep-alive connection idle between requests is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS;
 * - one client (clientKey: an IPv4 address, or the RATE_LIMIT_IPV6_PREFIX prefix of an IPv6 one) holds at
 *   most HTTP_MAX_CONNECTIONS_PER_ADDRESS connections; the next is answered 429 at once and closed.
 * Only the reception of the request is timed: a response that takes long (an upload being processed,
 * a subscription stream) is not cut.
 */
export function createApiServer(limits: ConnectionLimits, listener: RequestListener<typeof IncomingMessage, typeof ServerResponse>): Server {
  const requestTimeout = limits.HTTP_REQUEST_TIMEOUT_MS;
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(limits.HTTP_HEADERS_TIMEOUT_MS, requestTimeout);
  const refused = new WeakSet<Socket>();
  const server = createServer(
    {
      requestTimeout,
      headersTimeout,
      // Node checks the two timeouts on this interval (30 s by default), so they would be that late.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    (req, res) => {
      // A request that arrives on a connection refused by the address cap is never run.
      if (!refused.has(req.socket)) listener(req, res);
    },
  );
  server.keepAliveTimeout = limits.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  if (limits.HTTP_MAX_CONNECTIONS_PER_ADDRESS > 0) capConnectionsPerAddress(server, limits.HTTP_MAX_CONNECTIONS_PER_ADDRESS, limits.RATE_LIMIT_IPV6_PREFIX, refused);
  return server;
}

const TOO_MANY = JSON.stringify({ message: 'Too many open connections from this address; close some and retry.' });
const TOO_MANY_RESPONSE =
  'HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: application/json; charset=utf-8\r\n' +
  `Content-Length: ${Buffer.byteLength(TOO_MANY)}\r\n\r\n${TOO_MANY}`;

function capConnectionsPerAddress(server: Server, cap: number, ipv6Prefix: number, refused: WeakSet<Socket>): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = clientKey(socket.remoteAddress, ipv6Prefix);
    const count = open.get(address) ?? 0;
    if (count >= cap) {
      // Answered before its request is read: HTTP/1.1 lets a server respond early and close.
      refused.add(socket);
      socket.end(TOO_MANY_RESPONSE);
      socket.destroySoon();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/** A raw HTTP/1.1 answer with the API's `{ message }` body, for errors raised before any request exists. */
function rawAnswer(status: number, reason: string, message: string): string {
  const body = JSON.stringify({ message });
  return `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * Node's client errors (a request too slow to arrive, headers too large, bytes that are not HTTP),
 * answered in the API's `{ message }` shape instead of Fastify's `{ error, message, statusCode }`.
 */
export function clientErrorHandler(limits: ConnectionLimits): (err: NodeJS.ErrnoException, socket: Socket) => void {
  const slow = rawAnswer(
    408,
    'Request Timeout',
    `The request did not arrive in time: headers are awaited ${Math.min(limits.HTTP_HEADERS_TIMEOUT_MS, limits.HTTP_REQUEST_TIMEOUT_MS)} ms, the whole request ${limits.HTTP_REQUEST_TIMEOUT_MS} ms.`,
  );
  const tooLarge = rawAnswer(431, 'Request Header Fields Too Large', 'The request headers are too large.');
  const malformed = rawAnswer(400, 'Bad Request', 'The request is not valid HTTP/1.1.');
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) socket.write(err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? slow : err.code === 'HPE_HEADER_OVERFLOW' ? tooLarge : malformed);
    socket.destroy();
  };
}
