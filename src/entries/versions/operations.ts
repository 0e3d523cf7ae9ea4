import { authorize, readSource, type Ctx } from '../../context.ts';
import { requireContentRead } from '../../collections/visibility.ts';
import { loadCollectionBySlug, type CollectionSchema } from '../../collections/model.ts';
import { requireCollectionInScope, requireReadView, scopedSchema } from '../../collections/token-scope.ts';
import { ErrorBag, notFound, validationFailed } from '../../errors.ts';
import { findEntry, parseVersionNumber } from './lookup.ts';
import { fetchVersions } from './queries.ts';
import { publicSnapshot, type VersionRecord } from './serialize.ts';
import { diffFields, type SnapshotDiff } from './diff.ts';
import { updateVersionNotes } from '../store/version-statement.ts';

/** The collection as the caller may see it: an out-of-scope one is refused, out-of-scope fields leave snapshots and diffs. */
async function versionedCollection(ctx: Ctx, slug: string): Promise<CollectionSchema> {
  requireCollectionInScope(ctx, slug);
  // Version history shows drafts: a release-scoped preview token may not read it.
  requireReadView(ctx, { state: 'draft' });
  return scopedSchema(ctx, await loadCollectionBySlug(ctx.db, ctx.project.id, slug));
}

export const LABEL_MAX = 255;
export const DESCRIPTION_MAX = 2000;

export interface VersionWithCollection {
  collection: CollectionSchema;
  version: VersionRecord;
}

/** GET /api/{collection}/{uuid}/versions: every kept version, newest first, without snapshots. */
export async function listVersions(ctx: Ctx, collectionSlug: string, uuid: string): Promise<VersionRecord[]> {
  requireContentRead(ctx);
  const collection = await versionedCollection(ctx, collectionSlug);
  const { db } = await readSource(ctx);
  const entry = await findEntry(db, ctx, collection, uuid);
  return fetchVersions(db, { entryIds: [entry.id] });
}

/** GET /api/{collection}/{uuid}/versions/{version}: the list item plus its snapshot. */
export async function getVersion(ctx: Ctx, collectionSlug: string, uuid: string, versionParam: unknown): Promise<VersionWithCollection> {
  requireContentRead(ctx);
  const collection = await versionedCollection(ctx, collectionSlug);
  const { db } = await readSource(ctx);
  const entry = await findEntry(db, ctx, collection, uuid);
  const version = await loadVersion(ctx, entry.id, parseVersionNumber(versionParam), true);
  return { collection, version };
}

export interface VersionPatch {
  label?: string | null;
  description?: string | null;
}

/**
 * PATCH /api/{collection}/{uuid}/versions/{version}: only `label` and `description` may change; the
 * snapshot is immutable, so any other key is a 422 naming it rather than being silently ignored.
 */
export async function updateVersion(ctx: Ctx, collectionSlug: string, uuid: string, versionParam: unknown, body: unknown): Promise<VersionRecord> {
  authorize(ctx, 'update');
  const collection = await versionedCollection(ctx, collectionSlug);
  const entry = await findEntry(ctx.db, ctx, collection, uuid);
  const number = parseVersionNumber(versionParam);
  const patch = parseVersionPatch(body);
  if (Object.keys(patch).length > 0) {
    // One statement: a version pruned by a concurrent publish simply matches no row (404).
    const updated = await updateVersionNotes(ctx.db, entry.id, number, patch);
    if (updated === 0) throw notFound('Version not found.');
  }
  return loadVersion(ctx, entry.id, number, false);
}

export interface VersionDiff extends SnapshotDiff {
  from: number;
  to: number;
}

/** GET /api/{collection}/{uuid}/versions/{version}/diff?to=N: what changed from this version to version N. */
export async function diffVersions(ctx: Ctx, collectionSlug: string, uuid: string, versionParam: unknown, toParam: unknown): Promise<VersionDiff> {
  requireContentRead(ctx);
  const collection = await versionedCollection(ctx, collectionSlug);
  const { db } = await readSource(ctx);
  const entry = await findEntry(db, ctx, collection, uuid);
  const from = parseVersionNumber(versionParam);
  const to = parseDiffTarget(toParam);
  const rows = await fetchVersions(db, { entryIds: [entry.id], numbers: [...new Set([from, to])], withSnapshot: true });
  const byNumber = new Map(rows.map((r) => [r.row.versionNumber, r]));
  const a = byNumber.get(from);
  const b = byNumber.get(to);
  if (!a || !b) throw notFound('Version not found.');
  return { from, to, ...diffVersionRecords(a, b, collection) };
}

export function diffVersionRecords(from: VersionRecord, to: VersionRecord, collection: CollectionSchema): SnapshotDiff {
  return diffFields(publicSnapshot(from.row, collection).fields, publicSnapshot(to.row, collection).fields);
}

async function loadVersion(ctx: Ctx, entryId: number, number: number, withSnapshot: boolean): Promise<VersionRecord> {
  const [version] = await fetchVersions((await readSource(ctx)).db, { entryIds: [entryId], numbers: [number], withSnapshot });
  if (!version) throw notFound('Version not found.');
  return version;
}

/** The `to` query parameter of a diff: a required positive integer (422 otherwise, naming `to`). */
export function parseDiffTarget(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') throw validationFailed({ to: ['The to field is required.'] });
  const s = typeof raw === 'number' ? String(raw) : raw;
  if (typeof s !== 'string' || !/^\d{1,10}$/.test(s) || Number(s) < 1 || Number(s) > 2_147_483_647) {
    throw validationFailed({ to: ['The to field must be a positive integer.'] });
  }
  return Number(s);
}

/**
 * Laravel conventions: an empty string means null (ConvertEmptyStringsToNull), lengths count
 * characters (code points, as the VARCHAR columns do), and a missing key leaves the value alone.
 */
export function parseVersionPatch(body: unknown): VersionPatch {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw validationFailed({ body: ['The request body must be a JSON object.'] });
  const bag = new ErrorBag();
  const patch: VersionPatch = {};
  const limits = { label: LABEL_MAX, description: DESCRIPTION_MAX } as const;
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'label' && key !== 'description') {
      bag.add(key, `The ${key} field cannot be changed. Only label and description can be updated.`);
      continue;
    }
    if (value === null || value === '') patch[key] = null;
    else if (typeof value !== 'string') bag.add(key, `The ${key} field must be a string.`);
    else if (value.includes('\u0000')) bag.add(key, `The ${key} field must not contain NUL characters.`);
    else if ([...value].length > limits[key]) bag.add(key, `The ${key} field must not be greater than ${limits[key]} characters.`);
    else patch[key] = value;
  }
  bag.throwIfAny();
  return patch;
}
