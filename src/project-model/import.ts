import type { Tx } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { validationFailed } from '../errors.ts';
import { joinTransaction } from '../collections/operations.ts';
import { SchemaEffects, applyAfterCommit } from '../collections/schema-effects.ts';
import { applyDocumentIn } from './apply.ts';
import { parseSchemaDocument, type CollectionDoc } from './document.ts';
import { rewriteRichTextLinks } from './import-links.ts';
import type { AssetRecord, EntryRecord, ExportRecord } from './records.ts';
import { insertImportedVersions, pointAtImportedVersions } from '../entries/store/version-statement.ts';
import { IdRemap } from './new-ids.ts';

/** Entries written per statement. */
export const IMPORT_BATCH_SIZE = 200;
/** An import is one transaction (all or nothing); this bounds how long it may run. */
export const IMPORT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface ImportCounts {
  entries: number;
  versions: number;
  assets: number;
}

/** An asset imported without its file (`skipMissingFiles`). */
export interface SkippedAsset {
  uuid: string;
  filename: string;
}

export interface ImportReport extends ImportCounts {
  /** Assets whose file the source did not have, imported without it (only with `skipMissingFiles`). */
  assets_skipped: SkippedAsset[];
}

export interface ImportOptions {
  /**
   * Stores an asset's bytes under `storageKey` (from the tar beside the export, or a remote server);
   * absent: rows only. Answers false when the source has no file for the asset.
   */
  assetFile?(asset: AssetRecord, storageKey: string): Promise<boolean | void>;
  /** An asset whose file the source lacks is imported without it and reported, instead of failing the import. */
  skipMissingFiles?: boolean;
  /** New uuids for every entry, version and asset, references rewritten to match (./new-ids.ts): a copy within one database. */
  newIds?: boolean;
  /** Told after each batch; `total` from the export's header. */
  progress?(done: ImportCounts, total: ImportCounts): void;
}

const notEmpty = () =>
  validationFailed({ project: ['The project is not empty: import needs a project without collections, entries or assets (create one with "cms project create").'] });

/**
 * `cms import`: records (records.ts) into an empty project, in one transaction, so a failed or
 * interrupted import leaves the project empty. The model goes through schema apply (the collection,
 * field, webhook and trusted-document rules); entries, versions and assets are written as they were,
 * uuids, version numbers, labels and timestamps included, a batch at a time: memory holds one batch
 * whatever the file's size. No webhook event is sent for imported content. Uuids are unique per
 * database, so an import into the database it was exported from is refused on the first clash.
 */
