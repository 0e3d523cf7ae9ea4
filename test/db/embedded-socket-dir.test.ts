import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { openEmbedded } from '../../src/db/embedded.ts';
import { ownerFile, socketDirFor } from '../../src/db/embedded-owner.ts';

/**
 * Issue 14 §6b: a DATA_DIR too deep for a unix socket puts the socket in a predictable directory
 * under the temp directory. It is created 0700, and one that another user created first (or a
 * symlink planted there) is refused with a message saying what to do, before the database starts.
 */
const isRoot = process.getuid?.() === 0;
const log = pino({ level: 'silent' });

describe('embedded database socket directory', () => {
  const cleanup: string[] = [];
  /** A data directory deep enough that the socket falls back to the temp directory. */
  const deepDataDir = () => {
    const base = mkdtempSync(join(tmpdir(), 'cms-sock-'));
    cleanup.push(base);
    const dir = join(base, 'd'.repeat(100));
    mkdirSync(dir, { recursive: true });
    const socketDir = socketDirFor(dir);
    expect(socketDir.startsWith(tmpdir())).toBe(true);
    rmSync(socketDir, { recursive: true, force: true });
    cleanup.push(socketDir);
    return { dir, socketDir };
  };
  afterAll(() => {
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it('creates the fallback directory 0700 and serves through it', async () => {
    const { dir, socketDir } = deepDataDir();
    const db = await openEmbedded(dir, log, { poolSize: 1 });
    try {
      expect(statSync(socketDir).mode & 0o777).toBe(0o700);
      expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('tightens an own directory that is open to others', async () => {
    const { dir, socketDir } = deepDataDir();
    mkdirSync(socketDir, { mode: 0o777 });
    chmodSync(socketDir, 0o777);
    const db = await openEmbedded(dir, log, { poolSize: 1 });
    try {
      expect(statSync(socketDir).mode & 0o777).toBe(0o700);
    } finally {
      await db.close();
    }
  }, 120_000);

  it.runIf(isRoot)('refuses a directory another user created first, naming it and what to do', async () => {
    const { dir, socketDir } = deepDataDir();
    mkdirSync(socketDir, { mode: 0o777 });
    chownSync(socketDir, 65534, 65534);
    const err = await openEmbedded(dir, log, { poolSize: 1 }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain(socketDir);
    expect(err?.message).toMatch(/belongs to another user \(uid 65534/);
    expect(err?.message).toMatch(/Remove that directory/);
    // Nothing was served there and the claim was released for the next attempt.
    expect(existsSync(join(socketDir, '.s.PGSQL.5432'))).toBe(false);
    expect(existsSync(ownerFile(dir))).toBe(false);
  });

  it('refuses a symlink planted at the fallback path', async () => {
    const { dir, socketDir } = deepDataDir();
    const elsewhere = mkdtempSync(join(tmpdir(), 'cms-elsewhere-'));
    cleanup.push(elsewhere);
    symlinkSync(elsewhere, socketDir);
    const err = await openEmbedded(dir, log, { poolSize: 1 }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/not a plain directory/);
    expect(existsSync(join(elsewhere, '.s.PGSQL.5432'))).toBe(false);
  });
});
