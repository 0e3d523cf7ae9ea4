import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/db/client.ts';
import { openEmbeddedInMemory } from '../../src/db/embedded.ts';
import { listMigrations, migrate, migrationsDir } from '../../src/db/migrate.ts';
import { migrationSql } from '../../scripts/migration-sql.ts';
import { PG_SERVER, adminQuery } from '../helpers/pg.ts';
import { createPrivateDatabase } from './private-db.ts';

const root = resolve(import.meta.dirname, '../..');

/** A fresh, empty database (not cloned from the migrated template). */
async function emptyDatabase(created: string[]): Promise<string> {
  const db = await createPrivateDatabase('cms_mig', { template: false });
  created.push(db.name);
  return db.url;
}

/**
 * Everything about the public schema a migration can change, as sorted text lines. Indexes named
 * `*_x` are hand-written extras Prisma cannot express; `_prisma_migrations` is bookkeeping. Of
 * `entries` only the columns are Prisma's: the table is partitioned by collection and its keys,
 * indexes, references and partitions are the storage migration's (docs/architecture.md, "Entry
 * storage"), which Prisma's schema language cannot express.
 */
async function catalog(db: Database): Promise<Record<string, string[]>> {
  const lines = async (sql: string) => (await db.query<{ line: string }>(sql)).map((r) => r.line).sort();
  return {
    tables: await lines(`
      SELECT c.relname AS line FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition AND c.relname <> '_prisma_migrations'`),
    columns: await lines(`
      SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
             || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
             || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
             || CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END AS line
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
        AND c.relname <> '_prisma_migrations'`),
    indexes: await lines(`
      SELECT indexname || ': ' || indexdef AS line FROM pg_indexes
      WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' AND tablename <> 'entries' AND tablename NOT LIKE 'entries\\_c%'
        AND indexname NOT LIKE '%\\_x'`),
    constraints: await lines(`
      SELECT cl.relname || '.' || co.conname || ' ' || co.contype::text || ' ' || pg_get_constraintdef(co.oid) AS line
      FROM pg_constraint co JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_namespace n ON n.oid = co.connamespace
      WHERE n.nspname = 'public' AND cl.relname <> '_prisma_migrations' AND co.conname NOT LIKE '%\\_x'
        AND cl.relname <> 'entries' AND NOT cl.relispartition AND co.confrelid IS DISTINCT FROM to_regclass('entries')`),
    enums: await lines(`
      SELECT t.typname || ': ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) AS line
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' GROUP BY t.typname`),
    sequences: await lines(`
      SELECT sequence_name || ' ' || data_type AS line FROM information_schema.sequences WHERE sequence_schema = 'public'`),
  };
}

describe('migrations', () => {
  const created: string[] = [];
  const open: Database[] = [];
  const connect = (url: string) => {
    const db = openPostgres(url, 3);
    open.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of open) await db.close().catch(() => {});
    for (const name of created) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  it('produce exactly the schema prisma/schema.prisma describes', async () => {
    const migrated = connect(await emptyDatabase(created));
    await migrate(migrated);
    const direct = connect(await emptyDatabase(created));
    const sql = migrationSql({ to: join(root, 'prisma/schema.prisma'), databaseUrl: `${PG_SERVER}/postgres` });
    expect(sql).toMatch(/CREATE TABLE "projects"/);
    await direct.runScript(sql);

    const [a, b] = [await catalog(migrated), await catalog(direct)];
    for (const key of Object.keys(b)) expect(a[key], key).toEqual(b[key]);
    expect(a.tables.length).toBeGreaterThan(10);
  }, 120_000);

  it('record each migration as `prisma migrate deploy` does, and a second run applies nothing', async () => {
    const db = connect(await emptyDatabase(created));
    const all = listMigrations();
    expect(await migrate(db)).toEqual(all.map((m) => m.name));
    const rows = await db.query<{ id: string; checksum: string; migration_name: string; finished_at: Date | null; rolled_back_at: Date | null; applied_steps_count: number; logs: string | null }>(
      `SELECT * FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(all.map((m) => m.name));
    for (const r of rows) {
      const file = readFileSync(join(migrationsDir, r.migration_name, 'migration.sql'));
      expect(r.checksum).toBe(createHash('sha256').update(file).digest('hex'));
      expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.rolled_back_at).toBeNull();
      expect(r.logs).toBeNull();
      expect(r.applied_steps_count).toBe(1);
    }
    // Prisma's own column layout, so `prisma migrate deploy` on a networked machine reads this table.
    const cols = await db.query<{ line: string }>(`
      SELECT column_name || ' ' || data_type || coalesce('(' || character_maximum_length || ')', '') || ' ' || is_nullable AS line
      FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`);
    expect(cols.map((c) => c.line)).toEqual([
      'id character varying(36) NO',
      'checksum character varying(64) NO',
      'finished_at timestamp with time zone YES',
      'migration_name character varying(255) NO',
      'logs text YES',
      'rolled_back_at timestamp with time zone YES',
      'started_at timestamp with time zone NO',
      'applied_steps_count integer NO',
    ]);

    expect(await migrate(db)).toEqual([]);
    expect((await db.query(`SELECT 1 FROM "_prisma_migrations"`)).length).toBe(all.length);
  });

  it('two concurrent runs on one database both succeed and apply each migration once', async () => {
    const url = await emptyDatabase(created);
    const [one, two] = [connect(url), connect(url)];
    const [a, b] = await Promise.all([migrate(one), migrate(two)]);
    const names = listMigrations().map((m) => m.name);
    expect([...a, ...b].sort()).toEqual(names);
    const rows = await one.query<{ migration_name: string; n: string }>(
      `SELECT migration_name, count(*)::text AS n FROM "_prisma_migrations" GROUP BY migration_name ORDER BY migration_name`,
    );
    expect(rows).toEqual(names.map((n) => ({ migration_name: n, n: '1' })));
  });

  it('a failing migration rolls back whole and is not recorded; the next run retries it', async () => {
    const db = connect(await emptyDatabase(created));
    const dir = mkdtempSync(join(tmpdir(), 'cms-mig-'));
    try {
      mkdirSync(join(dir, '001_ok'));
      writeFileSync(join(dir, '001_ok', 'migration.sql'), 'CREATE TABLE a (id int);');
      mkdirSync(join(dir, '002_bad'));
      writeFileSync(join(dir, '002_bad', 'migration.sql'), 'CREATE TABLE b (id int);\nSELECT * FROM no_such_table;');
      await expect(migrate(db, { dir })).rejects.toThrow(/no_such_table/);
      const tables = (await db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).map((r) => r.t);
      expect(tables).toEqual(['_prisma_migrations', 'a']);
      writeFileSync(join(dir, '002_bad', 'migration.sql'), 'CREATE TABLE b (id int);');
      expect(await migrate(db, { dir })).toEqual(['002_bad']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('run on PGlite too', async () => {
    const db = await openEmbeddedInMemory();
    try {
      expect(await migrate(db)).toEqual(listMigrations().map((m) => m.name));
      expect(await migrate(db)).toEqual([]);
      const tables = (await db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`)).map((r) => r.t);
      expect(tables).toEqual(expect.arrayContaining(['projects', 'collections', 'fields', 'entries', 'entry_versions', 'webhooks', '_prisma_migrations']));
      // The Prisma client works on the result.
      const p = await db.prisma.project.create({ data: { name: 'x', locales: ['en'], defaultLocale: 'en' } });
      expect(p.schemaRevision).toBe(1);
    } finally {
      await db.close();
    }
  }, 120_000);
});
