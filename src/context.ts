import type { Redis } from 'ioredis';
import type { Project } from './db/generated/prisma/client.ts';
import type { Database, PrismaClient } from './db/client.ts';
import type { ReplicaSet } from './db/replicas.ts';
import { laterLsn, type Lsn } from './db/lsn.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { requireAbility, type Ability } from './abilities.ts';

/**
 * Process-wide dependencies, created once at start and handed to every request context.
 * This kernel names no domain: each domain adds the runtime it owns to this interface from its own
 * module (`declare module '../context.ts'`, the way a Fastify plugin decorates the instance), so the
 * domains depend on the kernel and never the reverse (.dependency-cruiser.cjs, `kernel-imports-no-domain`):
 * `authCache` (src/auth/credentials.ts), `tokenUsage` (src/auth/token-usage.ts), `trustedDocuments`
 * (src/persisted/memory.ts), `webhooks` (src/delivery/runtime.ts), `outboxReaders` (src/events/port.ts),
 * `mailer` (src/users/mailer.ts).
 * What only the request pipeline uses (rate budgets, the read cache) is added by src/edge/services.ts.
 */
export interface Services {
  config: Config;
  log: Logger;
  database: Database;
  /** Streaming replicas that read-only operations use (DATABASE_REPLICA_URLS); absent without them. */
  replicas?: ReplicaSet;
  /** Shared Redis connection for request-path work (rate limits, cache invalidation); absent in embedded mode. */
  redis?: Redis;
  /** Closes everything this process opened, in reverse order. */
  close(): Promise<void>;
  /** Hooks run by close(); domains register theirs as they start. */
  onClose: Array<() => Promise<void>>;
  /**
   * Told after the commit of a change to assets that answers show (metadata, deletion), by uuid: the
   * CDN purger (src/edge/cdn/purger.ts) purges the answers that show them. Absent without a CDN.
   * The writer tells it, once, because no outbox event records asset changes.
   */
  assetsChanged?: (uuids: string[]) => void;
}

/** Collection slug → [collection id, published generation, draft generation]. */
export type CollectionGenerations = Record<string, [number, number, number]>;

/**
 * What a scoped token may reach, read with its authentication (src/auth/scope.ts builds it; the
 * collections domain applies it, src/collections/token-scope.ts). Absent: the whole project, as
 * every token had before scopes existed.
 */
export interface TokenScope {
  /** Collection slugs the token may act on; null: all of the project's. */
  collections: ReadonlySet<string> | null;
  /** Per collection slug, the only top-level fields it may read and write; a slug not listed: all. */
  fields: ReadonlyMap<string, ReadonlySet<string>>;
  /** A preview token: read-only, and an out-of-scope read is refused (403) rather than hidden (404). */
  preview: boolean;
  /** A preview token's release, or null. */
  release: string | null;
  /**
   * A delivery token: reads the published view only (drafts, release previews and version history
   * answer 403), and its published answers may be kept by a CDN (src/edge/cdn/).
   */
  delivery: boolean;
  /** A short digest of everything above: cached reads and schemas built for one scope carry it in their key. */
  digest: string;
}

/** Entries (shown or linked, by uuid), collections (by uuid) and collection listings a read's answer depends on. */
export interface ShownContent {
  entries: Set<string>;
  /** Assets shown by media fields, found or not (by uuid). */
  assets: Set<string>;
  collections: Set<string>;
  lists: Set<string>;
}

/** Who is acting. Token actors come from the API; system actors are the CLI, seeding, a dashboard. */
export type Actor =
  | { kind: 'token'; tokenId: number; name: string; abilities: string[] }
  | { kind: 'system'; name: string };

/** Webhook source: API-token changes are `api`; the project's own admin tools are `cms`. */
export type EventSource = 'api' | 'cms';

/**
 * Everything an operation needs, built once per request (or per CLI command). Operations receive it;
 * REST routes and GraphQL resolvers never touch Prisma themselves.
 */
