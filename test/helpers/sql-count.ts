import pg from 'pg';

/**
 * Counts the statements sent to PostgreSQL through any pg client of this process while `fn` runs
 * (Prisma's adapter, the plain-pg authentication and raw queries alike).
 */
export async function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let queries = 0;
  proto.query = function (this: unknown, ...args: unknown[]) {
    // Background bookkeeping a timer may run at any moment (src/auth/token-usage.ts), never part of a request.
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
    if (typeof text !== 'string' || !text.includes('SET last_used_at = u.at')) queries++;
    return original.apply(this, args);
  };
  try {
    const result = await fn();
    return { result, queries };
  } finally {
    proto.query = original;
  }
}
