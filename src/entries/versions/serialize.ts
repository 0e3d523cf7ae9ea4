import type { EntryVersion } from '../../db/generated/prisma/client.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { Snapshot } from '../store/snapshot.ts';
import { visibleSnapshotFields } from '../../collections/visibility.ts';

export interface CreatedBy {
  id: number;
  name: string;
}

/** A version row with what the list item needs from outside the row. */
export interface VersionRecord {
  row: EntryVersion;
  createdBy: CreatedBy | null;
  /** The entry's published_version_id at read time. */
  currentVersionId: number | null;
  /** The entry's collection (its schema decides which snapshot keys are secrets). */
  collectionId: number;
}

/** Version list item (docs/versions.md). */
export interface VersionItem {
  uuid: string;
  version_number: number;
  label: string | null;
  description: string | null;
  locale: string;
  translation_group_id: number | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  created_by: CreatedBy | null;
  is_current_published: boolean;
}

export interface VersionDetail extends VersionItem {
  snapshot: Snapshot;
}

export function versionItem(v: VersionRecord): VersionItem {
  const r = v.row;
  return {
    uuid: r.uuid,
    version_number: r.versionNumber,
    label: r.label,
    description: r.description,
    locale: r.locale,
    translation_group_id: r.translationGroupId,
    published_at: r.publishedAt ? r.publishedAt.toISOString() : null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    created_by: v.createdBy,
    is_current_published: v.currentVersionId === r.id,
  };
}

export function versionDetail(v: VersionRecord, collection: CollectionSchema): VersionDetail {
  return { ...versionItem(v), snapshot: publicSnapshot(v.row, collection) };
}

/**
 * The snapshot as shown, through the visibility rule (src/collections/visibility.ts): `hiddenInAPI` values
 * are kept in the stored snapshot (a revert restores them) but never shown, and password values, which
 * minting already leaves out, are filtered again for rows written before that rule or by hand.
 * Detail, diff and the GraphQL fields all read snapshots through here.
 */
export function publicSnapshot(row: EntryVersion, collection: CollectionSchema): Snapshot {
  const stored = (row.snapshot ?? {}) as Partial<Snapshot>;
  return {
    fields: visibleSnapshotFields(collection, stored.fields),
    meta: {
      locale: stored.meta?.locale ?? row.locale,
      translation_group_id: stored.meta?.translation_group_id ?? row.translationGroupId,
    },
  };
}
