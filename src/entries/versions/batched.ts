import type { Ctx } from '../../context.ts';
import { validationFailed, notFound } from '../../errors.ts';
import { contentLoaders } from '../reads/loaders.ts';
import { requireContentRead } from '../../collections/visibility.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { Snapshot } from '../store/snapshot.ts';
import { diffFields } from './diff.ts';
import { PAGE_DEFAULT, PAGE_MAX, versionLoaders } from './loaders.ts';
import { publicSnapshot, type VersionRecord } from './serialize.ts';
import type { VersionDiff } from './operations.ts';

/**
 * Version reads for GraphQL fields that hang off an already-loaded entry: the same rules as the REST
 * operations (read ability, passwords never shown), batched through the request's DataLoaders so a
 * list of N entries does not cost N queries.
 */

export interface VersionPageArgs {
  first?: number | null;
  /** Cursor from a previous page's `endCursor` (a version number). */
  after?: string | null;
}

export interface VersionConnection {
  nodes: VersionRecord[];
  hasNextPage: boolean;
  endCursor: string | null;
  entryId: number;
}

export async function versionPage(ctx: Ctx, entryId: number, args: VersionPageArgs): Promise<VersionConnection> {
  requireContentRead(ctx);
  const first = args.first ?? PAGE_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > PAGE_MAX) throw validationFailed({ first: [`The first argument must be between 1 and ${PAGE_MAX}.`] });
  let before: number | undefined;
  if (args.after !== undefined && args.after !== null) {
    before = Number(args.after);
    if (!/^\d{1,10}$/.test(args.after) || before > 2_147_483_647) throw validationFailed({ after: ['The after cursor is not valid.'] });
  }
  const page = await versionLoaders(ctx).page.load({ entryId, first, before });
  const last = page.records.at(-1);
  return { nodes: page.records, hasNextPage: page.hasMore, endCursor: last ? String(last.row.versionNumber) : null, entryId };
}

export function versionCount(ctx: Ctx, entryId: number): Promise<number> {
  requireContentRead(ctx);
  return versionLoaders(ctx).count.load(entryId);
}

/** One version by number, or null (a field on an entry answers "no such version" with null). */
export async function versionByNumber(ctx: Ctx, entryId: number, number: number): Promise<VersionRecord | null> {
  requireContentRead(ctx);
  if (!Number.isInteger(number) || number < 1 || number > 2_147_483_647) return null;
  return versionLoaders(ctx).byNumber.load({ entryId, number });
}

/**
 * A version's snapshot, wherever the version came from: a version in a mutation's result (publish,
 * revert, label change) is metadata of that write, but its snapshot is content, so it needs `read`.
 */
export async function versionSnapshot(ctx: Ctx, v: VersionRecord): Promise<Snapshot> {
  requireContentRead(ctx);
  const collection = await collectionOf(ctx, v);
  if (v.row.snapshot !== null) return publicSnapshot(v.row, collection);
  const stored = await versionLoaders(ctx).snapshot.load(v.row.id);
  return publicSnapshot({ ...v.row, snapshot: stored ?? { fields: {} } }, collection);
}

/** `diff(to)`: from this version to version `to` of the same entry; 404 when `to` does not exist. */
export async function versionDiff(ctx: Ctx, v: VersionRecord, to: number): Promise<VersionDiff> {
  requireContentRead(ctx);
  const target = await versionByNumber(ctx, v.row.entryId, to);
  if (!target) throw notFound('Version not found.');
  const [a, b] = await Promise.all([versionSnapshot(ctx, v), versionSnapshot(ctx, target)]);
  return { from: v.row.versionNumber, to, ...diffFields(a.fields, b.fields) };
}

async function collectionOf(ctx: Ctx, v: VersionRecord): Promise<CollectionSchema> {
  const c = await contentLoaders(ctx).collectionById.load(v.collectionId);
  if (!c) throw notFound('Collection not found.');
  return c;
}
