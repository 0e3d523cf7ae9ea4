import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { claimDataDir, ownerFile, OwnedElsewhereError, socketDirFor } from '../../src/db/embedded-owner.ts';

const root = resolve(import.meta.dirname, '../..');
const execFileP = promisify(execFile);

/** Environment of a process using the embedded database in `dataDir` (nothing else configured). */
function embeddedEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', ...extra };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}

function cms(dataDir: string, args: string[]) {
  return execFileP(process.execPath, ['bin/cms.js', ...args], { cwd: root, env: embeddedEnv(dataDir), timeout: 120_000 });
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

interface Server {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

/** Starts `src/main.ts` as its own process and waits for its "listening" log line. */
async function startServer(dataDir: string, extra: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: embeddedEnv(dataDir, { PORT: '0', HOST: '127.0.0.1', WORKER_IN_PROCESS: 'false', ...extra }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${err}`)), 150_000);
    child.stderr!.on('data', () => {
      const m = /"address":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${err}`)));
  });
  return { child, url, stderr: () => err };
}

const stop = (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<void>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) return r();
    child.once('exit', () => r());
    child.kill(signal);
  });

describe('embedded data directory ownership', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'cms-owner-'));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const c of children) await stop(c, 'SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('the CLI works while the server owns the directory, and both see the same data', async () => {
    const dataDir = tmp();
    const server = await startServer(dataDir, { SEED_DEMO: 'true' });
    children.push(server.child);
    const owner = JSON.parse(readFileSync(ownerFile(dataDir), 'utf8'));
    expect(owner.pid).toBe(server.child.pid);

    // The first start logged the demo project, and (stderr being no terminal) not its token.
    for (let i = 0; i < 100 && !/"msg":"demo project created"/.test(server.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
    const projectId = /"projectId":"([0-9a-f-]{36})"/.exec(server.stderr())![1];
    expect(server.stderr()).not.toMatch(/cms_[A-Za-z0-9]/);
    expect(server.stderr()).toContain('npx cms token create --project');
    const demoToken = JSON.parse((await cms(dataDir, ['token', 'create', '--project', projectId, '--abilities', 'read', '--json'])).stdout).token;
    const model = await fetch(`${server.url}/api/collections`, { headers: { 'project-id': projectId, authorization: `Bearer ${demoToken}` } });
    expect(model.status).toBe(200);
    expect((await model.json()).map((c: { slug: string }) => c.slug)).toEqual(['authors', 'posts']);

    // A second process: the CLI reaches the server's PGlite through its socket.
    const created = await cms(dataDir, ['project', 'create', '--name', 'From the CLI', '--json']);
    const project = JSON.parse(created.stdout);
    expect(created.stderr).toMatch(/connecting through the owning process/);
    const token = JSON.parse((await cms(dataDir, ['token', 'create', '--project', project.uuid, '--abilities', 'read', '--json'])).stdout).token;
    const res = await fetch(`${server.url}/api`, { headers: { 'project-id': project.uuid, authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ uuid: project.uuid, name: 'From the CLI' });
    // The server still owns the directory.
    expect(JSON.parse(readFileSync(ownerFile(dataDir), 'utf8')).pid).toBe(server.child.pid);

    // A killed owner leaves a stale claim; the next process takes over and finds the data intact.
    await stop(server.child, 'SIGKILL');
    expect(existsSync(ownerFile(dataDir))).toBe(true);
    const again = await cms(dataDir, ['token', 'create', '--project', project.uuid, '--abilities', '*', '--json']);
    expect(JSON.parse(again.stdout).abilities).toEqual(['*']);
    expect(again.stderr).toMatch(/this process owns the data directory/);
    // The CLI released its claim on exit.
    expect(existsSync(ownerFile(dataDir)), again.stderr).toBe(false);

    // A restart does not seed a second demo project.
    const restarted = await startServer(dataDir, { SEED_DEMO: 'true' });
    children.push(restarted.child);
    expect(restarted.stderr()).not.toMatch(/Demo project created/);
    await stop(restarted.child);
    expect(existsSync(ownerFile(dataDir)), restarted.stderr()).toBe(false);
  }, 600_000);

  it('takes over a claim whose process is dead', async () => {
    const dataDir = tmp();
    writeFileSync(ownerFile(dataDir), JSON.stringify({ pid: await deadPid(), socketDir: socketDirFor(dataDir), port: 5432, startedAt: new Date().toISOString() }));
    const claim = await claimDataDir(dataDir, { waitMs: 1000 });
    expect(claim.role).toBe('owner');
    expect(JSON.parse(readFileSync(ownerFile(dataDir), 'utf8')).pid).toBe(process.pid);
    if (claim.role === 'owner') claim.release();
    expect(existsSync(ownerFile(dataDir))).toBe(false);
  });

  it('refuses a live owner that does not answer, naming it and what to do', async () => {
    const dataDir = tmp();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    children.push(sleeper);
    writeFileSync(ownerFile(dataDir), JSON.stringify({ pid: sleeper.pid, socketDir: socketDirFor(dataDir), port: 5432, startedAt: new Date().toISOString() }));
    const err = await claimDataDir(dataDir, { waitMs: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(OwnedElsewhereError);
    expect(err.message).toContain(`process ${sleeper.pid}`);
    expect(err.message).toMatch(/Stop that process/);
    // The claim is untouched.
    expect(JSON.parse(readFileSync(ownerFile(dataDir), 'utf8')).pid).toBe(sleeper.pid);
  });

  it('keeps the socket path short enough for deep data directories', () => {
    const deep = join(tmpdir(), 'x'.repeat(120));
    expect(join(socketDirFor(deep), '.s.PGSQL.5432').length).toBeLessThan(104);
  });
});
