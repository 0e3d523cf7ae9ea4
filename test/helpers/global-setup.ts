import pg from 'pg';
import { openPostgres } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { PG_SERVER, TEST_DB_PREFIX, adminQuery, templateDb } from './pg.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function databaseNames(pattern: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await client.connect();
  try {
    return (await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [pattern])).rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
}

/** Drops the run's databases; with `onlyDead`, those of runs whose main process is gone (killed runs). */
async function dropRunDatabases(filter: (runPid: number) => boolean): Promise<void> {
  const names = [...(await databaseNames(`${TEST_DB_PREFIX.replace('_', '\\_')}%`)), ...(await databaseNames('cms\\_tpl\\_%'))];
  for (const name of names) {
    const runPid = Number(/^cms_(?:t|tpl)_(\d+)/.exec(name)?.[1]);
    if (runPid && filter(runPid)) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

/**
 * Builds this run's migrated template database (every test database is cloned from it) and clears
 * leftovers of runs that were killed. Runs that are still going are left alone, so engineers and CI
 * can run the suite side by side.
 */
export default async function setup(): Promise<() => Promise<void>> {
  process.env.CMS_TEST_RUN_ID ??= String(process.pid);
  const runPid = Number(process.env.CMS_TEST_RUN_ID);
  await dropRunDatabases((pid) => pid !== runPid && !alive(pid));
  const template = templateDb();
  await adminQuery(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${template}"`);
  const db = openPostgres(`${PG_SERVER}/${template}`, 1);
  await migrate(db);
  await db.close();
  return async () => {
    await dropRunDatabases((pid) => pid === runPid);
  };
}
