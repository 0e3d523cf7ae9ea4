import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { bindEarly, type EarlyListener } from '../../src/http/early-listener.ts';
import { root } from '../cli/subprocess.ts';
import { TEST_JWT_KEYS } from '../helpers/pg.ts';

describe('the port bound before the application loads', () => {
  const open: EarlyListener[] = [];
  afterAll(() => {
    for (const l of open) l.server.close();
  });

  it('answers /healthz 200 and /readyz 503 while starting, holds other requests and hands them to the application', async () => {
    const l = await bindEarly(0, '127.0.0.1', 'PORT');
    open.push(l);
    const base = `http://127.0.0.1:${(l.server.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', checks: { process: 'starting' } });

    let settled = false;
    const held = fetch(`${base}/api/things`, { method: 'POST', body: 'sent while starting' }).then(async (r) => {
      settled = true;
      return { status: r.status, text: await r.text() };
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    l.handle((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.end(`${req.method} ${req.url} ${body}`));
    });
    expect(await held).toEqual({ status: 200, text: 'POST /api/things sent while starting' });
  });

  it('the server is reachable (healthz 200, readyz 503) while it waits for PostgreSQL at start', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', DATABASE_CONNECT_TIMEOUT_MS: '600000', AUTH_JWT_KEYS: TEST_JWT_KEYS };
    delete env.REDIS_URL;
    // PORT=0: the port the process got is found from its own socket list, not from a log line it
    // writes only once ready.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      let out = '';
      child.stderr!.on('data', (d) => (out += d));
      for (const until = Date.now() + 60_000; !out.includes('PostgreSQL unreachable, retrying') && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('PostgreSQL unreachable, retrying');
      const port = await listeningPort(child.pid!);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});

/** The TCP port a process listens on, from /proc (its socket inodes matched in /proc/net/tcp). */
async function listeningPort(pid: number): Promise<number> {
  const { readdir, readlink, readFile } = await import('node:fs/promises');
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m) inodes.add(m[1]!);
  }
  for (const line of (await readFile('/proc/net/tcp', 'utf8')).split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    // st 0A = LISTEN
    if (cols[3] === '0A' && inodes.has(cols[9]!)) return parseInt(cols[1]!.split(':')[1]!, 16);
  }
  throw new Error(`process ${pid} listens on no TCP port`);
}