export async function importProject(ctx: Ctx, records: AsyncIterable<ExportRecord>, opts: ImportOptions = {}): Promise<ImportReport> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.exports);
  const effects = new SchemaEffects();
  const done = await ctx.db.$transaction(
    async (tx) => {
      const joined = joinTransaction(ctx, tx, effects);
      await tx.$queryRaw`SELECT id FROM projects WHERE id = ${ctx.project.id} FOR UPDATE`;
      const [collections, entries, assets] = await Promise.all([
        tx.collection.count({ where: { projectId: ctx.project.id } }),
        tx.entry.count({ where: { projectId: ctx.project.id } }),
        tx.asset.count({ where: { projectId: ctx.project.id } }),
      ]);
      if (collections + entries + assets > 0) throw notEmpty();

      const writer = new Writer(tx, joined, opts);
      let stage: ExportRecord['type'] | 'start' = 'start';
      let collectionDocs: CollectionDoc[] = [];
      const order = ['start', 'project', 'schema', 'asset', 'entry', 'end'];
      for await (const r of records) {
        if (stage === 'end') throw validationFailed({ file: ['Nothing may follow the end record.'] });
        if (order.indexOf(r.type) < order.indexOf(stage) || (stage === 'start' && r.type !== 'project') || (r.type !== 'project' && r.type !== 'schema' && stage === 'project')) {
          throw validationFailed({ file: [`A "${r.type}" record cannot come after "${stage}": records go project, schema, assets, entries, end.`] });
        }
        if (r.type === 'project') {
          if (stage !== 'start') throw validationFailed({ file: ['The file has two project headers.'] });
          writer.total = r.counts;
        } else if (r.type === 'schema') {
          const doc = parseSchemaDocument(r.schema);
          await applyDocumentIn(joined, tx, doc, { allowDestructive: false });
          writer.remap?.useSchema(doc.collections);
          collectionDocs = doc.collections;
          await writer.loadCollections();
        } else if (r.type === 'asset') await writer.asset(r);
        else if (r.type === 'entry') await writer.entry(r);
        else if (r.type === 'end') {
          await writer.flush();
          if (writer.remap) await rewriteRichTextLinks(tx, joined.project.id, collectionDocs, writer.collectionIds, writer.remap);
          const { counts } = r;
          if (counts.entries !== writer.done.entries || counts.versions !== writer.done.versions || counts.assets !== writer.done.assets) {
            throw validationFailed({ file: [`The end record counts ${JSON.stringify(counts)} but the file held ${JSON.stringify(writer.done)}.`] });
          }
        }
        stage = r.type;
      }
      if (stage !== 'end') throw validationFailed({ file: ['The file ends before its end record: it is incomplete (an interrupted export or copy?).'] });
      return { project: joined.project, skipped: writer.skipped };
    },
    { timeout: IMPORT_TIMEOUT_MS, maxWait: 10_000 },
  );
  ctx.project = done.project;
  await applyAfterCommit(ctx.services, effects, ctx.project.id, ctx.project.schemaRevision);
  return { ...(await counts(ctx)), assets_skipped: done.skipped };
}

async function counts(ctx: Ctx): Promise<ImportCounts> {
  const projectId = ctx.project.id;
  const [entries, versions, assets] = await Promise.all([
    ctx.db.entry.count({ where: { projectId } }),
    ctx.db.entryVersion.count({ where: { entry: { projectId } } }),
    ctx.db.asset.count({ where: { projectId } }),
  ]);
  return { entries, versions, assets };
}

const ENTRY_COLUMNS = `uuid uuid, collection_id int, locale text, translation_group_id int, state text, data jsonb, published_data jsonb,
  published_version_number int, last_version_number int, is_draft_dirty boolean, published_at timestamptz, created_at timestamptz,
  updated_at timestamptz, deleted_at timestamptz`;

/** Writes records a batch at a time; each batch is a handful of statements over a JSON array parameter. */
class Writer {
  total: ImportCounts = { entries: 0, versions: 0, assets: 0 };
  readonly done: ImportCounts = { entries: 0, versions: 0, assets: 0 };
  readonly skipped: SkippedAsset[] = [];
  readonly remap?: IdRemap;
  private collections = new Map<string, number>();
  private entries: EntryRecord[] = [];

  constructor(
    private readonly tx: Tx,
    private readonly ctx: Ctx,
    private readonly opts: ImportOptions,
  ) {
    if (opts.newIds) this.remap = new IdRemap();
  }

  get collectionIds(): ReadonlyMap<string, number> {
    return this.collections;
  }

  async loadCollections(): Promise<void> {
    const rows = await this.tx.collection.findMany({ where: { projectId: this.ctx.project.id }, select: { id: true, slug: true } });
    this.collections = new Map(rows.map((r) => [r.slug, r.id]));
  }

