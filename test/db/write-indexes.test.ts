import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateDatabase } from './private-db.ts';

/**
 * Migration 20261126080000_cheaper_entry_writes made three indexes partial so that writes skip rows
 * no read finds through them. A partial index only serves a query whose WHERE implies its predicate:
 * these plans (with sequential scans off, so an unusable index shows as its absence) prove that every
 * reader's statement shape still reaches its index, including the foreign key's generic plan.
 */
describe('partial indexes of the write path', () => {
  let db: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let client: pg.Client;
  /** The plan with every other index of the table dropped (rolled back): on an empty table the planner would pick any. */
  const plan = async (table: string, index: string, sql: string, params: Array<string | number> = [], generic = false): Promise<string> => {
    await client.query('BEGIN');
    try {
      const { rows: others } = await client.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
          WHERE x.indrelid = $1::regclass AND NOT x.indisprimary AND (NOT x.indisunique OR $1::text = 'entries') AND c.relname <> $2`,
        // Dropping an index of `entries` drops its copy on every partition.
        [table, index],
      );
      for (const o of others) await client.query(`DROP INDEX "${o.name}"`);
      // Its primary key leads with the partition key, so on an empty partition it serves any collection's read.
      if (table === 'entries') await client.query('ALTER TABLE entries DROP CONSTRAINT entries_pkey');
      // The ON DELETE SET NULL action runs a cached generic plan with the group as a parameter.
      if (generic) await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE probe AS ${sql}`);
      // Parameters are test constants (numbers, array literals), inlined as quoted literals.
      const args = params.length ? `(${params.map((p) => `'${String(p)}'`).join(', ')})` : '';
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE probe${args}`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE ALL');
    }
  };

  beforeAll(async () => {
    db = await createPrivateDatabase('cms_wi');
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('SET enable_seqscan = off');
    // Entries are partitioned by collection: a collection gives the plans a partition to read.
    await client.query(`INSERT INTO projects (uuid, name, default_locale, updated_at) VALUES (gen_random_uuid(), 'p', 'en', now())`);
    await client.query(`INSERT INTO collections (id, uuid, project_id, name, slug, updated_at) SELECT 1, gen_random_uuid(), id, 'Posts', 'posts', now() FROM projects LIMIT 1`);
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('are partial on the rows their readers select', async () => {
    const { rows } = await client.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
        WHERE indexname IN ('entries_published_data_path_x', 'entries_translation_group_x', 'outbox_events_dispatched_x',
                            'entries_translation_group_id_idx', 'outbox_events_dispatched_at_id_idx')`,
    );
    const defs = new Map(rows.map((r) => [r.name, r.def]));
    expect([...defs.keys()].sort()).toEqual(['entries_published_data_path_x', 'entries_translation_group_x', 'outbox_events_dispatched_x']);
    expect(defs.get('entries_published_data_path_x')).toMatch(
      /WHERE \(\(deleted_at IS NULL\) AND \(state = 'published'::"EntryState"\) AND \(published_version_id IS NOT NULL\)\)$/,
    );
    expect(defs.get('entries_translation_group_x')).toMatch(/WHERE \(translation_group_id IS NOT NULL\)$/);
    expect(defs.get('outbox_events_dispatched_x')).toMatch(/WHERE \(dispatched_at IS NOT NULL\)$/);
  });

  it('serve translation-group lookups, by one group, by a list, and the foreign key action', async () => {
    const ix = 'entries_translation_group_x';
    expect(await plan('entries', ix, 'SELECT id FROM entries WHERE translation_group_id = ANY($1::int[]) AND deleted_at IS NULL', ['{1,2}'])).toContain(ix);
    expect(await plan('entries', ix, 'SELECT id FROM entries WHERE translation_group_id = $1::int AND locale = $2::text AND deleted_at IS NULL', [1, 'en'])).toContain(ix);
    expect(await plan('entries', ix, 'UPDATE entries SET translation_group_id = NULL WHERE translation_group_id = $1::int', [1], true)).toContain(ix);
  });

  it('serve the outbox retention purge and published containment filters', async () => {
    expect(await plan('outbox_events', 'outbox_events_dispatched_x', `SELECT id FROM outbox_events WHERE dispatched_at < now() - make_interval(hours => $1::int) LIMIT 100`, [24])).toContain('outbox_events_dispatched_x');
    expect(
      await plan(
        'entries',
        'entries_published_data_path_x',
        `SELECT e.id FROM entries e WHERE e.collection_id = 1 AND e.deleted_at IS NULL AND e."state" = 'published' AND e."published_version_id" IS NOT NULL
           AND e.published_data @> '{"views": 5}'::jsonb`,
      ),
    ).toContain('entries_published_data_path_x');
  });
});
