import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';
import type { Listen } from './listener.ts';

export interface Database {
  kind: 'postgres' | 'pglite';
  prisma: PrismaClient;
  /** Runs a multi-statement SQL script outside Prisma's prepared statements (migrations). */
  runScript(sql: string): Promise<void>;
  /**
   * Runs one parameterised statement outside Prisma (migration bookkeeping, health checks, and the
   * per-request authentication). `name` makes it a prepared statement on each pooled connection, so
   * PostgreSQL parses and plans a hot statement once per connection instead of once per call.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
  /**
   * Runs `fn` in a transaction on one pooled connection, outside Prisma (committed when `fn` resolves,
   * rolled back when it throws), for a writer whose few statements must share a transaction and whose
   * parameters are large JSON texts that Prisma's raw-query handling would copy and escape again.
   * Absent for embedded PGlite: its callers take Prisma's transaction instead.
   */
  transaction?<T>(fn: (query: TxQuery) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Embedded PGlite in the process that owns it: the NOTIFYs of every commit on the channels it
   * listens on (src/db/embedded-notifications.ts), whichever connection or process made it. Its one
   * session is every connection's, so a LISTEN connection of its own would hear only its own
   * statements'. Absent on PostgreSQL (listen over DATABASE_URL: src/db/listener.ts) and in a
   * process that reaches the embedded database through its owner.
   */
  listen?: Listen;
  /**
   * Readiness: resolves when the database answers `SELECT 1`, over a connection of its own outside the
   * pool, so a pool that requests have taken (a held row lock, a burst of slow statements) does not
   * make a working replica look dead. Absent where there is no pool to saturate (embedded PGlite in-process).
   */
  ping?(): Promise<void>;
  /** Connection pool use right now (metrics); absent for embedded PGlite, which has no pool. */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

/** `Database.query` on the connection of a `Database.transaction`. */
export type TxQuery = <T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: Pick<QueryOptions, 'name'>) => Promise<T[]>;

export interface QueryOptions {
  name?: string;
  /**
   * Value parsers for this statement only (pg's per-query `types`), for a read that wants a column
   * in another form than pg's global parsers give, which Prisma's adapter shares and must stay as
   * they are. Embedded PGlite ignores them: callers take either form.
   */
  types?: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
}

/**
 * Bounds on the waits of the pool's connections (DATABASE_POOL_TIMEOUT_MS, DATABASE_LOCK_TIMEOUT_MS,
 * DATABASE_STATEMENT_TIMEOUT_MS). Without them one row lock held elsewhere lets writers of that row
 * take every connection and wait on it indefinitely, and every other request then waits for a
 * connection. Each is answered as a busy database (503 with Retry-After, src/db/errors.ts). 0 = no bound.
 */
export interface PoolLimits {
  /** Longest a query waits for a free pool connection (or for a new one to connect). */
  poolTimeoutMs?: number;
  /** PostgreSQL `lock_timeout` of every pool connection: longest a statement waits for a lock. */
  lockTimeoutMs?: number;
  /** PostgreSQL `statement_timeout` of every pool connection. */
  statementTimeoutMs?: number;
}

/** The readiness connection's own bounds: a probe that cannot answer within this is an answer. */
const PING_TIMEOUT_MS = 2000;

/**
 * `namedStatements: false` for servers that multiplex many client connections onto one session
 * (pglite-socket): there a name prepared by one connection collides with the same name from another.
 */
export function openPostgres(
  connectionString: string,
  poolSize = 10,
  opts: { namedStatements?: boolean; connectionTimeoutMillis?: number; applicationName?: string; limits?: PoolLimits } = {},
): Database {
  const named = opts.namedStatements ?? true;
  const limits = opts.limits ?? {};
  // pg sends a 0 (or unset) timeout as no parameter at all: the server's own setting applies.
  const sessionTimeouts = { lock_timeout: limits.lockTimeoutMs || undefined, statement_timeout: limits.statementTimeoutMs || undefined };
  const timed = sessionTimeouts.lock_timeout !== undefined || sessionTimeouts.statement_timeout !== undefined;
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: opts.connectionTimeoutMillis ?? (limits.poolTimeoutMs || undefined),
    application_name: opts.applicationName,
    ...sessionTimeouts,
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let pingPool: pg.Pool | undefined;
  return {
    kind: 'postgres',
    prisma,
    async runScript(sql) {
      const client = await pool.connect();
      let broken = false;
      try {
        // Scripts are migrations, index builds and maintenance: they may rightly wait for locks and
        // run long (under an advisory lock, CONCURRENTLY), so the request bounds do not apply. Separate
        // statements: CREATE INDEX CONCURRENTLY refuses to share a multi-statement query.
        if (timed) await client.query('SET lock_timeout = 0; SET statement_timeout = 0');
        await client.query(sql);
      } finally {
        if (timed) await client.query('RESET lock_timeout; RESET statement_timeout').catch(() => (broken = true));
        client.release(broken);
      }
    },
    async query<T>(sql: string, params: unknown[] = [], opts: QueryOptions = {}) {
      const config: pg.QueryConfig = named && opts.name ? { name: opts.name, text: sql, values: params } : { text: sql, values: params };
      if (opts.types) config.types = opts.types as pg.CustomTypesConfig;
      const res = await pool.query(config);
      return res.rows as T[];
    },
    async transaction<T>(fn: (query: TxQuery) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const query: TxQuery = async <R>(sql: string, params: unknown[] = [], o: Pick<QueryOptions, 'name'> = {}) =>
        (await client.query(named && o.name ? { name: o.name, text: sql, values: params } : { text: sql, values: params })).rows as R[];
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(query);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // A connection whose ROLLBACK fails is in an unknown state: the pool drops it instead of reusing it.
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async ping() {
      // One connection kept open for readiness probes (idleTimeoutMillis 0), opened on the first one.
      if (!pingPool) {
        pingPool = new pg.Pool({
          connectionString,
          max: 1,
          idleTimeoutMillis: 0,
          connectionTimeoutMillis: PING_TIMEOUT_MS,
          statement_timeout: PING_TIMEOUT_MS,
          application_name: opts.applicationName ? `${opts.applicationName} readiness` : 'cms readiness',
        });
        pingPool.on('error', () => {});
      }
      await pingPool.query('SELECT 1');
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize }),
    async close() {
      await prisma.$disconnect();
      await pool.end();
      await pingPool?.end();
    },
  };
}
