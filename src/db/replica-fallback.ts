import type { PrismaClient } from './generated/prisma/client.ts';
import { Prisma } from './generated/prisma/client.ts';
import type { Database, QueryOptions } from './postgres.ts';

/**
 * Whether a replica's error says the replica itself is gone or unusable (stopped, restarting,
 * unreachable), as opposed to the statement failing on its own terms. Waiting too long for one of
 * its pooled connections is not counted: that is load, and the statement still runs on the primary.
 */
export function isReplicaFailure(err: unknown): boolean {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && /^(08|57P0|53300|ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|P1001|P1002|P1017)/.test(code)) return true;
    if (typeof message === 'string' && /connection terminated|terminating connection|connect ECONNREFUSED|server closed the connection|the database system is (starting up|shutting down)|Can't reach database server/i.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whether a statement's error is its own (a missing record, bad data, a constraint, malformed SQL):
 * it fails the same way on the primary, so running it there again would only double the work of
 * every such read. Prisma's request errors (P2xxx) count, except a pool timeout (P2024) and a
 * transaction conflict (P2034); so do PostgreSQL's data (22), integrity (23) and syntax (42) classes.
 * Anything else (a recovery conflict on the standby, a timeout, an unknown error) is run again.
 */
function failsAlikeOnPrimary(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (/^P2\d{3}$/.test(code)) return code !== 'P2024' && code !== 'P2034';
  return /^(22|23|42)[0-9A-Z]{3}$/.test(code);
}

/**
 * A replica's database whose every statement that fails for a reason of the replica's is run again on the primary: a read must
 * never answer 5xx because a replica stopped between being chosen and being asked. The failure
 * itself is reported (`failed`), so the replica leaves rotation at once instead of at the next check.
 * A statement that fails on its own terms (failsAlikeOnPrimary) is answered as it failed.
 */
export function withPrimaryFallback(replica: Database, primary: Database, failed: (err: unknown) => void): Database {
  const rerun = (model: string | undefined, operation: string, args: unknown): Promise<unknown> => {
    if (model === undefined) {
      if (operation === '$queryRaw' && args instanceof Prisma.Sql) return primary.prisma.$queryRaw(args);
      if (operation === '$executeRaw' && args instanceof Prisma.Sql) return primary.prisma.$executeRaw(args);
      return Promise.reject(new Error(`read replica fallback: ${operation} cannot be repeated on the primary`));
    }
    const delegate = (primary.prisma as unknown as Record<string, Record<string, (a: unknown) => Promise<unknown>>>)[model[0].toLowerCase() + model.slice(1)];
    return delegate[operation](args);
  };
  const prisma = replica.prisma.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        try {
          return await query(args);
        } catch (err) {
          if (failsAlikeOnPrimary(err)) throw err;
          failed(err);
          return rerun(model, operation, args);
        }
      },
    },
  }) as unknown as PrismaClient;
  return {
    kind: replica.kind,
    prisma,
    runScript: (sql) => primary.runScript(sql),
    async query<T>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]> {
      try {
        return await replica.query<T>(sql, params, opts);
      } catch (err) {
        if (failsAlikeOnPrimary(err)) throw err;
        failed(err);
        return primary.query<T>(sql, params, opts);
      }
    },
    poolStats: replica.poolStats,
    close: () => replica.close(),
  };
}
