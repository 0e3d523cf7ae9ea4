import type { Prisma } from '../../src/db/client.ts';
import { loadCollectionBySlug } from '../../src/collections/model.ts';
import { compileWhere } from '../../src/filtering/index.ts';
import { publishedReadCondition } from '../../src/collections/field-indexes.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world } from '../helpers/world.ts';
import type { FieldSpec } from '../helpers/fixtures.ts';

/** Seeded entry: `name` labels it in assertions; draft goes to `data`, published (if any) to `published_data`. */
export interface SeedEntry {
  name: string;
  locale?: string;
  draft: Record<string, unknown>;
  published?: Record<string, unknown> | null;
  createdAt?: string;
  deleted?: boolean;
}

export interface FilterWorld {
  t: TestApp;
  project: TestProject;
  collectionIds: Record<string, number>;
  entries: Record<string, { id: number; uuid: string }>;
  assets: Record<string, { id: number; uuid: string }>;
  /** Names of the entries of `slug` the filter selects, sorted. */
  match(slug: string, where: unknown, column?: 'data' | 'published_data'): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A real PostgreSQL (or PGlite) database with collections and entries inserted directly, so the
 * compiler is tested against the SQL it produces, independent of the list route.
 */
export async function filterWorld(
  collections: Array<{ slug: string; fields: FieldSpec[] | ((ids: Record<string, number>) => FieldSpec[]) }>,
  seed: (ctx: { ids: Record<string, number>; entries: FilterWorld['entries']; assets: FilterWorld['assets'] }) => Array<{ slug: string; entries: SeedEntry[] | (() => SeedEntry[]) }>,
  opts: { embedded?: boolean; assets?: string[] } = {},
): Promise<FilterWorld> {
  const w = await world({ app: { embedded: opts.embedded } });
  const { t, p: project } = w;
  const db = t.database.prisma;
  const collectionIds: Record<string, number> = {};
  for (const c of collections) {
    const fields = typeof c.fields === 'function' ? c.fields(collectionIds) : c.fields;
    collectionIds[c.slug] = (await w.collection({ slug: c.slug, fields })).id;
  }
  const assets: FilterWorld['assets'] = {};
  for (const name of opts.assets ?? []) {
    const a = await db.asset.create({
      data: { projectId: project.id, filename: name, originalFilename: name, mimeType: 'image/png', size: 1, storageKey: name },
    });
    assets[name] = { id: a.id, uuid: a.uuid };
  }
  const entries: FilterWorld['entries'] = {};
  const names = new Map<number, string>();
  // Seeding runs in stages so later entries can reference earlier ones by uuid.
  for (const group of seed({ ids: collectionIds, entries, assets })) {
    for (const e of typeof group.entries === 'function' ? group.entries() : group.entries) {
      const row = await db.entry.create({
        data: {
          projectId: project.id,
          collectionId: collectionIds[group.slug],
          locale: e.locale ?? 'en',
          data: e.draft as Prisma.InputJsonObject,
          publishedData: e.published ? (e.published as Prisma.InputJsonObject) : undefined,
          state: e.published ? 'published' : 'draft',
          publishedAt: e.published ? new Date('2026-03-01T12:00:00Z') : null,
          createdAt: e.createdAt ? new Date(e.createdAt) : undefined,
          deletedAt: e.deleted ? new Date() : null,
        },
      });
      if (e.published) {
        // A published entry points at its published version, as publishing leaves it: published
        // reads (and nested filters on published targets) require that pointer.
        const at = new Date('2026-03-01T12:00:00Z');
        const version = await db.entryVersion.create({
          data: { entryId: row.id, collectionId: row.collectionId, versionNumber: 1, locale: row.locale, snapshot: { fields: e.published, meta: { locale: row.locale } } as Prisma.InputJsonObject, publishedAt: at },
        });
        await db.entry.update({ where: { id: row.id }, data: { publishedVersionId: version.id, publishedVersionNumber: 1, lastVersionNumber: 1 } });
      }
      entries[e.name] = { id: row.id, uuid: row.uuid };
      names.set(row.id, e.name);
    }
  }
  return {
    t,
    project,
    collectionIds,
    entries,
    assets,
    async match(slug, where, column = 'data') {
      const collection = await loadCollectionBySlug(db, project.id, slug);
      const cond = await compileWhere(where, { db, projectId: project.id, collection, column, alias: 'e' });
      const { Prisma } = await import('../../src/db/client.ts');
      // What a list read of that state adds (src/entries/reads/list.ts).
      const rows = await db.$queryRaw<Array<{ id: number }>>(
        Prisma.sql`SELECT e.id FROM entries e WHERE e.collection_id = ${collection.id} AND e.deleted_at IS NULL
          ${column === 'published_data' ? Prisma.sql`AND ${publishedReadCondition('e')}` : Prisma.empty}
          AND ${cond ?? Prisma.sql`TRUE`}`,
      );
      return rows.map((r) => names.get(r.id) ?? String(r.id)).sort();
    },
    close: () => t.close(),
  };
}
