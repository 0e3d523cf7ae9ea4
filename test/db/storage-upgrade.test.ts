import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/db/client.ts';
import { listMigrations, migrate, migrationsDir } from '../../src/db/migrate.ts';
import { createPrivateDatabase } from './private-db.ts';

const STORAGE_MIGRATION = '20261206000000_entries_by_collection';

/**
 * A database made by the release before partitioned storage (every migration up to the storage one),
 * holding entries of two collections with versions, published copies, search vectors and a
 * per-field index, is migrated; every row, version and index must come through.
 */
describe('upgrade to entries partitioned by collection', () => {
  const drops: Array<() => Promise<void>> = [];
  const open: Database[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const db of open) await db.close().catch(() => {});
    for (const drop of drops) await drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps every entry, version, published copy, search vector and per-collection index', async () => {
    const before = mkdtempSync(join(tmpdir(), 'cms-mig-'));
    dirs.push(before);
    for (const m of listMigrations()) if (m.name < STORAGE_MIGRATION) cpSync(join(migrationsDir, m.name), join(before, m.name), { recursive: true });
    cpSync(join(migrationsDir, 'migration_lock.toml'), join(before, 'migration_lock.toml'));
    const made = await createPrivateDatabase('cms_up', { template: false });
    drops.push(made.drop);
    const db = openPostgres(made.url, 2);
    open.push(db);
    await migrate(db, { dir: before });
    await db.runScript(`
      INSERT INTO projects (uuid, name, default_locale, updated_at) VALUES (gen_random_uuid(), 'p', 'en', now());
      INSERT INTO collections (uuid, project_id, name, slug, updated_at)
        SELECT gen_random_uuid(), id, s, s, now() FROM projects, unnest(ARRAY['posts', 'pages']) s;
      UPDATE entries SET search_published = to_tsvector('simple', 'kept');
      INSERT INTO entries (uuid, project_id, collection_id, locale, data, published_data, state, updated_at)
        SELECT gen_random_uuid(), c.project_id, c.id, 'en', jsonb_build_object('title', 'horse ' || g), jsonb_build_object('title', 'horse ' || g), 'published', now()
        FROM collections c, generate_series(1, 20) g;
      INSERT INTO entry_versions (uuid, entry_id, version_number, locale, snapshot, updated_at)
        SELECT gen_random_uuid(), id, 1, 'en', jsonb_build_object('fields', published_data), now() FROM entries;
      UPDATE entries e SET published_version_id = v.id, published_version_number = 1, last_version_number = 1 FROM entry_versions v WHERE v.entry_id = e.id;
      UPDATE entries SET search_published = to_tsvector('simple', data ->> 'title');`);
    await db.runScript(`
      DO $$ BEGIN
        EXECUTE format('CREATE INDEX "entries_f900_d_x" ON entries ((data ->> %L)) WHERE collection_id = %s AND deleted_at IS NULL', 'title', (SELECT min(id) FROM collections));
      END $$;`);
    const snapshot = async () => ({
      entries: await db.query(`SELECT id, uuid::text, collection_id, data, published_data, published_version_id, search_published::text AS s FROM entries ORDER BY id`),
      versions: await db.query(`SELECT id, uuid::text, entry_id, snapshot FROM entry_versions ORDER BY id`),
    });
    const old = await snapshot();
    expect(old.entries).toHaveLength(40);
    expect(old.entries.every((e) => typeof e.s === 'string' && e.s.includes('horse'))).toBe(true);

    expect(await migrate(db)).toEqual(listMigrations().map((m) => m.name).filter((n) => n >= STORAGE_MIGRATION)); // it and every later one
    expect(await snapshot()).toEqual(old);
    const [{ kind }] = await db.query<{ kind: string }>(`SELECT relkind::text AS kind FROM pg_class WHERE relname = 'entries'`);
    expect(kind).toBe('p');
    const parts = await db.query<{ name: string; n: number }>(
      `SELECT c.relname AS name, (SELECT count(*)::int FROM entries e WHERE 'entries_c' || e.collection_id = c.relname) AS n
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'entries'::regclass ORDER BY 1`,
    );
    expect(parts.map((p) => p.n)).toEqual([20, 20]);
    const [moved] = await db.query<{ table: string }>(`SELECT tablename AS table FROM pg_indexes WHERE indexname = 'entries_f900_d_x'`);
    expect(moved.table).toMatch(/^entries_c\d+$/);
    // Versions now name their collection; deleting an entry still takes its versions.
    expect((await db.query(`SELECT 1 FROM entry_versions v JOIN entries e ON e.id = v.entry_id WHERE v.collection_id <> e.collection_id`)).length).toBe(0);
    await db.runScript(`DELETE FROM entries WHERE id = ${Number(old.entries[0].id)}`);
    expect((await db.query(`SELECT 1 FROM entry_versions WHERE entry_id = $1`, [old.entries[0].id])).length).toBe(0);
    // A collection made after the upgrade gets its partition at once.
    await db.runScript(`INSERT INTO collections (uuid, project_id, name, slug, updated_at) SELECT gen_random_uuid(), id, 'later', 'later', now() FROM projects`);
    const [later] = await db.query<{ attached: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass('entries_c' || (SELECT id FROM collections WHERE slug = 'later'))) AS attached`,
    );
    expect(later.attached).toBe(true);
  }, 120_000);
});
