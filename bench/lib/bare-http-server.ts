/**
 * Ceiling child: a bare node:http server answering every request with the bytes in CEILING_BODY_FILE
 * (the real published-entry response), to measure what HTTP alone costs on this machine.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.env.CEILING_BODY_FILE!);
const contentType = process.env.CEILING_CONTENT_TYPE ?? 'application/json; charset=utf-8';
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
