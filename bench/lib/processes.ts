import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './stats.ts';

/** A child process the harness started; stop() ends its whole process group. */
export interface Child {
  name: string;
  proc: ChildProcess;
  /** Last lines of its stderr/stdout, for error reports. */
  tail(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resident set size of the process tree's largest member (for a harness script npx → tsx → node: the node one). */
  rss(): number;
}

export function spawnChild(name: string, command: string, args: string[], env: Record<string, string | undefined>, cwd?: string, opts: { logToFile?: boolean } = {}): Child {
  // The child's stderr (the server log) can go to a file in the temporary directory instead of a pipe
  // this process reads (`logToFile`, or BENCH_CHILD_OUTPUT=file for every child): then the harness
  // spends nothing on a server that logs a line per request, on the same two cores it measures.
  const logFile = opts.logToFile || process.env.BENCH_CHILD_OUTPUT === 'file' ? join(tmpdir(), `bench-${name.replace(/\W+/g, '-')}-${process.pid}-${Date.now()}.log`) : undefined;
  const fd = logFile ? openSync(logFile, 'w') : undefined;
  const proc = spawn(command, args, { env: { AUTH_JWT_KEYS: `bench:${'k'.repeat(40)}`, ...process.env, ...env }, stdio: ['ignore', 'pipe', fd ?? 'pipe'], detached: true, cwd });
  if (fd !== undefined) closeSync(fd);
  // The child's output is kept as raw chunks (the last 16 KiB or so) and split into lines only when
  // a failure asks for them: a server logging an access line per request writes tens of thousands
  // of lines a second, and a harness that decoded and split each one competed with the server it
  // measures for the same two cores.
  const chunks: Buffer[] = [];
  let kept = 0;
  const keep = (chunk: Buffer) => {
    chunks.push(chunk);
    kept += chunk.length;
    while (kept > 16_384 && chunks.length > 1) kept -= chunks.shift()!.length;
  };
  const lines = {
    join: (sep: string) =>
      (logFile ? Buffer.concat([...chunks, tailOfFile(logFile)]) : Buffer.concat(chunks))
        .toString()
        .split('\n')
        .filter((l) => l.trim())
        .slice(-40)
        .join(sep),
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    name,
    proc,
    tail: () => lines.join('\n'),
    rss: () => (proc.pid ? treeRss(proc.pid) : 0),
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode !== null || proc.signalCode !== null || !proc.pid) return;
      try {
        process.kill(-proc.pid, signal);
      } catch {
        return;
      }
      const timer = sleep(10_000).then(() => {
        try {
          process.kill(-proc.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      });
      await Promise.race([exited, timer]);
      if (logFile) rmSync(logFile, { force: true });
    },
  };
}

function tailOfFile(path: string): Buffer {
  try {
    const size = statSync(path).size;
    const fd = openSync(path, 'r');
    try {
      const length = Math.min(size, 16_384);
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, size - length);
      return buf;
    } finally {
      closeSync(fd);
    }
  } catch {
    return Buffer.alloc(0);
  }
}

/** Checkouts whose dist/ this process has brought up to date (a build per checkout and run, not per spawn). */
const built = new Set<string>();

/**
 * The checkout's compiled programs, built first when a source changed (`scripts/build.mjs --if-stale`,
 * what `npm start` does), or null for a checkout without that script (an older commit).
 */
function compiledDir(dir: string): string | null {
  if (built.has(dir)) return dir;
  if (!existsSync(join(dir, 'scripts/build.mjs'))) return null;
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: dir, stdio: 'ignore' });
  built.add(dir);
  return dir;
}

/**
 * Runs a script of the project. The server's and worker's programs (`src/…`) run as `npm start` and
 * the image run them, `node dist/….js`: measuring what is deployed, and starting in about a second
 * where tsx's loader took four or five on the loaded two-core host, which for the twenty-odd servers
 * of one run was most of the quick bench's time. Harness scripts (bench/…) run through tsx.
 * `BENCH_SERVER_DIR` runs the programs of another checkout, to compare commits with one harness.
 */
export const spawnTsx = (name: string, script: string, env: Record<string, string | undefined>, opts: { logToFile?: boolean } = {}): Child => {
  if (!script.startsWith('src/')) return spawnChild(name, 'npx', ['--no-install', 'tsx', script], env, undefined, opts);
  const dir = process.env.BENCH_SERVER_DIR ?? process.cwd();
  const compiled = compiledDir(dir);
  if (!compiled) return spawnChild(name, 'npx', ['--no-install', 'tsx', script], env, dir, opts);
  return spawnChild(name, process.execPath, [script.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js')], env, compiled, opts);
};

/**
 * A process's children, from its threads' `children` lists: bench/live.ts samples the server's RSS
 * four times a second, and reading every process's stat in /proc for each member of the npx → tsx →
 * node tree (~5 ms a scan on the shared host) cost the harness about as much CPU as 1,000 native
 * subscribers. The full scan remains for kernels without those lists.
 */
export function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone
  }
  try {
    return tasks.flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return [];
  }
  return scanChildrenOf(pid);
}

function scanChildrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function treeRss(pid: number): number {
  let best = rssOf(pid);
  for (const c of childrenOf(pid)) best = Math.max(best, treeRss(c));
  return best;
}

/**
 * CPU time (user + system, ms) the process and its descendants have used so far: divided by the
 * requests served between two readings it gives CPU per request, which a busy shared machine skews
 * far less than throughput does.
 */
export function treeCpuMs(pid: number): number {
  let ticks = 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks = Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
  let ms = ticks * 10;
  for (const c of childrenOf(pid)) ms += treeCpuMs(c);
  return ms;
}

/** Polls `url` until it answers 2xx, the child exits, or the deadline passes. */
export async function waitHealthy(child: Child, url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited (${child.proc.exitCode}):\n${child.tail()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(250);
  }
  throw new Error(`${child.name} did not become healthy at ${url} within ${timeoutMs} ms:\n${child.tail()}`);
}

/** Waits for a child that prints `LISTENING <port>` on stdout (the ceiling servers). */
export function listeningPort(child: Child, timeoutMs = 60_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${child.name} did not start:\n${child.tail()}`)), timeoutMs);
    child.proc.stdout?.on('data', (chunk: Buffer) => {
      const m = /LISTENING (\d+)/.exec(chunk.toString());
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${child.name} exited (${code}):\n${child.tail()}`));
    });
  });
}

/** A free loopback port (bind 0, read it, close). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The environment the harness gives the server and worker it starts: its own database and queue
 * prefix, the worker out of process, no demo seed, quiet logs, no rate limit in the way, and webhooks
 * allowed to reach the harness's receiver on loopback.
 */
export function benchServerEnv(opts: { databaseUrl: string; redisUrl: string; prefix: string; port: number }): Record<string, string> {
  return {
    DATABASE_URL: opts.databaseUrl,
    REDIS_URL: opts.redisUrl,
    WEBHOOK_QUEUE_PREFIX: opts.prefix,
    PORT: String(opts.port),
    HOST: '127.0.0.1',
    WORKER_IN_PROCESS: 'false',
    MIGRATE_ON_START: 'false',
    SEED_DEMO: 'false',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    RATE_LIMIT_PER_MINUTE: '10000000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}
