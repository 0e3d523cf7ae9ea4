import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client.ts';
import type { Database } from './client.ts';
import type { Logger } from '../logger.ts';

/**
 * Embedded PostgreSQL (PGlite) kept on disk in DATA_DIR. Only one process may open a PGlite
 * directory; see src/db/embedded-owner.ts for how other processes reach it while a server runs.
 */
export async function openEmbedded(dataDir: string, _log: Logger): Promise<Database> {
  const dir = resolve(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const pglite = await PGlite.create(dir, { extensions: { pg_trgm } });
  return embeddedDatabase(pglite);
}

/** In-memory PGlite, for tests of the embedded path. */
export async function openEmbeddedInMemory(): Promise<Database> {
  const pglite = await PGlite.create({ extensions: { pg_trgm } });
  return embeddedDatabase(pglite);
}

function embeddedDatabase(pglite: PGlite): Database {
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    kind: 'pglite',
    prisma,
    async runScript(sql) {
      await pglite.exec(sql);
    },
    async query<T>(sql: string, params: unknown[] = []) {
      const res = await pglite.query<T>(sql, params);
      return res.rows;
    },
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
