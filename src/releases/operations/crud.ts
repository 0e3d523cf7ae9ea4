import { Prisma } from '../../db/client.ts';
import { TX_OPTIONS } from '../../entries/operations/entry.ts';
import { type Ctx } from '../../context.ts';
import { ErrorBag, conflict, notFound, parseBody } from '../../errors.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { MAX_ITEMS_PER_RELEASE, RELEASE_INCLUDE, serializeRelease, type ReleaseView } from '../model.ts';
import { createBody, itemsBody, parseListQuery, updateBody } from '../input.ts';
import { authorizeReleases, onlyRelease } from './access.ts';
import { findRelease, lockRelease, RELEASE_NOT_FOUND } from './find.ts';

/** Release administration (docs/releases.md); publishing is ./publish.ts. */


export interface ReleasePage {
  data: ReleaseView[];
  total: number;
  page: number;
  perPage: number;
}

export async function createRelease(ctx: Ctx, body: unknown): Promise<ReleaseView> {
  authorizeReleases(ctx, 'update');
  const input = parseBody(createBody, body);
  const row = await ctx.db.release.create({
    data: { projectId: ctx.project.id, title: input.title, description: input.description ?? null },
    include: RELEASE_INCLUDE,
  });
  return serializeRelease(row);
}

/** Newest first; `status` filters. */
export async function listReleases(ctx: Ctx, query: Record<string, unknown>): Promise<ReleasePage> {
  authorizeReleases(ctx, 'read');
  const q = parseListQuery(query);
  const only = onlyRelease(ctx);
  const where = { projectId: ctx.project.id, ...(q.status ? { status: q.status } : {}), ...(only ? { uuid: only } : {}) };
  const [total, rows] = await Promise.all([
    ctx.db.release.count({ where }),
    ctx.db.release.findMany({ where, include: RELEASE_INCLUDE, orderBy: { id: 'desc' }, skip: (q.page - 1) * q.perPage, take: q.perPage }),
  ]);
  return { data: rows.map(serializeRelease), total, page: q.page, perPage: q.perPage };
}

export async function getRelease(ctx: Ctx, id: string): Promise<ReleaseView> {
  authorizeReleases(ctx, 'read');
  const only = onlyRelease(ctx);
  // A release-bound preview token sees its own release only; another one does not exist for it.
  if (only && id.toLowerCase() !== only) throw notFound(RELEASE_NOT_FOUND);
  return serializeRelease(await findRelease(ctx.db, ctx, id));
}

export async function updateRelease(ctx: Ctx, id: string, body: unknown): Promise<ReleaseView> {
  authorizeReleases(ctx, 'update');
  const input = parseBody(updateBody, body);
  const found = await findRelease(ctx.db, ctx, id);
  const row = await ctx.db.release.update({
    where: { id: found.id },
    data: { ...(input.title !== undefined ? { title: input.title } : {}), ...(input.description !== undefined ? { description: input.description } : {}) },
    include: RELEASE_INCLUDE,
  });
  return serializeRelease(row);
}

/** A published release is the record of what went live together: it stays (409). */
export async function deleteRelease(ctx: Ctx, id: string): Promise<void> {
  authorizeReleases(ctx, 'update');
  await ctx.db.$transaction(async (tx) => {
    const r = await lockRelease(tx, ctx, id);
    if (r.status === 'published') throw conflict('A published release cannot be deleted.');
    await tx.release.delete({ where: { id: r.id } });
  }, TX_OPTIONS);
}

const refuseIfPublished = (status: string) => {
  if (status === 'published') throw conflict('The release is published: its items can no longer change.');
};

/**
 * Adds items (at most 100 per call, 500 per release). An entry appears at most once per release,
 * whatever its action: a second item for it, in the request or already in the release, is a 422 on
 * that item. The entry must exist (live, in the named collection) when it is added; whether it still
 * does is checked again when the release publishes.
 */