  async asset(original: AssetRecord): Promise<void> {
    const a = this.remap ? this.remap.asset(original) : original;
    const clash = await this.tx.asset.findUnique({ where: { uuid: a.uuid }, select: { id: true } });
    if (clash) throw uuidTaken('asset', a.uuid);
    const storageKey = `${this.ctx.project.uuid}/${a.uuid}`;
    await this.tx.$executeRaw`
      INSERT INTO assets (uuid, project_id, filename, original_filename, mime_type, size, storage_key, metadata, created_at, updated_at, deleted_at)
      VALUES (${a.uuid}::uuid, ${this.ctx.project.id}, ${a.filename}, ${a.original_filename}, ${a.mime_type}, ${a.size}, ${storageKey},
        ${a.metadata === null ? null : JSON.stringify(a.metadata)}::jsonb, ${a.created_at}::timestamptz, ${a.updated_at}::timestamptz, ${a.deleted_at}::timestamptz)`;
    // The source knows the file by its own uuid; it is stored under the asset's uuid here.
    if (this.opts.assetFile && (await this.opts.assetFile(original, storageKey)) === false) {
      if (!this.opts.skipMissingFiles) {
        throw validationFailed({
          [`assets.${a.uuid}`]: [`The file of asset ${a.uuid} (${a.original_filename}) cannot be fetched: the source has none. Import with --skip-missing-files to take the asset without its file.`],
        });
      }
      this.skipped.push({ uuid: a.uuid, filename: a.original_filename });
    }
    this.done.assets++;
  }

  async entry(original: EntryRecord): Promise<void> {
    const e = this.remap ? this.remap.entry(original) : original;
    if (!this.collections.has(e.collection)) throw validationFailed({ [`entries.${e.uuid}.collection`]: [`The collection "${e.collection}" is not in the file's schema.`] });
    if (!this.ctx.project.locales.includes(e.locale)) throw validationFailed({ [`entries.${e.uuid}.locale`]: [`The locale "${e.locale}" is not one of the project's.`] });
    this.entries.push(e);
    if (this.entries.length >= IMPORT_BATCH_SIZE) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.entries;
    if (batch.length === 0) return;
    this.entries = [];
    const tx = this.tx;
    const versionUuids = batch.flatMap((e) => e.versions.map((v) => v.uuid));
    const taken = await tx.$queryRaw<Array<{ uuid: string; kind: string }>>`
      SELECT uuid::text AS uuid, 'entry' AS kind FROM entries WHERE uuid = ANY(${batch.map((e) => e.uuid)}::uuid[])
      UNION ALL SELECT uuid::text, 'version' FROM entry_versions WHERE uuid = ANY(${versionUuids}::uuid[]) LIMIT 1`;
    if (taken.length) throw uuidTaken(taken[0].kind, taken[0].uuid);

    const { groups, leaders } = await this.translationGroups(batch);
    const rows = batch.map((e) => ({
      uuid: e.uuid,
      collection_id: this.collections.get(e.collection),
      locale: e.locale,
      translation_group_id: e.translation_of === null ? null : groups.get(e.uuid),
      state: e.state,
      data: e.data,
      published_data: e.published_data,
      published_version_number: e.published_version_number,
      last_version_number: e.last_version_number,
      is_draft_dirty: e.is_draft_dirty,
      published_at: e.published_at,
      created_at: e.created_at,
      updated_at: e.updated_at,
      deleted_at: e.deleted_at,
    }));
    const inserted = await tx.$queryRawUnsafe<Array<{ id: number; uuid: string }>>(
      `INSERT INTO entries (uuid, project_id, collection_id, locale, translation_group_id, state, data, published_data, published_version_number,
         last_version_number, is_draft_dirty, published_at, created_at, updated_at, deleted_at)
       SELECT x.uuid, $2, x.collection_id, x.locale, x.translation_group_id, x.state::"EntryState", x.data, x.published_data, x.published_version_number,
         x.last_version_number, x.is_draft_dirty, x.published_at, x.created_at, x.updated_at, x.deleted_at
       FROM jsonb_to_recordset($1::jsonb) AS x(${ENTRY_COLUMNS})
       RETURNING id, uuid::text AS uuid`,
      JSON.stringify(rows),
      this.ctx.project.id,
    );
    const idOf = new Map(inserted.map((r) => [r.uuid, r.id]));
    const versions = batch.flatMap((e) =>
      e.versions.map((v) => ({ ...v, entry_id: idOf.get(e.uuid), collection_id: this.collections.get(e.collection), translation_group_id: v.translation_of === null ? null : (leaders.get(v.translation_of) ?? null) })),
    );
    await insertImportedVersions(tx, versions);
    const ids = inserted.map((r) => r.id);
    // The published pointer, then the time it moved: the trigger stamps published_updated_at when
    // the pointer changes, so the exported value is written by a second statement that leaves it be.
    const collectionIds = [...new Set(rows.map((r) => r.collection_id).filter((id): id is number => id !== undefined))];
    await pointAtImportedVersions(tx, collectionIds, ids);
    await tx.$executeRawUnsafe(
      `UPDATE entries e SET published_updated_at = x.published_updated_at
       FROM jsonb_to_recordset($1::jsonb) AS x(uuid uuid, published_updated_at timestamptz)
       WHERE e.collection_id = ANY($2::int[]) AND e.uuid = x.uuid AND e.published_version_id IS NOT NULL`,
      JSON.stringify(batch.map((e) => ({ uuid: e.uuid, published_updated_at: e.published_updated_at }))),
      collectionIds,
    );
    this.done.entries += batch.length;
    this.done.versions += versions.length;
    this.opts.progress?.(this.done, this.total);
  }

