import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, field, type World } from '../helpers/world.ts';
import { Prisma } from '../../src/db/client.ts';
import { uniqueIndexName } from '../../src/collections/unique-indexes.ts';
import { ensureCollectionIndexes } from '../../src/collections/collection-repair.ts';
import { loadCollectionBySlug } from '../../src/collections/model.ts';
import { uniqueHoldersQuery, uniqueRecheckSql } from '../../src/entries/values/unique-sql.ts';

/**
 * A field with the unique rule (and every top-level slug) has a btree on (locale, data -> field),
 * partial on its collection's live rows, that follows the schema after a change commits
 * (src/collections/unique-indexes.ts; test/db/seed.test.ts covers builds inside a caller's
 * transaction); and the unique statements probe it instead of scanning the collection.
 */
describe('unique field indexes', () => {
  let w: World;
  beforeAll(async () => {
    w = await world({
      via: 'api',
      collections: [
        { slug: 'notes', fields: [field.text('title')] },
        { slug: 'codes', fields: [field.text('code', { validations: { unique: { status: true } } })] },
      ],
    });
  }, 120_000);
  afterAll(() => w.close());

  const fieldId = async (uuid: string): Promise<number> =>
    (await w.t.database.query<{ id: number }>(`SELECT id FROM fields WHERE uuid = $1::uuid`, [uuid]))[0].id;
  const indexDef = async (fieldIdValue: number): Promise<string | null> =>
    (await w.t.database.query<{ def: string }>(`SELECT indexdef AS def FROM pg_indexes WHERE tablename ~ '^entries_c[0-9]+$' AND indexname = $1`, [uniqueIndexName(fieldIdValue)]))[0]?.def ??
    null;

  it('exists while the field has the rule: added with it, dropped when the rule goes or the field or collection is deleted', async () => {
    const { id: notes } = w.c.notes;
    const put = (uuid: string, body: Record<string, unknown>) => w.api('PUT', `/api/collections/notes/fields/${uuid}`, body);

    const added = await w.api('POST', '/api/collections/notes/fields', { type: 'text', label: 'Code', name: 'code', validations: { unique: { status: true } } });
    expect(added.status).toBe(201);
    const code = await fieldId(added.body.uuid);
    expect(await indexDef(code)).toMatch(
      new RegExp(`USING btree \\(locale, \\(\\(data -> 'code'::text\\)\\)\\) WHERE \\(\\(collection_id = ${notes}\\) AND \\(deleted_at IS NULL\\)\\)$`),
    );

    expect((await put(added.body.uuid, { type: 'text', label: 'Code', name: 'code' })).status).toBe(200);
    expect(await indexDef(code)).toBeNull();
    expect((await put(added.body.uuid, { type: 'text', label: 'Code', name: 'code', validations: { unique: { status: true } } })).status).toBe(200);
    expect(await indexDef(code)).not.toBeNull();
    // A rename rebuilds it on the new name.
    expect((await put(added.body.uuid, { type: 'text', label: 'Ref', name: 'ref', validations: { unique: { status: true } } })).status).toBe(200);
    expect(await indexDef(code)).toContain(`(data -> 'ref'::text)`);
    expect((await w.api('DELETE', `/api/collections/notes/fields/${added.body.uuid}`)).status).toBe(204);
    expect(await indexDef(code)).toBeNull();

    // Slugs are unique without the rule; a plain text field gets no index.
    const slug = await w.api('POST', '/api/collections/notes/fields', { type: 'slug', label: 'Slug', name: 'slug', options: { slug: { field: 'title' } } });
    expect(slug.status).toBe(201);
    const slugId = await fieldId(slug.body.uuid);
    expect(await indexDef(slugId)).not.toBeNull();
    expect(await indexDef(await fieldId(w.c.notes.fields.find((f) => f.name === 'title')!.uuid))).toBeNull();

    expect((await w.api('DELETE', '/api/collections/notes', { slug: 'notes' })).status).toBe(204);
    expect(await indexDef(slugId)).toBeNull();
  });

  describe('plans', () => {
    let target: { id: number; name: string };
    beforeAll(async () => {
      target = { id: await fieldId(w.c.codes.fields[0].uuid), name: 'code' };
      // Enough rows that a scan of the collection costs far more than a probe per value.
      await w.t.database.runScript(`
        INSERT INTO entries (uuid, project_id, collection_id, locale, state, data, created_at, updated_at)
        SELECT gen_random_uuid(), ${w.p.id}, ${w.c.codes.id}, 'en', 'draft', jsonb_build_object('code', 'c' || i), now(), now()
          FROM generate_series(1, 5000) AS i;
        ANALYZE entries;`);
    });

    const values = JSON.stringify([
      { id: -1, locale: 'en', value: 'c17' },
      { id: -2, locale: 'en', value: 'new' },
    ]);
    class Rollback extends Error {}

    /**
     * The executed plan of the recheck as its named prepared statement runs it (generic, or custom to
     * its values), in a transaction that is rolled back (after dropping the index when `withoutIndex`).
     */
    async function recheckPlan(mode: 'force_generic_plan' | 'force_custom_plan', withoutIndex = false): Promise<string> {
      let plan = '';
      await w.t.database.prisma
        .$transaction(async (tx) => {
          if (withoutIndex) await tx.$executeRawUnsafe(`DROP INDEX "${uniqueIndexName(target.id)}"`);
          await tx.$executeRawUnsafe(`SET LOCAL plan_cache_mode = ${mode}`);
          await tx.$executeRawUnsafe(`PREPARE unique_plan_test(jsonb) AS ${uniqueRecheckSql(w.c.codes.id, target)}`);
          try {
            const rows = await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE unique_plan_test('${values}')`);
            plan = rows.map((r) => r['QUERY PLAN']).join('\n');
          } finally {
            await tx.$executeRawUnsafe('DEALLOCATE unique_plan_test');
          }
          throw new Rollback();
        })
        .catch((err) => {
          if (!(err instanceof Rollback)) throw err;
        });
      return plan;
    }
    /** The plan's nodes that ran (the fallback branch of a statement is there, but never executed). */
    const ran = (plan: string) => plan.split('\n').filter((l) => /^\s*->|^\S/.test(l) && !l.includes('never executed')).join('\n');

    it('the post-write recheck probes the index per value, in its generic and custom plans', async () => {
      for (const mode of ['force_generic_plan', 'force_custom_plan'] as const) {
        const plan = ran(await recheckPlan(mode));
        expect(plan, mode).toContain(`Index Scan using ${uniqueIndexName(target.id)}`);
        expect(plan, mode).not.toMatch(/Seq Scan on entries|Hash/);
      }
      expect(await w.t.database.query(uniqueRecheckSql(w.c.codes.id, target), [values])).toHaveLength(1);
    });

    it('without a readable index (being built, or a failed build) the recheck hashes the values once instead', async () => {
      const plan = ran(await recheckPlan('force_generic_plan', true));
      expect(plan).not.toContain(uniqueIndexName(target.id));
      expect(plan).toMatch(/Hash/);
    });

    it('the check before a write probes it too', async () => {
      const query = uniqueHoldersQuery(w.c.codes.id, target, [{ locale: 'en', value: 'c17' }, { locale: 'en', value: 'new' }], ['en'], []);
      const rows = await w.t.database.prisma.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${query}`);
      const plan = ran(rows.map((r) => r['QUERY PLAN']).join('\n'));
      expect(plan).toContain(`Index Scan using ${uniqueIndexName(target.id)}`);
      expect(plan).not.toMatch(/Seq Scan on entries|Hash/);
      expect(await w.t.database.prisma.$queryRaw<Array<{ v: unknown }>>(query)).toEqual([expect.objectContaining({ locale: 'en', v: 'c17' })]);
    });
  });

  it('a repair (ensureCollectionIndexes) builds a missing unique index, rebuilds an invalid one and drops those no field wants', async () => {
    const made = await w.collection({
      slug: 'repairs',
      fields: [field.text('code', { validations: { unique: { status: true } } }), field.text('ref', { validations: { unique: { status: true } } }), field.text('note')],
    });
    const [code, ref, note] = await Promise.all(made.fields.map((f) => fieldId(f.uuid)));
    const codes = await fieldId(w.c.codes.fields[0].uuid);
    const valid = async (id: number) =>
      (await w.t.database.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)`, [uniqueIndexName(id)]))[0]?.valid ?? null;
    expect(await valid(code)).toBe(true);
    expect(await valid(note)).toBeNull();

    // Lost by hand; left invalid (a failed CONCURRENTLY build); one on a field without the rule and
    // one of a field long deleted, both partial on this collection.
    await w.t.database.runScript(`DROP INDEX "${uniqueIndexName(code)}"`);
    await w.t.database.runScript(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${uniqueIndexName(ref)}'::regclass`);
    for (const [id, name] of [[note, 'note'], [2_000_000_000, 'gone']] as const) {
      await w.t.database.runScript(`CREATE INDEX "${uniqueIndexName(id)}" ON "entries_c${made.id}" (locale, (data -> '${name}'::text)) WHERE collection_id = ${made.id} AND deleted_at IS NULL`);
    }
    expect(await valid(code)).toBeNull();
    expect(await valid(ref)).toBe(false);

    await ensureCollectionIndexes(w.t.database, await loadCollectionBySlug(w.t.database.prisma, w.p.id, 'repairs'));
    expect(await valid(code)).toBe(true);
    expect(await valid(ref)).toBe(true);
    expect(await valid(note)).toBeNull();
    expect(await valid(2_000_000_000)).toBeNull();
    // Another collection's index is not this repair's business.
    expect(await valid(codes)).toBe(true);
    expect(await indexDef(code)).toMatch(new RegExp(`USING btree \\(locale, \\(\\(data -> 'code'::text\\)\\)\\) WHERE \\(\\(collection_id = ${made.id}\\) AND \\(deleted_at IS NULL\\)\\)$`));

    // Run again, it changes nothing.
    await ensureCollectionIndexes(w.t.database, await loadCollectionBySlug(w.t.database.prisma, w.p.id, 'repairs'));
    expect([await valid(code), await valid(ref), await valid(note)]).toEqual([true, true, null]);
  });
});
