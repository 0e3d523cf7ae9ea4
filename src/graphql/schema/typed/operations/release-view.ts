import type { Ctx } from '../../../../context.ts';
import { withReleaseView } from '../../../../releases/operations/preview.ts';

export const RELEASE_ARG = 'A release id: read the content as it will be once that release is published (state is ignored; never cached).';

/**
 * The typed reads' `release` argument: without it the read runs as is; with it, over the content as
 * the release will leave it (src/releases/operations/preview.ts), with the Ctx that sees that view.
 */
export function readAs<T>(ctx: Ctx, release: string | number | null | undefined, read: (ctx: Ctx) => Promise<T>): Promise<T> {
  return release === null || release === undefined ? read(ctx) : withReleaseView(ctx, String(release), read);
}
