import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createProject } from '../../src/projects/operations.ts';
import { issueToken } from '../../src/auth/tokens.ts';

/** Local cluster used when DATABASE_URL is not set (the same default as the test suite). */
export const PG_SERVER = (process.env.TEST_PG_SERVER ?? 'postgresql://postgres@127.0.0.1:5432').replace(/\/$/, '');

export interface BenchDatabase {
  url: string;
  db: Database;
  /** True when the harness created the database (and drops it on close). */
  owned: boolean;
  close(): Promise<void>;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * DATABASE_URL when given (left in place afterwards), else a fresh `cms_bench_<random>` database on
 * the local server that close() drops, so runs never see each other's rows.
 */
export async function openBenchDatabase(prefix = 'cms_bench'): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL;
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  if (!given) await admin(`CREATE DATABASE "${name}"`);
  const url = given ?? `${PG_SERVER}/${name}`;
  const db = openPostgres(url, 10);
  await migrate(db);
  return {
    url,
    db,
    owned: !given,
    async close() {
      await db.close().catch(() => {});
      if (!given) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
    },
  };
}

/**
 * DATABASE_URL when given, else the local server's database `name`, made on first use and kept
 * between runs (the million-row benches seed once and reuse it), migrated either way.
 */
export async function openKeptBenchDatabase(name: string, poolSize = 4): Promise<{ db: Database; url: string }> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
    await client.connect();
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
    } finally {
      await client.end();
    }
    url = `${PG_SERVER}/${name}`;
  }
  const db = openPostgres(url, poolSize);
  await migrate(db);
  return { db, url };
}

/** `--key=value` and `--flag` command-line arguments of a bench script run alone. */
export const benchArgs = (argv = process.argv.slice(2)): Map<string, string> =>
  new Map(
    argv.map((a) => {
      const [k, v] = a.replace(/^--/, '').split('=');
      return [k, v ?? 'true'] as const;
    }),
  );

export interface BenchProject {
  uuid: string;
  id: number;
  headers: Record<string, string>;
}

export async function createBenchProject(db: Database, name: string): Promise<BenchProject> {
  const p = await createProject(db.prisma, { name, plan: 'pro', locales: ['en'] });
  const t = await issueToken(db.prisma, { projectUuid: p.uuid, abilities: ['*'], name: 'bench' });
  return { uuid: p.uuid, id: p.id, headers: { 'project-id': p.uuid, authorization: `Bearer ${t.token}` } };
}

export const redactUrl = (url: string): string => url.replace(/\/\/[^@/]*@/, '//***@');
