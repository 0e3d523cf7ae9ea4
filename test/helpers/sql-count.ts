import pg from 'pg';

/** Statements a timer or a finished write may send at any moment, never part of the request measured. */
export const BACKGROUND = ['SET last_used_at = u.at', 'cms_read_content_log(', 'cms_compact_content_changes', 'VACUUM content_changes', "pg_notify('cms_changes', 'h')"];

export const isBackground = (text: string): boolean => BACKGROUND.some((b) => text.includes(b));

/**
 * The statements sent to PostgreSQL through any pg client of this process while `fn` runs (Prisma's
 * adapter, the plain-pg authentication and raw queries alike), in order. Left out: background work a
 * timer may run at any moment, never part of a request: token bookkeeping (src/auth/token-usage.ts),
 * the change feed's reads of the change log, its compaction and the vacuum after it
 * (src/db/change-feed.ts, content-log.ts), and the coalesced hint a write sends after its commit
 * without waiting for it (src/db/change-hints.ts).
 */
export async function recordStatements<T>(fn: () => Promise<T>): Promise<{ result: T; texts: string[]; names: Array<string | undefined> }> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const texts: string[] = [];
  /** Per statement in `texts`, the prepared statement's name, if it was sent as one. */
  const names: Array<string | undefined> = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as { text?: unknown; name?: unknown } | string | undefined;
    const text = typeof config === 'string' ? config : config?.text;
    const name = typeof config === 'object' && typeof config.name === 'string' ? config.name : undefined;
    if (typeof text !== 'string') {
      texts.push('');
      names.push(undefined);
    } else if (!isBackground(text)) {
      texts.push(text);
      names.push(name);
    }
    return original.apply(this, args);
  };
  try {
    return { result: await fn(), texts, names };
  } finally {
    proto.query = original;
  }
}

/** How many statements recordStatements saw while `fn` ran. */
export async function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const { result, texts } = await recordStatements(fn);
  return { result, queries: texts.length };
}
