import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_JWT_KEYS } from '../helpers/pg.ts';

const root = resolve(import.meta.dirname, '../..');

/** Whether a process still exists (signal 0 checks without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm start` is the documented way to run without Docker (systemd, a process manager, a container
 * with npm as its first process): those stop it by signalling npm's process alone. The signal must
 * reach the server, which drains and exits, instead of npm exiting and leaving it serving.
 */
describe('npm start', () => {
  let db: { url: string; drop: () => Promise<void> };
  let npm: ChildProcess | undefined;
  let serverPid: number | undefined;
  beforeAll(async () => (db = await createTestDatabase()));
  afterAll(async () => {
    for (const pid of [npm?.pid, serverPid]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    await db.drop();
  });

  it('SIGTERM to the npm process alone drains and stops the server, and npm exits with it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, AUTH_JWT_KEYS: TEST_JWT_KEYS, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', SHUTDOWN_GRACE_MS: '5000' };
    delete env.REDIS_URL;
    // Not detached: the test signals npm's pid only, never a process group.
    npm = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout!.on('data', (d) => (out += d));
    npm.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => npm!.once('exit', (code) => r(code)));
    const line = await new Promise<Record<string, unknown>>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`npm start did not listen:\n${out}`)), 150_000);
      const check = () => {
        const found = out.split('\n').find((l) => l.includes('"msg":"listening"'));
        if (found) {
          clearTimeout(timer);
          ok(JSON.parse(found) as Record<string, unknown>);
        }
      };
      npm!.stdout!.on('data', check);
      npm!.stderr!.on('data', check);
      void exited.then((code) => fail(new Error(`npm start exited (${code}):\n${out}`)));
    });
    serverPid = line.pid as number;
    const base = line.address as string;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    npm.kill('SIGTERM');
    const code = await exited;
    // npm waits for its child: once npm is gone the server must be gone too, and it stopped cleanly.
    for (const until = Date.now() + 5000; alive(serverPid) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    expect(alive(serverPid), out).toBe(false);
    expect(out).toMatch(/"signal":"SIGTERM".*"msg":"server draining"/);
    expect(out).toMatch(/"msg":"server stopped"/);
    await expect(fetch(`${base}/readyz`)).rejects.toThrow();
    expect(code === 0 || code === 143 || code === null).toBe(true);
  }, 200_000);
});
