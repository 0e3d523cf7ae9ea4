import pg from 'pg';

/** Server URL without a database name; CI and the README set nothing, so this default is the local cluster. */
export const PG_SERVER = (process.env.TEST_PG_SERVER ?? 'postgresql://postgres@127.0.0.1:5432').replace(/\/$/, '');
/**
 * Every `vitest run` gets its own run id (the main process's pid, set by global-setup.ts), its own
 * template database and test databases named after it, so concurrent runs on one machine never drop
 * each other's databases.
 */
export function runId(): string {
  const id = process.env.CMS_TEST_RUN_ID;
  if (!id) throw new Error('CMS_TEST_RUN_ID is unset: run tests through vitest (test/helpers/global-setup.ts sets it).');
  return id;
}
export const templateDb = (): string => process.env.TEST_TEMPLATE_DB ?? `cms_tpl_${runId()}`;
export const TEST_DB_PREFIX = 'cms_t_';
/** A signing key for servers started with DATABASE_URL, which refuse to start without one. */
export const TEST_JWT_KEYS = `test:${'k'.repeat(40)}`;

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from the migrated template (~100 ms instead of re-running migrations). */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${TEST_DB_PREFIX}${runId()}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${templateDb()}"`);
  return {
    url: `${PG_SERVER}/${name}`,
    drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
