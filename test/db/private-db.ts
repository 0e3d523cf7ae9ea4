import pg from 'pg';
import { PG_SERVER, templateDb, adminQuery } from '../helpers/pg.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * A database outside the shared `cms_t_*` namespace, for tests whose databases must survive other
 * test runs starting meanwhile (their global setup clears `cms_t_*`). Leftovers of this prefix
 * whose process is gone are dropped first. `template: false` gives an empty database.
 */
export async function createPrivateDatabase(prefix: string, opts: { template?: boolean } = {}): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await client.connect();
  const rows = (await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${prefix}\\_%`])).rows;
  await client.end();
  for (const { datname } of rows) {
    const pid = Number(/_(\d+)_[a-z0-9]+$/.exec(datname)?.[1]);
    if (pid && !alive(pid)) await adminQuery(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(opts.template === false ? `CREATE DATABASE "${name}"` : `CREATE DATABASE "${name}" TEMPLATE "${templateDb()}"`);
  return { url: `${PG_SERVER}/${name}`, name, drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
