import DataLoader from 'dataloader';
import type { Prisma } from '../../db/generated/prisma/client.ts';
import { memo, readSource, type Ctx } from '../../context.ts';
import { countVersions, fetchVersions } from './queries.ts';
import type { VersionRecord } from './serialize.ts';

export const PAGE_DEFAULT = 20;
export const PAGE_MAX = 100;

export interface PageKey {
  entryId: number;
  first: number;
  /** Keyset cursor: only versions numbered below this. */
  before?: number;
}

export interface VersionPage {
  records: VersionRecord[];
  hasMore: boolean;
}

export interface VersionLoaders {
  /** A page of an entry's versions, newest first (no snapshots). */
  page: DataLoader<PageKey, VersionPage, string>;
  /** How many versions an entry keeps. */
  count: DataLoader<number, number>;
  /** One version of an entry by number, with its snapshot; null when there is none. */
  byNumber: DataLoader<{ entryId: number; number: number }, VersionRecord | null, string>;
  /** A version's stored snapshot by version id (for list items, which are read without it). */
  snapshot: DataLoader<number, Prisma.JsonValue | null>;
}

/**
 * Per-request loaders for the GraphQL version fields. However many entries a query lists, their
 * `versions` pages cost one query per distinct (first, after) pair, their counts one query, and their
 * `version(number)` lookups one query.
 */
export function versionLoaders(ctx: Ctx): VersionLoaders {
  return memo(ctx, 'versions:loaders', () => ({
    page: new DataLoader<PageKey, VersionPage, string>(
      async (keys) => {
        const groups = new Map<string, PageKey[]>();
        for (const k of keys) {
          const g = `${k.first}:${k.before ?? ''}`;
          groups.set(g, [...(groups.get(g) ?? []), k]);
        }
        const pages = new Map<string, VersionPage>();
        for (const group of groups.values()) {
          const { first, before } = group[0];
          const rows = await fetchVersions((await readSource(ctx)).db, { entryIds: [...new Set(group.map((k) => k.entryId))], before, perEntry: first + 1 });
          for (const k of group) {
            const mine = rows.filter((r) => r.row.entryId === k.entryId);
            pages.set(pageKey(k), { records: mine.slice(0, first), hasMore: mine.length > first });
          }
        }
        return keys.map((k) => pages.get(pageKey(k))!);
      },
      { cacheKeyFn: pageKey },
    ),
    count: new DataLoader<number, number>(async (ids) => {
      const counts = await countVersions((await readSource(ctx)).db, [...ids]);
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    byNumber: new DataLoader<{ entryId: number; number: number }, VersionRecord | null, string>(
      async (keys) => {
        const rows = await fetchVersions((await readSource(ctx)).db, {
          entryIds: [...new Set(keys.map((k) => k.entryId))],
          numbers: [...new Set(keys.map((k) => k.number))],
          withSnapshot: true,
        });
        const found = new Map(rows.map((r) => [`${r.row.entryId}:${r.row.versionNumber}`, r]));
        return keys.map((k) => found.get(`${k.entryId}:${k.number}`) ?? null);
      },
      { cacheKeyFn: (k) => `${k.entryId}:${k.number}` },
    ),
    snapshot: new DataLoader<number, Prisma.JsonValue | null>(async (ids) => {
      const rows = await (await readSource(ctx)).db.entryVersion.findMany({ where: { id: { in: [...ids] } }, select: { id: true, snapshot: true } });
      const byId = new Map(rows.map((r) => [r.id, r.snapshot]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  }));
}

const pageKey = (k: PageKey) => `${k.entryId}:${k.first}:${k.before ?? ''}`;
