import { readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * CPU time (ms) of the PostgreSQL backends connected to one database, when they run on this host:
 * on a shared cluster it counts only this run's work (background writers and autovacuum are not in
 * it). Backends that start between two readings count from zero; one that ends is lost (pools keep
 * theirs open for a run).
 */
export interface BackendCpu {
  /** CPU ms per backend pid now, or null when the backends are not local processes. */
  read(): Promise<Map<number, number> | null>;
  close(): Promise<void>;
}

export async function backendCpu(databaseUrl: string): Promise<BackendCpu> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    async read() {
      const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
      const out = new Map<number, number>();
      for (const { pid } of rows) {
        try {
          const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
          if (!s.includes('(postgres)') && !s.includes('(postmaster)')) return null;
          const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
          out.set(pid, (Number(f[11]) + Number(f[12])) * 10);
        } catch {
          return null;
        }
      }
      return out;
    },
    close: () => client.end(),
  };
}

/** CPU ms the backends used between two readings (null when either is unavailable). */
export function backendCpuDelta(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let sum = 0;
  for (const [pid, t] of after) sum += t - (before.get(pid) ?? 0);
  return sum;
}
