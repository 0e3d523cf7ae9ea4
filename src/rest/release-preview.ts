import type { Ctx } from '../context.ts';
import { firstString } from '../text.ts';
import { withReleaseView } from '../releases/operations/preview.ts';
import type { RestInput, RestResult } from './route.ts';

type ReadHandler = (ctx: Ctx, input: RestInput) => Promise<RestResult>;

/**
 * `?release={id}` on the entry reads (docs/releases.md, "Previews"): the read answers the content as
 * it will be once the release is published. The read runs over that future in the state the release
 * view reads (src/releases/operations/preview.ts: `state` is ignored), and neither the published read cache nor
 * the early answer lane sees it: `read` is the route's plain handler, not its cached one, and the
 * answer carries no ETag. Without the parameter the route's usual (cached) handler answers.
 */
export function withReleasePreview(read: ReadHandler, usual: ReadHandler): ReadHandler {
  return async (ctx, input) => {
    const release = firstString(input.query.release);
    if (release === undefined) return usual(ctx, input);
    const result = await withReleaseView(ctx, release, (previewCtx, state) =>
      read(previewCtx, { ...input, query: { ...input.query, state }, readCache: undefined, knownReads: undefined }),
    );
    return { ...result, headers: { ...result.headers, 'Cache-Control': 'private, no-store' } };
  };
}
