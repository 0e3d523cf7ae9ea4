import type { PrismaClient } from './generated/prisma/client.ts';
import { openPostgres, type Database, type TxQuery } from './postgres.ts';
import type { Logger } from '../logger.ts';

export { Prisma } from './generated/prisma/client.ts';
export type { PrismaClient };
export { openPostgres, type Database, type TxQuery };

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
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  const { openEmbedded } = await import('./embedded.ts');
  return openEmbedded(opts.dataDir, opts.log);
}