  /**
   * Translation group of each entry of the batch: a new group for an entry that leads its group
   * (`translation_of` is itself), else the group of the leader, written before it (in this batch or
   * an earlier one, found by uuid: nothing is held across batches).
   */
  private async translationGroups(batch: EntryRecord[]): Promise<{ groups: Map<string, number>; leaders: Map<string, number> }> {
    const out = new Map<string, number>();
    const leaders = batch.filter((e) => e.translation_of === e.uuid);
    if (leaders.length) {
      const made = await this.tx.$queryRaw<Array<{ id: number }>>`
        INSERT INTO translation_groups (project_id) SELECT ${this.ctx.project.id} FROM generate_series(1, ${leaders.length}) RETURNING id`;
      leaders.forEach((e, i) => out.set(e.uuid, made[i].id));
    }
    const followers = batch.filter((e) => e.translation_of !== null && e.translation_of !== e.uuid);
    // Versions name the group they were made in, which may be one the entry has left since.
    const named = [...followers.map((e) => e.translation_of!), ...batch.flatMap((e) => e.versions.map((v) => v.translation_of).filter((u): u is string => u !== null))];
    const earlier = [...new Set(named.filter((u) => !out.has(u)))];
    const known = earlier.length
      ? await this.tx.$queryRaw<Array<{ uuid: string; group: number }>>`
          SELECT uuid::text AS uuid, translation_group_id AS "group" FROM entries
          WHERE collection_id = ANY(${[...this.collections.values()]}::int[]) AND project_id = ${this.ctx.project.id} AND uuid = ANY(${earlier}::uuid[]) AND translation_group_id IS NOT NULL`
      : [];
    const leaderGroup = new Map([...out, ...known.map((k) => [k.uuid, k.group] as const)]);
    for (const e of followers) {
      const g = leaderGroup.get(e.translation_of!);
      if (g === undefined) throw validationFailed({ [`entries.${e.uuid}.translation_of`]: [`The entry ${e.translation_of} must come before its translations in the file.`] });
      out.set(e.uuid, g);
    }
    return { groups: out, leaders: leaderGroup };
  }
}

const uuidTaken = (kind: string, uuid: string) =>
  validationFailed({
    [kind]: [
      `The ${kind} ${uuid} already exists in this database: an import keeps uuids, so it goes into another database than the one it was exported from. To copy a project within this database, import with --new-ids (new uuids, references rewritten).`,
    ],
  });
