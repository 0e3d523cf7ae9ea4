import type { PrismaClient } from './generated/prisma/client.ts';
import { openPostgres, type Database } from './postgres.ts';
import type { Logger } from '../logger.ts';

export { Prisma } from './generated/prisma/client.ts';
export type { PrismaClient };
export { openPostgres, type Database };

/** What a transaction callback receives; operations take this so they compose inside one transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

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
