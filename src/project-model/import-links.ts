import { Prisma, type Tx } from '../db/client.ts';
import type { CollectionDoc, FieldDoc } from './document.ts';
import type { IdRemap } from './new-ids.ts';
import { rewriteImportedSnapshot } from '../entries/store/version-statement.ts';

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const PAGE = 500;

type Json = Record<string, unknown>;

/** Applies `edit` to every rich-text string of `data` (top level and inside groups); a copy when any changed. */
function mapRichText(fields: FieldDoc[], data: Json, edit: (text: string) => string): Json {
  let out: Json | null = null;
  for (const f of fields) {
    const v = data[f.name];
    let next: unknown = v;
    if (f.type === 'richtext' && typeof v === 'string') next = edit(v);
    else if (f.type === 'group' && v && typeof v === 'object') {
      const one = (o: unknown) => (o && typeof o === 'object' && !Array.isArray(o) ? mapRichText(f.children ?? [], o as Json, edit) : o);
      next = Array.isArray(v) ? v.map(one) : one(v);
      if (Array.isArray(v) && (next as unknown[]).every((x, i) => x === v[i])) next = v;
    }
    if (next !== v) (out ??= { ...data })[f.name] = next;
  }
  return out ?? data;
}

const hasRichText = (fields: FieldDoc[]): boolean => fields.some((f) => f.type === 'richtext' || (f.type === 'group' && hasRichText(f.children ?? [])));

/**
 * With `--new-ids`, once every entry and asset of the file is written: a uuid inside a rich-text
 * value (a link or image URL) that named an entry or asset of the file is rewritten to its new uuid;
 * any other uuid in the text (another site's, a deleted entry's) is left as written. Reads the
 * imported rows that hold a uuid-like text, a page at a time, in the import's transaction.
 */
export async function rewriteRichTextLinks(tx: Tx, projectId: number, collections: CollectionDoc[], ids: ReadonlyMap<string, number>, remap: IdRemap): Promise<void> {
  const allIds = [...ids.values()];
  const known = async (texts: string[]): Promise<Set<string>> => {
    const candidates = [...new Set(texts.flatMap((t) => (t.match(UUID_IN_TEXT) ?? []).map((u) => remap.id(u))))];
    if (candidates.length === 0) return new Set();
    const rows = await tx.$queryRaw<Array<{ uuid: string }>>(Prisma.sql`
      SELECT uuid::text AS uuid FROM entries WHERE collection_id = ANY(${allIds}::int[]) AND uuid = ANY(${candidates}::uuid[])
      UNION SELECT uuid::text FROM assets WHERE project_id = ${projectId} AND uuid = ANY(${candidates}::uuid[])`);
    return new Set(rows.map((r) => r.uuid));
  };
  const rewrite = (found: Set<string>) => (text: string) =>
    text.replace(UUID_IN_TEXT, (u) => {
      const next = remap.id(u);
      return found.has(next) ? next : u;
    });
  const texts = (fields: FieldDoc[], data: Json | null) => {
    const out: string[] = [];
    if (data) mapRichText(fields, data, (t) => (out.push(t), t));
    return out;
  };

  for (const c of collections) {
    const id = ids.get(c.slug);
    if (id === undefined || !hasRichText(c.fields)) continue;
    for (let after = 0; ; ) {
      const page = await tx.$queryRaw<Array<{ id: number; data: Json; published_data: Json | null }>>(Prisma.sql`
        SELECT id, data, published_data FROM entries WHERE collection_id = ${id} AND id > ${after}
          AND (data::text ~* ${UUID_IN_TEXT.source} OR published_data::text ~* ${UUID_IN_TEXT.source})
        ORDER BY id LIMIT ${PAGE}`);
      if (page.length === 0) break;
      const edit = rewrite(await known(page.flatMap((r) => [...texts(c.fields, r.data), ...texts(c.fields, r.published_data)])));
      for (const r of page) {
        const data = mapRichText(c.fields, r.data, edit);
        const published = r.published_data && mapRichText(c.fields, r.published_data, edit);
        if (data === r.data && published === r.published_data) continue;
        await tx.$executeRaw`UPDATE entries SET data = ${JSON.stringify(data)}::jsonb, published_data = ${published === null ? null : JSON.stringify(published)}::jsonb
          WHERE collection_id = ${id} AND id = ${r.id}`;
      }
      after = page[page.length - 1].id;
    }
    for (let after = 0; ; ) {
      const page = await tx.$queryRaw<Array<{ id: number; snapshot: Json }>>(Prisma.sql`
        SELECT id, snapshot FROM entry_versions WHERE collection_id = ${id} AND id > ${after} AND snapshot::text ~* ${UUID_IN_TEXT.source}
        ORDER BY id LIMIT ${PAGE}`);
      if (page.length === 0) break;
      const fieldsOf = (r: { snapshot: Json }) => (r.snapshot.fields && typeof r.snapshot.fields === 'object' ? (r.snapshot.fields as Json) : null);
      const edit = rewrite(await known(page.flatMap((r) => texts(c.fields, fieldsOf(r)))));
      for (const r of page) {
        const before = fieldsOf(r);
        const after2 = before && mapRichText(c.fields, before, edit);
        if (after2 === before) continue;
        await rewriteImportedSnapshot(tx, id, r.id, { ...r.snapshot, fields: after2 });
      }
      after = page[page.length - 1].id;
    }
  }
}
