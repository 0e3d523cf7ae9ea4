import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/client.ts';
import { createProject } from '../../src/projects/operations.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { createTestDatabase, TEST_JWT_KEYS } from '../helpers/pg.ts';

const root = resolve(import.meta.dirname, '../..');
const GRACE_MS = 8000;

let db: { url: string; drop: () => Promise<void> };
let headers: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const database = openPostgres(db.url, 2);
  const project = await createProject(database.prisma, { name: 'Drain' });
  const token = await issueToken(database.prisma, { projectUuid: project.uuid, abilities: ['*'], name: 'drain' });
  headers = { 'project-id': project.uuid, authorization: `Bearer ${token.token}` };
  await database.close();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await db.drop();
});

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; at: number }>;
}

/** Starts `script` as its own process (as `npm start` does) and waits for `ready` in its log. */
async function start(script: string, ready: RegExp, env: Record<string, string>): Promise<Proc & { match: RegExpExecArray }> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...base, DATABASE_URL: db.url, AUTH_JWT_KEYS: TEST_JWT_KEYS, LOG_LEVEL: 'info', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', SHUTDOWN_GRACE_MS: String(GRACE_MS), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; at: number }>((r) => child.once('exit', (code) => r({ code, at: Date.now() })));
  const match = await new Promise<RegExpExecArray>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${script} did not start:\n${out}`)), 120_000);
    child.stderr!.on('data', () => {
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m);
      }
    });
    void exited.then(({ code }) => fail(new Error(`${script} exited (${code}):\n${out}`)));
  });
  return { child, output: () => out, exited, match };
}

type Outcome = { kind: 'ok'; afterSignal: boolean; closing: boolean } | { kind: 'refused'; how: string } | { kind: 'reset'; error: string };

/** One request on a keep-alive agent, classified: completed, refused before it started, or cut mid-way. */
function send(agent: Agent, base: URL, path: string, body: string | undefined, signalledAt: () => number | undefined): Promise<Outcome> {
  return new Promise((done) => {
    const req = request(
      { host: base.hostname, port: base.port, path, method: body ? 'POST' : 'GET', agent, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if (res.statusCode === 200 && text.length > 0) done({ kind: 'ok', afterSignal: signalledAt() !== undefined, closing: res.headers.connection === 'close' });
          // Fastify answers requests that arrive on an open connection once closing began with 503: never started.
          else if (res.statusCode === 503) done({ kind: 'refused', how: '503' });
          else done({ kind: 'reset', error: `status ${res.statusCode}: ${text.slice(0, 200)}` });
        });
        res.on('error', (err) => done({ kind: 'reset', error: `response: ${err.message}` }));
      },
    );
    // A refused connection never carried the request; anything else (ECONNRESET, hang up) lost it.
    req.on('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? { kind: 'refused', how: 'ECONNREFUSED' } : { kind: 'reset', error: `${err.code ?? ''} ${err.message}` }));
    req.end(body);
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM during a burst on keep-alive connections: readiness turns 503, every in-flight request completes (the last with Connection: close), none is reset, exit 0 within the grace period', async () => {
    const server = await start('src/main.ts', /"address":"(http:\/\/[^"]+)".*"msg":"listening"/, { PORT: '0', HOST: '127.0.0.1', WORKER_IN_PROCESS: 'true' });
    const base = new URL(server.match[1]!);
    const agents: Agent[] = [];
    let signalledAt: number | undefined;
    const outcomes: Outcome[] = [];
    const introspection = JSON.stringify({ query: '{ __schema { types { name fields { name args { name } } } } }' });

    // 24 clients, each sending back to back on its own keep-alive connection until the server says
    // `Connection: close` (a client behind a load balancer then goes to another replica) or refuses.
    const loops = Array.from({ length: 24 }, async (_, i) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      for (;;) {
        const o = await send(agent, base, i % 3 === 0 ? '/graphql' : '/api/collections', i % 3 === 0 ? introspection : undefined, () => signalledAt);
        outcomes.push(o);
        if (o.kind !== 'ok' || o.closing) return;
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    signalledAt = Date.now();
    server.child.kill('SIGTERM');

    // Readiness fails as soon as the signal is handled, while the listener still accepts (load
    // balancers stop sending). Under a loaded machine the handler may run some time after kill().
    const probe = () =>
      new Promise<number>((ok) => {
        request({ host: base.hostname, port: base.port, path: '/readyz' }, (res) => {
          res.resume();
          ok(res.statusCode ?? 0);
        })
          .on('error', () => ok(-1))
          .end();
      });
    let ready = await probe();
    for (const until = Date.now() + 3000; ready === 200 && Date.now() < until; ready = await probe()) await new Promise((r) => setTimeout(r, 20));
    expect(ready).toBe(503);

    await Promise.all(loops);
    const { code, at } = await server.exited;
    for (const a of agents) a.destroy();

    const resets = outcomes.filter((o) => o.kind === 'reset');
    expect(resets, server.output()).toEqual([]);
    expect(outcomes.filter((o) => o.kind === 'ok' && o.afterSignal).length).toBeGreaterThan(0);
    // Every client was told to go elsewhere (or refused before its request started), none cut off.
    expect(outcomes.filter((o) => (o.kind === 'ok' && o.closing) || o.kind === 'refused')).toHaveLength(24);
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(GRACE_MS);
    expect(server.output()).toMatch(/"msg":"server stopped"/);
    // The server's log is buffered (src/logger.ts); exiting flushes it, so every answered request
    // has its access line (plus the /readyz probe).
    const accessLines = server.output().split('\n').filter((l) => l.includes('"log":"access"'));
    expect(accessLines.length).toBeGreaterThanOrEqual(outcomes.filter((o) => o.kind === 'ok').length + 1);
  }, 180_000);

  it('a quiet server writes its buffered access line within a fraction of a second, with the request id', async () => {
    const server = await start('src/main.ts', /"address":"(http:\/\/[^"]+)".*"msg":"listening"/, { PORT: '0', HOST: '127.0.0.1' });
    const base = new URL(server.match[1]!);
    const status = await new Promise<number>((ok, fail) => {
      request({ host: base.hostname, port: base.port, path: '/api/collections', headers: { ...headers, 'x-request-id': 'quiet-one' } }, (res) => {
        res.resume();
        ok(res.statusCode ?? 0);
      })
        .on('error', fail)
        .end();
    });
    expect(status).toBe(200);
    const deadline = Date.now() + 5000;
    while (!server.output().includes('"reqId":"quiet-one"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(server.output()).toMatch(/"log":"access".*"route":"\/api\/collections".*"status":200.*"reqId":"quiet-one"/);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  }, 180_000);

  it('the webhook worker process drains on SIGTERM and exits 0', async () => {
    const worker = await start('src/worker/main.ts', /"msg":"webhook worker running"/, {});
    const signalledAt = Date.now();
    worker.child.kill('SIGTERM');
    const { code, at } = await worker.exited;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(GRACE_MS);
    expect(worker.output()).toMatch(/"msg":"webhook worker stopped"/);
  }, 180_000);
});
