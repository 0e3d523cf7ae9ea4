import type { Prisma } from '../db/generated/prisma/client.ts';
import type { FieldErrors } from '../errors.ts';
import { isoOrNull } from '../text.ts';

/** Items one request may add, and items a release may hold (docs/releases.md). */
export const MAX_ITEMS_PER_CALL = 100;
export const MAX_ITEMS_PER_RELEASE = 500;

export const RELEASE_STATUSES = ['open', 'scheduled', 'published', 'failed'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];
export const ITEM_ACTIONS = ['publish', 'unpublish'] as const;
export type ItemAction = (typeof ITEM_ACTIONS)[number];

/** A release row with its items and their collections' slugs, as the operations load it. */
export const RELEASE_INCLUDE = {
  items: { orderBy: { id: 'asc' }, include: { collection: { select: { id: true, slug: true } } } },
} as const satisfies Prisma.ReleaseInclude;
export type ReleaseRow = Prisma.ReleaseGetPayload<{ include: typeof RELEASE_INCLUDE }>;
export type ReleaseItemRow = ReleaseRow['items'][number];

export interface ReleaseItemView {
  id: string;
  collection: string;
  uuid: string;
  action: ItemAction;
  locale: string | null;
  /** The version the release's publish made of this entry; null before, and for unpublish items. */
  version: number | null;
}

/** The Release resource of REST, GraphQL and the `release.*` events. */
export interface ReleaseView {
  id: string;
  title: string;
  description: string | null;
  status: ReleaseStatus;
  publish_at: string | null;
  published_at: string | null;
  items: ReleaseItemView[];
  /** The problems of the last failed publish (`items.<n>.<field>`), or null. */
  errors: FieldErrors | null;
  created_at: string;
  updated_at: string;
}


export function serializeRelease(r: ReleaseRow): ReleaseView {
  return {
    id: r.uuid,
    title: r.title,
    description: r.description,
    status: r.status as ReleaseStatus,
    publish_at: isoOrNull(r.publishAt),
    published_at: isoOrNull(r.publishedAt),
    items: r.items.map((i) => ({
      id: i.uuid,
      collection: i.collection.slug,
      uuid: i.entryUuid,
      action: i.action as ItemAction,
      locale: i.locale,
      version: i.version,
    })),
    errors: (r.errors as FieldErrors | null) ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
