import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * Issue 27 §5: slow and greedy clients over real sockets. The timeouts are set small here (the
 * defaults are minutes); each client below would, without them, hold its connection for as long as
 * it likes: a body trickled one byte at a time, headers that never end, a connection that sends
 * nothing, an idle keep-alive connection, and more connections from one address than the cap.
 */
const LIMITS = { HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_KEEP_ALIVE_TIMEOUT_MS: '500', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '4' };
/** How long a client below keeps going before it concludes the server let it hold the connection. */
const PATIENCE_MS = 8000;

interface Client {
  socket: Socket;
  received: () => string;
  closed: () => boolean;
  /** Resolves true once the server closed the connection, false if it is still open after `ms`. */
  waitClosed: (ms: number) => Promise<boolean>;
}

function open(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let closed = false;
    const waiters: Array<() => void> = [];
    socket.on('data', (d) => (data += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      for (const w of waiters) w();
    });
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        closed: () => closed,
        waitClosed: (ms) =>
          closed
            ? Promise.resolve(true)
            : new Promise((done) => {
                const timer = setTimeout(() => done(false), ms);
                waiters.push(() => {
                  clearTimeout(timer);
                  done(true);
                });
              }),
      }),
    );
    socket.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `text` one character every `everyMs` until it is all sent or the server closes; returns how many were sent. */
async function trickle(c: Client, text: string, everyMs: number): Promise<number> {
  let sent = 0;
  const deadline = Date.now() + PATIENCE_MS;
  while (sent < text.length && !c.closed() && Date.now() < deadline) {
    c.socket.write(text[sent]);
    sent++;
    await sleep(everyMs);
  }
  return sent;
}

describe('slow and greedy clients', () => {
  let t: TestApp;
  let port: number;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp({ env: LIMITS });
    headers = (await t.project()).headers;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t?.close());

  it('a body trickled one byte at a time is cut with 408 after the request timeout', async () => {
    const c = await open(port);
    const body = JSON.stringify({ name: 'Slow', slug: 'slow' }).padEnd(100, ' ');
    c.socket.write(
      `POST /api/collections HTTP/1.1\r\nHost: x\r\nproject-id: ${headers['project-id']}\r\nAuthorization: ${headers.authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const sent = await trickle(c, body, 100);
    expect(await c.waitClosed(2000)).toBe(true);
    expect(sent).toBeLessThan(body.length);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(c.received().split('\r\n\r\n')[1])).toEqual({ message: expect.stringContaining('did not arrive in time') });
    expect(await t.database.prisma.collection.count({ where: { slug: 'slow' } })).toBe(0);
  });

  it('headers that never end are cut with 408 after the headers timeout', async () => {
    const c = await open(port);
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const header = `X-Slow: ${'a'.repeat(80)}\r\n\r\n`;
    const sent = await trickle(c, header, 100);
    expect(await c.waitClosed(2000)).toBe(true);
    expect(sent).toBeLessThan(header.length);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a connection that never sends a byte is closed', async () => {
    const c = await open(port);
    expect(await c.waitClosed(PATIENCE_MS)).toBe(true);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout, and a busy one is not cut', async () => {
    const c = await open(port);
    for (let i = 0; i < 3; i++) {
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await sleep(250);
    }
    expect(c.received().match(/HTTP\/1\.1 200 /g)).toHaveLength(3);
    expect(await c.waitClosed(PATIENCE_MS)).toBe(true);
  });

  it('headers past 16 KiB are 431 in the API shape', async () => {
    const c = await open(port);
    c.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(await c.waitClosed(PATIENCE_MS)).toBe(true);
    expect(c.received()).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(c.received().split('\r\n\r\n')[1])).toEqual({ message: 'The request headers are too large.' });
  });

  it('one address holds at most the cap of connections; the next is refused with 429 until one closes', async () => {
    const held: Client[] = [];
    for (let i = 0; i < 4; i++) held.push(await open(port));
    const extra = await open(port);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await extra.waitClosed(PATIENCE_MS)).toBe(true);
    expect(extra.received()).toMatch(/^HTTP\/1\.1 429 /);
    expect(extra.received()).not.toContain('"status":"ok"');
    expect(JSON.parse(extra.received().split('\r\n\r\n')[1])).toEqual({ message: expect.stringContaining('Too many open connections') });
    // Once they are gone, the address may connect again.
    for (const c of held) c.socket.destroy();
    let status = '';
    for (let attempt = 0; attempt < 40 && !status.startsWith('HTTP/1.1 200'); attempt++) {
      await sleep(50);
      const again = await open(port);
      again.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await again.waitClosed(PATIENCE_MS);
      status = again.received();
    }
    expect(status).toMatch(/^HTTP\/1\.1 200 /);
  });
});
