import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Ownership of an embedded (PGlite) data directory. PGlite is single-process: a second process
 * opening the same directory fails or corrupts it. The first process to start claims the directory
 * by creating `owner.json` exclusively and serves its PGlite on a unix socket; every later process
 * (the `cms` CLI, `npm run worker`, a second `npm start`) finds a live owner and connects through
 * that socket with the ordinary `pg` client. A claim left by a dead process is taken over.
 */

export interface OwnerInfo {
  pid: number;
  /** Directory holding the unix socket `.s.PGSQL.<port>` (the layout libpq and node-pg expect). */
  socketDir: string;
  port: number;
  startedAt: string;
}

export type Claim = { role: 'owner'; info: OwnerInfo; release: () => void } | { role: 'client'; info: OwnerInfo };

export const SOCKET_PORT = 5432;

export const ownerFile = (dataDir: string) => join(resolve(dataDir), 'owner.json');

/** Unix socket paths are limited to ~107 bytes; deep DATA_DIRs fall back to a short path in tmp. */
export function socketDirFor(dataDir: string): string {
  const preferred = join(resolve(dataDir), 'run');
  if (join(preferred, `.s.PGSQL.${SOCKET_PORT}`).length < 100) return preferred;
  const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(tmpdir(), `cms-pglite-${hash}`);
}

/** The socket directory is not one this process may trust: another user's, or not a plain directory. */
export class UnsafeSocketDirError extends Error {}

/**
 * Whoever controls the socket directory can put their own socket in it and read or answer every
 * query: the fallback path in the temp directory is predictable, so another local user could
 * create it first. Checks that `dir` is a real directory (not a symlink) owned by this process's
 * user; with `create`, makes it 0700 first and tightens an own directory that is more open.
 */
export function ensurePrivateSocketDir(dir: string, opts: { create: boolean }): void {
  if (opts.create) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new UnsafeSocketDirError(`The embedded database's socket directory ${dir} is not a plain directory (a symlink or a file): remove it and start again.`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new UnsafeSocketDirError(
      `The embedded database's socket directory ${dir} belongs to another user (uid ${st.uid}, this process runs as uid ${uid}), ` +
        'who could intercept every connection to the database. Remove that directory, or use a DATA_DIR path short enough for the socket to live inside it.',
    );
  }
  if (opts.create && (st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readOwner(dataDir: string): OwnerInfo | null {
  try {
    const v = JSON.parse(readFileSync(ownerFile(dataDir), 'utf8')) as Partial<OwnerInfo>;
    if (typeof v.pid === 'number' && typeof v.socketDir === 'string' && typeof v.port === 'number') return v as OwnerInfo;
  } catch {
    // Missing, or being written right now.
  }
  return null;
}

/** True when something accepts connections on the owner's socket. */
export function socketAccepts(info: OwnerInfo, timeoutMs = 1000): Promise<boolean> {
  return new Promise((done) => {
    const sock = connect(join(info.socketDir, `.s.PGSQL.${info.port}`));
    const timer = setTimeout(() => finish(false), timeoutMs);
    function finish(ok: boolean) {
      clearTimeout(timer);
      sock.destroy();
      done(ok);
    }
    sock.once('connect', () => finish(true));
    sock.once('error', () => finish(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Short exclusive section (mkdir is atomic) for the rare stale-claim takeover. */
async function withTakeoverLock<T>(dataDir: string, fn: () => T): Promise<T> {
  const lock = `${ownerFile(dataDir)}.takeover`;
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A process that died inside this few-millisecond section leaves the lock behind.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 10_000) rmdirSync(lock);
      } catch {
        /* removed meanwhile */
      }
      if (i > 200) throw new Error(`Could not take over ${ownerFile(dataDir)}: ${lock} stays locked.`);
      await sleep(25);
    }
  }
  try {
    return fn();
  } finally {
    rmdirSync(lock);
  }
}

export class OwnedElsewhereError extends Error {}

/**
 * Claims the data directory or finds its live owner. `waitMs` bounds how long to wait for a live
 * owner that is still starting (its socket not yet listening).
 */
export async function claimDataDir(dataDir: string, opts: { waitMs?: number } = {}): Promise<Claim> {
  const waitMs = opts.waitMs ?? 15_000;
  mkdirSync(resolve(dataDir), { recursive: true });
  const file = ownerFile(dataDir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const mine: OwnerInfo = { pid: process.pid, socketDir: socketDirFor(dataDir), port: SOCKET_PORT, startedAt: new Date().toISOString() };
    try {
      writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      return {
        role: 'owner',
        info: mine,
        release: () => {
          // Only ever remove our own claim.
          if (readOwner(dataDir)?.pid === process.pid) unlinkSync(file);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }

    const info = readOwner(dataDir);
    if (info && info.pid === process.pid) throw new OwnedElsewhereError(`This process already owns ${resolve(dataDir)}.`);
    if (info && isAlive(info.pid)) {
      if (await socketAccepts(info)) return { role: 'client', info };
      if (Date.now() > deadline) {
        throw new OwnedElsewhereError(
          `The embedded database in ${resolve(dataDir)} belongs to process ${info.pid}, which does not answer on ` +
            `${join(info.socketDir, `.s.PGSQL.${info.port}`)}. Stop that process (or, if it is not a cms process, delete ${file}) and retry.`,
        );
      }
      await sleep(100);
      continue;
    }
    // Dead owner, or an unreadable file: give a process that is writing it a moment, then take over.
    if (!info) {
      let age = 0;
      try {
        age = Date.now() - statSync(file).mtimeMs;
      } catch {
        continue;
      }
      if (age < 2000) {
        await sleep(50);
        continue;
      }
    }
    await withTakeoverLock(dataDir, () => {
      const again = readOwner(dataDir);
      const stillStale = again ? again.pid === info?.pid && !isAlive(again.pid) : !info;
      if (stillStale && existsSync(file)) unlinkSync(file);
    });
  }
}
