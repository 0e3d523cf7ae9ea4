import { z } from 'zod';
import { validationFailed } from '../errors.ts';
import type { SchemaDocument } from './document.ts';

/**
 * The export file (`cms export`): NDJSON, one record a line, in this order: `project` (header with
 * the counts), `schema` (the schema document), `asset`s, `entry`s (each with all its versions, in
 * entry id order, so a translation group's first entry comes before the others), `end`. Everything
 * that identifies content is kept: uuids, version numbers, labels, timestamps, trash state.
 */
export const EXPORT_FORMAT = 'content-gateway/export';
export const EXPORT_VERSION = 1;

const iso = z.string().datetime({ offset: true });
const isoOrNull = iso.nullable();
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'Must be a UUID.');
const json = z.record(z.string(), z.unknown());

const projectRecord = z.object({
  type: z.literal('project'),
  format: z.literal(EXPORT_FORMAT, { error: `Not an export file: the first line must be the "${EXPORT_FORMAT}" header (as "cms export" writes).` }),
  version: z.literal(EXPORT_VERSION, { error: `Unknown export version; this server reads version ${EXPORT_VERSION}.` }),
  project: z.object({ uuid, name: z.string() }).passthrough(),
  counts: z.object({ entries: z.number().int().min(0), versions: z.number().int().min(0), assets: z.number().int().min(0) }),
});

const schemaRecord = z.object({ type: z.literal('schema'), schema: json });

const assetRecord = z.object({
  type: z.literal('asset'),
  uuid,
  filename: z.string().max(255),
  original_filename: z.string().max(255),
  mime_type: z.string().max(255),
  size: z.number().int().min(0),
  metadata: json.nullable(),
  created_at: iso,
  updated_at: iso,
  deleted_at: isoOrNull,
});

const versionRecord = z.object({
  uuid,
  version_number: z.number().int().min(1),
  label: z.string().max(255).nullable(),
  description: z.string().max(2000).nullable(),
  locale: z.string().max(20),
  /** As the entry's `translation_of`, for the group the entry was in when this version was made. */
  translation_of: uuid.nullable().default(null),
  snapshot: json,
  published_at: isoOrNull,
  created_at: iso,
  updated_at: iso,
});

const entryRecord = z.object({
  type: z.literal('entry'),
  uuid,
  collection: z.string(),
  locale: z.string().max(20),
  /** The uuid of the first entry (by id) of the entry's translation group; its own uuid when it is that entry. */
  translation_of: uuid.nullable(),
  state: z.enum(['draft', 'published']),
  data: json,
  published_data: json.nullable(),
  published_version_number: z.number().int().min(1).nullable(),
  last_version_number: z.number().int().min(0),
  is_draft_dirty: z.boolean(),
  published_at: isoOrNull,
  published_updated_at: isoOrNull,
  created_at: iso,
  updated_at: iso,
  deleted_at: isoOrNull,
  versions: z.array(versionRecord),
});

const endRecord = z.object({ type: z.literal('end'), counts: z.object({ entries: z.number(), versions: z.number(), assets: z.number() }) });

export type ProjectRecord = z.infer<typeof projectRecord>;
export type SchemaRecord = { type: 'schema'; schema: SchemaDocument };
export type AssetRecord = z.infer<typeof assetRecord>;
export type VersionRecord = z.infer<typeof versionRecord>;
export type EntryRecord = z.infer<typeof entryRecord>;
export type EndRecord = z.infer<typeof endRecord>;
export type ExportRecord = ProjectRecord | SchemaRecord | AssetRecord | EntryRecord | EndRecord;

const byType = { project: projectRecord, schema: schemaRecord, asset: assetRecord, entry: entryRecord, end: endRecord } as const;

/** One line of an export file, checked; 422 naming the line and the key otherwise. */
export function parseRecord(value: unknown, line: number): ExportRecord {
  const type = (value as { type?: unknown } | null)?.type;
  const schema = typeof type === 'string' ? byType[type as keyof typeof byType] : undefined;
  if (!schema) throw validationFailed({ [`line ${line}`]: ['Each line must be a JSON object whose "type" is project, schema, asset, entry or end.'] });
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) (errors[`line ${line}: ${issue.path.join('.') || 'type'}`] ??= []).push(issue.message);
    throw validationFailed(errors);
  }
  return parsed.data as ExportRecord;
}
