import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { openPostgres } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';

const run = promisify(execFile);

/**
 * A PostgreSQL primary and a streaming replica of it, made for the tests: the machine's own cluster
 * accepts no replication connections and is shared, so the harness makes its own primary with
 * `initdb` on a free port, copies it with `pg_basebackup -R`, and starts the copy on another port as
 * a hot standby. Made once per test process and reused by every file that asks (`replicaPair()`).
 * PostgreSQL refuses to run as root: as root, the servers run as the `postgres` user.
 */
export interface ReplicaPair {
  /** The primary's URL of the migrated `cms` database. */
  primaryUrl: string;
  replicaUrl: string;
  /** A statement on the replica (statistics, pausing replay). */
  onReplica<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Makes the replica apply each commit `ms` after it happened (`recovery_min_apply_delay`; 0: at once). */
  delayReplay(ms: number): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  close(): Promise<void>;
}

const BIN_DIRS = [process.env.PG_BIN, '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/17/bin'].filter(Boolean) as string[];

/** The server binaries' directory, or undefined when they are not installed (the tests that need them skip). */
export const postgresBinaries = (): string | undefined =>
  BIN_DIRS.find((d) => ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'].every((b) => existsSync(join(d, b))));

/** Why the pair cannot be made here (binaries missing, or root without a `postgres` user to run them as), or undefined. */
export function replicaHarnessProblem(): string | undefined {
  if (!postgresBinaries()) return 'PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) not found; set PG_BIN';
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root and no postgres user to run PostgreSQL as';
    }
  }
  return undefined;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

let made: Promise<ReplicaPair> | undefined;

export function replicaPair(): Promise<ReplicaPair> {
  made ??= makePair();
  return made;
}

async function makePair(): Promise<ReplicaPair> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) not found; set PG_BIN');
  const root = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'cms-replica-'));
  let uid: number | undefined;
  let gid: number | undefined;
  if (root) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    uid = Number(stdout.trim());
    gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    await chown(dir, uid, gid);
    await chmod(dir, 0o700);
  }
  const as = (cmd: string, args: string[]) =>
    root ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { cwd: dir }) : run(join(bin, cmd), args, { cwd: dir });
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];

  await as('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const conf = [
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'wal_level = replica',
    'max_wal_senders = 4',
    'fsync = off',
    'full_page_writes = off',
    'shared_buffers = 32MB',
    'max_connections = 60',
    "shared_preload_libraries = 'pg_stat_statements'",
    'hot_standby_feedback = on',
    '',
  ].join('\n');
  await appendFile(join(primaryDir, 'postgresql.conf'), conf);
  await appendFile(join(primaryDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
  await as('pg_ctl', ['-D', primaryDir, '-l', join(dir, 'primary.log'), '-o', `-p ${primaryPort}`, '-w', 'start']);

  const admin = `postgresql://postgres@127.0.0.1:${primaryPort}`;
  const client = new pg.Client({ connectionString: `${admin}/postgres` });
  await client.connect();
  await client.query('CREATE DATABASE cms');
  await client.end();
  const primaryUrl = `${admin}/cms`;
  const db = openPostgres(primaryUrl, 2);
  try {
    await migrate(db);
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  } finally {
    await db.close();
  }

  await as('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
  const replicaUrl = `postgresql://postgres@127.0.0.1:${replicaPort}/cms`;
  const startReplica = async () => {
    await as('pg_ctl', ['-D', replicaDir, '-l', join(dir, 'replica.log'), '-o', `-p ${replicaPort}`, '-w', 'start']);
  };
  await startReplica();

  const onReplica = async <T,>(sql: string): Promise<T[]> => {
    const c = new pg.Client({ connectionString: replicaUrl });
    await c.connect();
    try {
      return (await c.query(sql)).rows as T[];
    } finally {
      await c.end();
    }
  };
  // Written only so a reader of the directory knows what it was.
  await writeFile(join(dir, 'README'), `primary ${primaryUrl}\nreplica ${replicaUrl}\n`).catch(() => {});
  if (root) await chown(join(dir, 'README'), uid!, gid!).catch(() => {});

  return {
    primaryUrl,
    replicaUrl,
    onReplica,
    startReplica,
    async delayReplay(ms) {
      await appendFile(join(replicaDir, 'postgresql.auto.conf'), `recovery_min_apply_delay = '${Math.max(0, Math.round(ms))}ms'\n`);
      await as('pg_ctl', ['-D', replicaDir, 'reload']);
    },
    stopReplica: async () => {
      await as('pg_ctl', ['-D', replicaDir, '-m', 'immediate', '-w', 'stop']);
    },
    async close() {
      await as('pg_ctl', ['-D', replicaDir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await as('pg_ctl', ['-D', primaryDir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
      made = undefined;
    },
  };
}