export interface Ctx {
  services: Services;
  db: PrismaClient;
  project: Project;
  /**
   * The project's content generation as authentication read it (a bigint as text): any committed
   * change of the project's content moves it. Keys cached reads; absent for system actors.
   */
  contentGeneration?: string;
  /**
   * Per collection slug, its id and published and draft generations as authentication read them
   * (migration 20261126000000): reads of one collection are cached under its own counters, so a
   * write elsewhere, or a draft save under a published read, leaves them cached. Absent with the
   * project-wide generation.
   */
  collectionGenerations?: CollectionGenerations;
  /** Whether the project runs only trusted documents, as authentication read it; absent for system actors. */
  trustedDocumentsEnforced?: boolean;
  actor: Actor;
  /** The token's scope, when it has one. */
  scope?: TokenScope;
  /**
   * What a published read showed, collected while it renders (src/entries/reads/serialize.ts) so its
   * answer can name them to a CDN: set only for delivery tokens' reads, by the read's caller.
   */
  shown?: ShownContent;
  source: EventSource;
  log: Logger;
  /** Per-request memo (DataLoaders and similar), keyed by the module that owns the entry. */
  memo: Map<string, unknown>;
  /** Whether and after what this request's read-only operations may read a replica (`readSource`); absent: the primary. */
  reads?: ReadRouting;
  /**
   * Connections of the primary that this context's read-only operations use instead of the
   * process's pool (`readSource`): the live hub's own (src/live/hub.ts), so that rendering an event
   * does not queue behind the writers' transactions.
   */
  readPool?: Database;
}

/**
 * Set by the request pipeline: `replica` only for requests that write nothing (REST GET, GraphQL
 * queries), so a write's own read-back never meets a replica; `after`, the WAL position the reads
 * must see: what authentication saw (the generations read caches key by) and what the client says
 * it wrote (the `Read-After` header).
 */
export interface ReadRouting {
  replica: boolean;
  after?: Lsn;
}

/** What a read-only operation reads with: Prisma, and plain pg statements when outside a transaction. */
export interface ReadSource {
  db: PrismaClient;
  /** Null inside a transaction, whose statements must run on its own connection. */
  database: Database | null;
}

/**
 * The one seam between reads and writes. Read-only operations (entry reads, lists, counts, versions,
 * webhook logs) take their client here and never from `ctx.db`, which is the primary (or the
 * caller's transaction) and is what writes, transactions, the outbox, locks and migrations use.
 * With replicas, a read request gets one that has replayed everything it must see, waiting up to
 * REPLICA_WAIT_MS for it, else the primary (src/db/replicas.ts); chosen once per request.
 */
export function readSource(ctx: Ctx): Promise<ReadSource> | ReadSource {
  const primary = ctx.services.database;
  if (ctx.db !== primary.prisma) return { db: ctx.db, database: null };
  if (ctx.readPool) return { db: ctx.readPool.prisma, database: ctx.readPool };
  const replicas = ctx.services.replicas;
  const reads = ctx.reads;
  if (!replicas || !reads?.replica) return { db: ctx.db, database: primary };
  return memo(ctx, 'db:read-source', async (): Promise<ReadSource> => {
    const chosen = await replicas.reader(laterLsn(reads.after, replicas.writeFloor(ctx.project.id)));
    return { db: chosen.prisma, database: chosen };
  });
}

export function authorize(ctx: Ctx, ability: Ability): void {
  if (ctx.actor.kind === 'system') return;
  requireAbility(ctx.actor.abilities, ability);
}

/** A per-request singleton (e.g. a DataLoader set) created on first use. */
export function memo<T>(ctx: Ctx, key: string, make: () => T): T {
  let v = ctx.memo.get(key) as T | undefined;
  if (v === undefined) {
    v = make();
    ctx.memo.set(key, v);
  }
  return v;
}

export function systemCtx(services: Services, project: Project, name = 'cli'): Ctx {
  return {
    services,
    db: services.database.prisma,
    project,
    actor: { kind: 'system', name },
    source: 'cms',
    log: services.log.child({ actor: name }),
    memo: new Map(),
  };
}

export const tokenIdOf = (ctx: Ctx): number | null => (ctx.actor.kind === 'token' ? ctx.actor.tokenId : null);
