import { createHmac, randomBytes } from 'node:crypto';
import type { CollectionDoc, FieldDoc } from './document.ts';
import type { AssetRecord, EntryRecord, VersionRecord } from './records.ts';

/**
 * `cms import --new-ids`: every entry, version and asset of the file under a new uuid, and every
 * reference to one rewritten to match, so a project can be copied within one database (uuids are
 * unique per database). The new uuid is a keyed hash of the old one (a random key per import): the
 * same old uuid always gets the same new one, so a reference is rewritten when it is met, whether
 * its target came earlier in the file or comes later, and memory holds nothing per entry.
 *
 * What refers to an entry or an asset in an export: an entry's `translation_of` and its versions'
 * (the uuid of the group's first entry), relation values (entry uuids) and media values (asset
 * uuids), at the top level and inside groups, in the draft (`data`), the published copy
 * (`published_data`) and each version's `snapshot.fields`. Rich text is markdown whose links are
 * plain URLs: a uuid in one is rewritten only when it names an entry or asset of the file, which is
 * known once the file is written (rewriteRichTextLinks in import-links.ts).
 */
export class IdRemap {
  private readonly key = randomBytes(32);
  private fields = new Map<string, FieldDoc[]>();

  /** The new uuid of `uuid` (a version-4 layout); anything that is not a string stays as it is. */
  id(uuid: string): string;
  id(uuid: unknown): unknown;
  id(uuid: unknown): unknown {
    if (typeof uuid !== 'string') return uuid;
    const h = createHmac('sha256', this.key).update(uuid.toLowerCase()).digest();
    h[6] = (h[6] & 0x0f) | 0x40;
    h[8] = (h[8] & 0x3f) | 0x80;
    const hex = h.subarray(0, 16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** The fields of each collection, from the file's schema record: which values hold references. */
  useSchema(collections: CollectionDoc[]): void {
    this.fields = new Map(collections.map((c) => [c.slug, c.fields]));
  }

  asset(a: AssetRecord): AssetRecord {
    return { ...a, uuid: this.id(a.uuid) };
  }

  entry(e: EntryRecord): EntryRecord {
    const fields = this.fields.get(e.collection) ?? [];
    return {
      ...e,
      uuid: this.id(e.uuid),
      translation_of: e.translation_of === null ? null : this.id(e.translation_of),
      data: this.values(fields, e.data),
      published_data: e.published_data === null ? null : this.values(fields, e.published_data),
      versions: e.versions.map((v) => this.version(fields, v)),
    };
  }

  private version(fields: FieldDoc[], v: VersionRecord): VersionRecord {
    const snapshot = v.snapshot as { fields?: unknown };
    const snapFields = snapshot.fields && typeof snapshot.fields === 'object' ? this.values(fields, snapshot.fields as Record<string, unknown>) : snapshot.fields;
    return { ...v, uuid: this.id(v.uuid), translation_of: v.translation_of === null ? null : this.id(v.translation_of), snapshot: { ...v.snapshot, fields: snapFields } };
  }

  private values(fields: FieldDoc[], data: Record<string, unknown>): Record<string, unknown> {
    const out = { ...data };
    for (const f of fields) {
      if (!(f.name in out)) continue;
      out[f.name] = this.value(f, out[f.name]);
    }
    return out;
  }

  private value(f: FieldDoc, v: unknown): unknown {
    if (f.type === 'relation' || f.type === 'media') return Array.isArray(v) ? v.map((x) => this.id(x)) : this.id(v);
    if (f.type !== 'group' || !v || typeof v !== 'object') return v;
    const one = (o: unknown) => (o && typeof o === 'object' && !Array.isArray(o) ? this.values(f.children ?? [], o as Record<string, unknown>) : o);
    return Array.isArray(v) ? v.map(one) : one(v);
  }
}
