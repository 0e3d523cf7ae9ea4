import type { Tx } from '../../db/client.ts';
import { Prisma } from '../../db/client.ts';
import type { CollectionSchema, FieldDef } from '../../collections/model.ts';
import { isUuid } from '../types.ts';

/** A relation or media reference left out of a restored draft because its target is gone. */
export interface SkippedReference {
  /** Path of the value: `author`, `gallery`, or `blocks.2.image` inside a repeatable group. */
  field: string;
  uuid: string;
}

export interface RestoredDraft {
  data: Record<string, unknown>;
  skipped: SkippedReference[];
}

type RefKind = 'relation' | 'media';

interface RefSite {
  kind: RefKind;
  uuid: string;
  /** Target collection id of a relation field, when the field pins one. */
  collectionId?: number;
}

/**
 * Builds the working draft a revert restores from a snapshot's fields (docs/versions.md):
 * - only fields that exist in the collection today are restored (a value for a field that was
 *   deleted since has nowhere to go);
 * - relation and media references whose target no longer exists — deleted, soft-deleted, or (for a
 *   relation) no longer in the field's target collection — are dropped: a single reference loses
 *   its key ("no value"), a list keeps its other members;
 * - password fields keep the current draft's value, since snapshots never hold password hashes.
 * The snapshot itself is never modified.
 */
export async function restoreDraft(
  tx: Tx,
  projectId: number,
  collection: CollectionSchema,
  snapshotFields: Record<string, unknown>,
  currentDraft: Record<string, unknown>,
): Promise<RestoredDraft> {
  const sites: RefSite[] = [];
  for (const f of collection.fields) if (Object.hasOwn(snapshotFields, f.name)) collectRefs(f, snapshotFields[f.name], sites);
  const alive = await liveTargets(tx, projectId, sites);

  const skipped: SkippedReference[] = [];
  const data: Record<string, unknown> = {};
  for (const f of collection.fields) {
    if (f.type === 'password') {
      if (Object.hasOwn(currentDraft, f.name)) data[f.name] = currentDraft[f.name];
      continue;
    }
    if (!Object.hasOwn(snapshotFields, f.name)) continue;
    const value = rebuild(f, snapshotFields[f.name], f.name, alive, skipped);
    if (value !== undefined) data[f.name] = value;
  }
  return { data, skipped };
}

const refKind = (f: FieldDef): RefKind | null => (f.type === 'relation' ? 'relation' : f.type === 'media' ? 'media' : null);

function collectRefs(f: FieldDef, value: unknown, out: RefSite[]): void {
  if (f.type === 'group') {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
      for (const child of f.children) {
        if (Object.hasOwn(item, child.name)) collectRefs(child, (item as Record<string, unknown>)[child.name], out);
      }
    }
    return;
  }
  const kind = refKind(f);
  if (!kind) return;
  for (const v of Array.isArray(value) ? value : [value]) {
    if (isUuid(v)) out.push({ kind, uuid: v.toLowerCase(), collectionId: targetCollection(f) });
  }
}

/** The relation's target collection id (stored as a number; tolerate a numeric string). */
function targetCollection(f: FieldDef): number | undefined {
  if (f.type !== 'relation') return undefined;
  const id = Number(f.options.relation?.collection);
  return Number.isInteger(id) && id > 0 ? id : undefined;
}

const siteKey = (kind: RefKind, uuid: string, collectionId?: number) => `${kind}:${uuid.toLowerCase()}:${collectionId ?? '*'}`;

/** One query per kind, whatever the number of references; returns the keys of targets that still exist. */
async function liveTargets(tx: Tx, projectId: number, sites: RefSite[]): Promise<Set<string>> {
  const alive = new Set<string>();
  const entryUuids = [...new Set(sites.filter((s) => s.kind === 'relation').map((s) => s.uuid))];
  const assetUuids = [...new Set(sites.filter((s) => s.kind === 'media').map((s) => s.uuid))];
  // The relation fields' target collections name the partitions read (entries are partitioned by collection).
  const targets = [...new Set(sites.flatMap((s) => (s.kind === 'relation' && s.collectionId !== undefined ? [s.collectionId] : [])))];
  if (entryUuids.length && targets.length) {
    const rows = await tx.$queryRaw<{ uuid: string; collection_id: number }[]>(Prisma.sql`
      SELECT uuid::text AS uuid, collection_id FROM entries
      WHERE collection_id = ANY(${targets}::int[]) AND project_id = ${projectId} AND deleted_at IS NULL AND uuid = ANY(${entryUuids}::uuid[])`);
    for (const r of rows) {
      alive.add(siteKey('relation', r.uuid));
      alive.add(siteKey('relation', r.uuid, r.collection_id));
    }
  }
  if (assetUuids.length) {
    const rows = await tx.$queryRaw<{ uuid: string }[]>(Prisma.sql`
      SELECT uuid::text AS uuid FROM assets
      WHERE project_id = ${projectId} AND deleted_at IS NULL AND uuid = ANY(${assetUuids}::uuid[])`);
    for (const r of rows) alive.add(siteKey('media', r.uuid));
  }
  return alive;
}

/** The value with dead references removed; undefined = leave the key out. */
function rebuild(f: FieldDef, value: unknown, path: string, alive: Set<string>, skipped: SkippedReference[]): unknown {
  if (f.type === 'group') {
    const rebuildItem = (item: unknown, itemPath: string): unknown => {
      if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
      const out: Record<string, unknown> = { ...(item as Record<string, unknown>) };
      for (const child of f.children) {
        if (!Object.hasOwn(out, child.name)) continue;
        const v = rebuild(child, out[child.name], `${itemPath}.${child.name}`, alive, skipped);
        if (v === undefined) delete out[child.name];
        else out[child.name] = v;
      }
      return out;
    };
    return Array.isArray(value) ? value.map((item, i) => rebuildItem(item, `${path}.${i}`)) : rebuildItem(value, path);
  }
  const kind = refKind(f);
  if (!kind || value === null) return value;
  const collectionId = targetCollection(f);
  const keep = (v: unknown): boolean => {
    if (typeof v !== 'string') return true; // not a reference we can check; leave it to validation on the next save
    const ok = isUuid(v) && alive.has(siteKey(kind, v, collectionId));
    if (!ok) skipped.push({ field: path, uuid: v });
    return ok;
  };
  if (Array.isArray(value)) return value.filter(keep);
  return keep(value) ? value : undefined;
}