export async function addReleaseItems(ctx: Ctx, id: string, body: unknown): Promise<ReleaseView> {
  authorizeReleases(ctx, 'update');
  const { items } = parseBody(itemsBody, body);
  const bag = new ErrorBag();
  // Collections resolve outside the transaction (schema cache); an unknown slug is a 422 on its item.
  const collections = new Map<string, number>();
  for (const slug of new Set(items.map((i) => i.collection))) {
    try {
      collections.set(slug, (await collectionForRequest(ctx, slug)).id);
    } catch {
      // Unknown slug: reported per item below.
    }
  }
  return ctx.db.$transaction(async (tx) => {
    const r = await lockRelease(tx, ctx, id);
    refuseIfPublished(r.status);
    const present = new Set(r.items.map((i) => i.entryUuid));
    const uuids = items.map((i) => i.uuid.toLowerCase());
    const live = await tx.entry.findMany({
      where: { projectId: ctx.project.id, collectionId: { in: [...collections.values()] }, uuid: { in: uuids }, deletedAt: null },
      select: { uuid: true, collectionId: true, locale: true },
    });
    const byUuid = new Map(live.map((e) => [e.uuid, e]));
    const seen = new Set<string>();
    items.forEach((item, n) => {
      const key = `items.${n}`;
      const uuid = item.uuid.toLowerCase();
      const collectionId = collections.get(item.collection);
      if (collectionId === undefined) bag.add(`${key}.collection`, `The selected ${key}.collection is invalid: no collection '${item.collection}'.`);
      const entry = byUuid.get(uuid);
      if (collectionId !== undefined && (!entry || entry.collectionId !== collectionId)) {
        bag.add(`${key}.uuid`, `The selected ${key}.uuid is invalid: no entry with this UUID exists in this collection.`);
      }
      if (present.has(uuid) || seen.has(uuid)) bag.add(`${key}.uuid`, 'This entry is already in the release: an entry appears at most once per release.');
      seen.add(uuid);
      if (entry && item.locale && item.locale !== entry.locale) bag.add(`${key}.locale`, `The entry's locale is '${entry.locale}', not '${item.locale}'.`);
    });
    if (r.items.length + items.length > MAX_ITEMS_PER_RELEASE) {
      bag.add('items', `A release holds at most ${MAX_ITEMS_PER_RELEASE} items: it has ${r.items.length}, this adds ${items.length}.`);
    }
    bag.throwIfAny();
    await tx.releaseItem.createMany({
      data: items.map((item) => ({
        uuid: crypto.randomUUID(),
        releaseId: r.id,
        collectionId: collections.get(item.collection)!,
        entryUuid: item.uuid.toLowerCase(),
        action: item.action,
        locale: item.locale || null,
      })),
    });
    // A failed release that changes goes back to open: its errors described the items it had.
    const row = await tx.release.update({
      where: { id: r.id },
      data: { updatedAt: new Date(), ...(r.status === 'failed' ? { status: 'open', errors: Prisma.DbNull } : {}) },
      include: RELEASE_INCLUDE,
    });
    return serializeRelease(row);
  }, TX_OPTIONS);
}

export async function removeReleaseItem(ctx: Ctx, id: string, itemId: string): Promise<ReleaseView> {
  authorizeReleases(ctx, 'update');
  return ctx.db.$transaction(async (tx) => {
    const r = await lockRelease(tx, ctx, id);
    refuseIfPublished(r.status);
    const item = r.items.find((i) => i.uuid === itemId.toLowerCase());
    if (!item) throw notFound('Release item not found.');
    await tx.releaseItem.delete({ where: { id: item.id } });
    const row = await tx.release.update({
      where: { id: r.id },
      data: { updatedAt: new Date(), ...(r.status === 'failed' ? { status: 'open', errors: Prisma.DbNull } : {}) },
      include: RELEASE_INCLUDE,
    });
    return serializeRelease(row);
  }, TX_OPTIONS);
}
