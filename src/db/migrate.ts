import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './client.ts';

export const migrationsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../prisma/migrations');

/** Prisma's own lock id, so this runner and `prisma migrate deploy` never run side by side. */
const LOCK_ID = 72707369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function listMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const BOOKKEEPING = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
);`;

function dollarTag(sql: string, base: string): string {
  let tag = base;
  while (sql.includes(`$${tag}$`)) tag += '_x';
  return `$${tag}$`;
}

/**
 * Applies pending migrations in name order and records them the way `prisma migrate deploy` does.
 * Each migration is one script run as a single implicit transaction: it takes Prisma's advisory
 * lock, re-checks under the lock that the migration is still pending (another replica may have won
 * the race), then runs it and records it. A failing migration rolls back whole. Returns the names
 * of the migrations this call applied (not those another process applied meanwhile).
 */
export async function migrate(db: Database, opts: { dir?: string } = {}): Promise<string[]> {
  // Under the lock too: two concurrent CREATE TABLE IF NOT EXISTS can collide in pg_type.
  await db.runScript(`SELECT pg_advisory_xact_lock(${LOCK_ID});\n${BOOKKEEPING}`);
  const applied = new Set(
    (await db.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    )).map((r) => r.migration_name),
  );
  const done: string[] = [];
  for (const m of listMigrations(opts.dir)) {
    if (applied.has(m.name)) continue;
    const inner = dollarTag(m.sql, 'cms_migration');
    const outer = dollarTag(m.sql, 'cms_migration_outer');
    const name = m.name.replace(/'/g, "''");
    // Our own row id tells afterwards whether this call applied it or found it already applied.
    const id = randomUUID();
    await db.runScript(`
SELECT pg_advisory_xact_lock(${LOCK_ID});
DO ${outer} BEGIN
  IF NOT EXISTS (SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '${name}' AND finished_at IS NOT NULL AND rolled_back_at IS NULL) THEN
    EXECUTE ${inner}${m.sql}${inner};
    INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
    VALUES ('${id}', '${m.checksum}', now(), '${name}', now(), 1);
  END IF;
END ${outer};`);
    if ((await db.query(`SELECT 1 FROM "_prisma_migrations" WHERE id = $1`, [id])).length) done.push(m.name);
  }
  return done;
}
