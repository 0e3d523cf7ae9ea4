import { authorize, type Ctx } from '../../context.ts';
import { requireReadView } from '../../collections/token-scope.ts';
import { txCtx } from '../../entries/operations/entry.ts';
import type { ReadState } from '../../entries/types.ts';
import { applyRelease } from './apply.ts';
import { findRelease, lockRelease } from './find.ts';

/**
 * Release previews (`?release={id}` on entry reads, the `release` argument of the typed list and
 * get): a read of the content as it will be once the release is published. The read runs inside a
 * transaction in which the release's publish is applied exactly as the publish applies it
 * (./apply.ts), and the transaction is then rolled back: filters, sorting, paging, totals, relation
 * hydration and visibility are the published read's own, over the future rows, so the preview cannot
 * drift from what publishing does. A preview is therefore always a published read: the state a caller
 * asked for is ignored, and every adapter (REST `?release=`, the typed list and get) takes the state to
 * read from here. Nothing of it commits: no version, no event, no cache change.
 *
 * Cost: while the read runs, the release's entries are locked as a publish locks them, so a write to
 * one of them waits for the preview (a few milliseconds for a typical read). A release already
 * published previews as the published content it made.
 */

/** The answer of the read, carried out of the transaction that is rolled back. */
class RolledBack<T> extends Error {
  constructor(readonly value: T) {
    super('release preview rolled back');
  }
}

const TX_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

/**
 * Runs `read` with a Ctx whose reads see the release applied, and the state it must read (published:
 * the release's future is published content). Needs `read`, as a draft read does.
 */
export async function withReleaseView<T>(ctx: Ctx, releaseId: string, read: (previewCtx: Ctx, state: ReadState) => Promise<T>): Promise<T> {
  authorize(ctx, 'read');
  requireReadView(ctx, { release: releaseId });
  const release = await findRelease(ctx.db, ctx, releaseId);
  if (release.status === 'published' || release.items.length === 0) return read(ctx, 'published');
  try {
    await ctx.db.$transaction(async (tx) => {
      const tctx = txCtx(ctx, tx);
      const locked = await lockRelease(tx, tctx, releaseId);
      await applyRelease(tx, tctx, locked, { strict: false });
      throw new RolledBack(await read(tctx, 'published'));
    }, TX_OPTIONS);
  } catch (err) {
    if (err instanceof RolledBack) return err.value as T;
    throw err;
  }
  throw new Error('unreachable: the preview transaction always rolls back');
}

/**
 * A read that may be a release preview: without `release` it reads `state` (published when absent) as
 * is; with one, the release view (`withReleaseView`), whatever `state` says.
 */
export function readInView<T>(
  ctx: Ctx,
  view: { release?: string | number | null; state?: ReadState | null },
  read: (ctx: Ctx, state: ReadState) => Promise<T>,
): Promise<T> {
  if (view.release === null || view.release === undefined) return read(ctx, view.state ?? 'published');
  return withReleaseView(ctx, String(view.release), read);
}
