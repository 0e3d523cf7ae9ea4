/**
 * Ceiling child of bench/live.ts: a bare node:http Server-Sent Events fan-out. A subscriber POSTs
 * anything (the harness sends the same GraphQL subscription it sends the real server) and gets a
 * close-delimited `text/event-stream`, put in the bucket of the `like: "<group>"` its body names.
 * `POST /emit?group=<g>` with a frame as body writes those bytes to every socket of the bucket, the
 * same Buffer to each, as the real server does, and answers `{ "at": <Date.now() before the first
 * write> }`: write → delivery is measured from there. Nothing else: no database, no rendering, no
 * queue, the least any server can do to put one event on N sockets on this machine.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const buckets = new Map<string, Socket[]>();
const FIRST = Buffer.from(':\n\n');

const read = (req: import('node:http').IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

function subscribe(body: string, res: ServerResponse): void {
  const group = /like: \\?"([a-z]+)/.exec(body)?.[1] ?? '';
  // Close-delimited, as the real server's live stream: the body is the bytes on the socket.
  res.removeHeader('transfer-encoding');
  res.useChunkedEncodingByDefault = false;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'close' });
  res.write(FIRST);
  const socket = res.socket!;
  socket.setNoDelay(true);
  let list = buckets.get(group);
  if (!list) buckets.set(group, (list = []));
  list.push(socket);
  socket.on('close', () => {
    const i = list.indexOf(socket);
    if (i >= 0) list.splice(i, 1);
  });
}

const server = createServer(async (req, res) => {
  const body = await read(req);
  if (req.url?.startsWith('/emit')) {
    const group = new URL(req.url, 'http://x').searchParams.get('group') ?? '';
    const sockets = buckets.get(group) ?? [];
    const at = Date.now();
    for (const s of sockets) s.write(body);
    const answer = JSON.stringify({ at, sockets: sockets.length });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
    return;
  }
  subscribe(body.toString('utf8'), res);
});
server.keepAliveTimeout = 30_000;
server.maxConnections = 100_000;
server.listen(0, '127.0.0.1', 1024, () => {
  process.stdout.write(`LISTENING ${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => {
  for (const list of buckets.values()) for (const s of list) s.destroy();
  server.close(() => process.exit(0));
});
