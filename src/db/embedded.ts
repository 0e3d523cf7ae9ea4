import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client.ts';
import { openPostgres, type Database } from './postgres.ts';
import { claimDataDir, ensurePrivateSocketDir, type OwnerInfo } from './embedded-owner.ts';
import type { Logger } from '../logger.ts';
import { EMBEDDED_CHANNELS, EmbeddedNotifications, notificationScanner } from './embedded-notifications.ts';

export interface EmbeddedOptions {
  /** Connections this process opens to the PGlite socket. */
  poolSize?: number;
  /** Connections the owner's socket server accepts from all processes together (its own pool included). */
  maxConnections?: number;
  /** How long a starting process waits for a live owner's socket. */
  waitMs?: number;
}

const socketUrl = (info: OwnerInfo) =>
  `postgresql://postgres@localhost:${info.port}/postgres?host=${encodeURIComponent(info.socketDir)}`;

/**
 * Embedded PostgreSQL (PGlite) kept on disk in DATA_DIR/pglite. The first process claims the
 * directory (src/db/embedded-owner.ts) and serves PGlite on a unix socket; later processes connect
 * through it. The owner's own queries go through that socket as well: pglite-socket multiplexes
 * connections onto PGlite's single session and keeps each open transaction exclusive to its
 * connection, which direct calls on the PGlite object would bypass (a client's statement could
 * land inside the owner's transaction or the other way round).
 */
export async function openEmbedded(dataDir: string, log: Logger, opts: EmbeddedOptions = {}): Promise<Database> {
  const claim = await claimDataDir(dataDir, { waitMs: opts.waitMs });
  const poolSize = opts.poolSize ?? 4;
  if (claim.role === 'client') {
    ensurePrivateSocketDir(claim.info.socketDir, { create: false });
    log.info({ owner: claim.info.pid, socket: claim.info.socketDir }, 'embedded database: connecting through the owning process');
    return { ...openPostgres(socketUrl(claim.info), poolSize, { namedStatements: false }), kind: 'pglite' };
  }

  let pglite: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  const notifications = new EmbeddedNotifications();
  const cleanupAfterFailure = async () => {
    await server?.stop().catch(() => {});
    await pglite?.close().catch(() => {});
    claim.release();
  };
  try {
    // Before the (slow) PGlite start, so a directory we must not use fails at once.
    ensurePrivateSocketDir(claim.info.socketDir, { create: true });
    const dir = resolve(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    pglite = await PGlite.create(dir, { extensions: { pg_trgm } });
    await listenOnStart(pglite);
    tapNotifications(pglite, notifications);
    const socketPath = join(claim.info.socketDir, `.s.PGSQL.${claim.info.port}`);
    // A socket file left by a crashed owner would make listen() fail with EADDRINUSE.
    rmSync(socketPath, { force: true });
    server = new PGLiteSocketServer({ db: pglite, path: socketPath, maxConnections: opts.maxConnections ?? 64 });
    await server.start();
  } catch (err) {
    await cleanupAfterFailure();
    throw err;
  }
  log.info({ dir: resolve(dataDir), socket: claim.info.socketDir }, 'embedded database: this process owns the data directory');

  const inner = openPostgres(socketUrl(claim.info), poolSize, { namedStatements: false });
  const ownedServer = server;
  const ownedPglite = pglite;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    try {
      claim.release();
    } catch {
      /* already gone */
    }
  };
  // An owner killed by a signal still clears its claim; a SIGKILL leaves it for takeover.
  process.once('exit', release);
  return {
    ...inner,
    kind: 'pglite',
    listen: notifications.listen,
    async close() {
      await inner.close();
      await ownedServer.stop();
      await ownedPglite.close();
      process.removeListener('exit', release);
      release();
    },
  };
}

/**
 * In-memory PGlite, for tests of the embedded path. `image` (from `migratedInMemoryImage`) starts it
 * from an already-migrated data directory instead of an empty one.
 */
export async function openEmbeddedInMemory(opts: { image?: Blob } = {}): Promise<Database> {
  const pglite = await PGlite.create({ extensions: { pg_trgm }, ...(opts.image ? { loadDataDir: opts.image } : {}) });
  await listenOnStart(pglite);
  const notifications = new EmbeddedNotifications();
  // Every statement here goes through PGlite's own calls, which parse the NOTIFYs they receive.
  pglite.onNotification(notifications.deliver);
  return { ...embeddedDatabase(pglite), listen: notifications.listen };
}

/** LISTEN before any connection can hold a transaction open on the one session. */
async function listenOnStart(pglite: PGlite): Promise<void> {
  for (const channel of EMBEDDED_CHANNELS) await pglite.exec(`LISTEN ${channel}`);
}

/**
 * The socket server hands each connection's statements to PGlite and copies the answer back raw,
 * unparsed, so PGlite's own notification callbacks never run: the answers are read here as they go
 * out. A NOTIFY reaches the answer of whichever connection committed it (the session is theirs
 * alike), which a pg client ignores unless it listens.
 */
function tapNotifications(pglite: PGlite, notifications: EmbeddedNotifications): void {
  const raw = pglite.execProtocolRawStream.bind(pglite);
  pglite.execProtocolRawStream = (message, options) => {
    const scan = notificationScanner(notifications.deliver);
    return raw(message, {
      ...options,
      onRawData: (data) => {
        scan(data);
        options.onRawData(data);
      },
    });
  };
}

let migratedImage: Promise<Blob> | undefined;

/**
 * A data-directory image of an in-memory PGlite with every migration applied, made once per process:
 * replaying all migrations in WASM costs seconds, loading the image a fraction of that.
 */
export function migratedInMemoryImage(migrate: (db: Database) => Promise<unknown>): Promise<Blob> {
  migratedImage ??= (async () => {
    const pglite = await PGlite.create({ extensions: { pg_trgm } });
    const db = embeddedDatabase(pglite);
    await migrate(db);
    const image = await pglite.dumpDataDir('none');
    await db.close();
    return image;
  })();
  return migratedImage;
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
