import type { Database } from './client.ts';
import type { Logger } from '../logger.ts';

/**
 * How long after their transaction ends the rows of the content change log stay as rows (migration
 * 20261128010000): every change feed reads them well within this (it vouches for nothing after a
 * gap of 5 s between reads, src/db/change-feed.ts). Short, because generations are counts of these
 * rows, read on every authentication that misses the cache.
 */
export const CONTENT_LOG_KEEP_SECONDS = 10;

/**
 * Folds the change log into its base rows every `everyMs` (`cms_compact_content_changes`): every
 * process runs one, the database lets one at a time do the work (the others return at once), so no
 * replica has to be chosen and none has to stay up. Failures are logged and retried at the next tick.
 *
 * The process whose run folded rows then vacuums the log. Its rows are inserted and deleted at the
 * write rate, and a generation read scans them: without a vacuum (autovacuum off, or behind its
 * thresholds) the dead rows stay in the pages every count walks and new rows only ever extend the
 * table, so each authentication after a write and each change-feed read cost more the longer the
 * server had run. A vacuum of these few pages is a fraction of a millisecond.
 */
export function startContentLogCompaction(database: Database, log: Logger, everyMs = 2_000): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = database
      .query<{ folded: number }>('SELECT cms_compact_content_changes($1::int) AS folded', [CONTENT_LOG_KEEP_SECONDS], { name: 'cms_compact_content_changes' })
      .then(async ([r]) => {
        // Not on embedded PGlite: one session, and its log stays small.
        if (r && r.folded > 0 && database.kind === 'postgres') await database.runScript('VACUUM content_changes');
      })
      .catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : undefined }, 'content change log compaction failed'))
      .finally(() => (busy = false));
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
