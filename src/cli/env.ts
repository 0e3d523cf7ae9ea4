import type { Database } from '../db/client.ts';

/** What a command may use; everything opens lazily, so `--help` needs no configuration or database. */
export interface CliEnv {
  /** Opens the database once; runs pending migrations first unless told not to (or MIGRATE_ON_START=false). */
  db(migrateFirst?: boolean): Promise<Database>;
  redisUrl(): string | undefined;
}
