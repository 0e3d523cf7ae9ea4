import type { Database } from '../db/client.ts';
import type { Services } from '../context.ts';

/** What a command may use; everything opens lazily, so `--help` needs no configuration or database. */
export interface CliEnv {
  /** Opens the database once; runs pending migrations first unless told not to (or MIGRATE_ON_START=false). */
  db(migrateFirst?: boolean): Promise<Database>;
  redisUrl(): string | undefined;
  /** What operations that take a Ctx need (schema apply, import): the database, config, log, webhook options. */
  services(): Promise<Services>;
  /** Where progress goes (stderr); `isTTY` says whether a progress bar may be drawn. */
  progress: { write(s: string): void; isTTY: boolean };
}
