import type { PrismaClient } from './generated/prisma/client.ts';
import { openPostgres, type Database, type PoolLimits, type TxQuery } from './postgres.ts';
import type { Logger } from '../logger.ts';
import type { Config } from '../config.ts';

export { Prisma } from './generated/prisma/client.ts';
export type { PrismaClient };
export { openPostgres, type Database, type PoolLimits, type TxQuery };

/** The pool bounds a process takes from its configuration. */
export function poolLimits(config: Pick<Config, 'DATABASE_POOL_TIMEOUT_MS' | 'DATABASE_LOCK_TIMEOUT_MS' | 'DATABASE_STATEMENT_TIMEOUT_MS'>): PoolLimits {
  return { poolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS, lockTimeoutMs: config.DATABASE_LOCK_TIMEOUT_MS, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS };
}

/** What a transaction callback receives; operations take this so they compose inside one transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const joined = new WeakSet<object>();

/** Marks a transaction client that operations join (so they run in it instead of opening their own). */
export function markJoinedTransaction(tx: Tx): void {
  joined.add(tx);
}

/**
 * Runs `fn` in a new transaction of `db`, or straight in `db` when it is a caller's transaction that
 * operations joined: a nested `$transaction` would be a savepoint on PostgreSQL, but on the embedded
 * database it waits for the one session its caller holds.
 */
export function withinTransaction<T>(db: PrismaClient, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return joined.has(db) ? fn(db) : db.$transaction(fn);
}

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  log: Logger;
  /** Pool size per process for PostgreSQL. */
  poolSize?: number;
  /** Waits bounded on PostgreSQL (`poolLimits(config)`); embedded PGlite has one session and no such waits to bound. */
  limits?: PoolLimits;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10, { limits: opts.limits });
  const { openEmbedded } = await import('./embedded.ts');
  return openEmbedded(opts.dataDir, opts.log);
}
