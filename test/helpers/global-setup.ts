import pg from 'pg';
import { openPostgres } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { PG_SERVER, TEMPLATE_DB, adminQuery } from './pg.ts';

/** Builds the migrated template database every test database is cloned from; drops leftovers of killed runs. */
export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await client.connect();
  const stale = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'cms_t\\_%'`);
  await client.end();
  for (const { datname } of stale.rows) await adminQuery(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  await adminQuery(`DROP DATABASE IF EXISTS "${TEMPLATE_DB}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${TEMPLATE_DB}"`);
  const db = openPostgres(`${PG_SERVER}/${TEMPLATE_DB}`, 1);
  await migrate(db);
  await db.close();
}
