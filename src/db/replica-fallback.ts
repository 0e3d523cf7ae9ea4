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
 * A replica's database whose every statement that fails is run again on the primary: a read must
 * never answer 5xx because a replica stopped between being chosen and being asked. The failure
 * itself is reported (`failed`), so the replica leaves rotation at once instead of at the next check.
 * A statement that fails on its own terms fails the same way on the primary, so nothing is hidden.
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
        failed(err);
        return primary.query<T>(sql, params, opts);
      }
    },
    poolStats: replica.poolStats,
    close: () => replica.close(),
  };
}
