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
    queries++;
    return original.apply(this, args);
  };
  try {
    const result = await fn();
    return { result, queries };
  } finally {
    proto.query = original;
  }
}
