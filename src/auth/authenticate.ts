import type { Ctx, Services } from '../context.ts';
import { AppError, badRequest, unauthenticated } from '../errors.ts';
import { hashToken } from './tokens.ts';
import { AUTH_SQL, toProject, type AuthRow } from './credentials.ts';
import { isUuid } from '../uuid.ts';
import type { Logger } from '../logger.ts';
import { scopeOfRow } from './scope.ts';
import { parseLsn, type Lsn } from '../db/lsn.ts';

export interface AuthHeaders {
  projectId?: string | string[];
  authorization?: string | string[];
  /** The WAL position the client says it wrote at (`Read-After`): a remembered answer older than it is not used. */
  readAfter?: Lsn;
}

/** Whether a remembered answer was read before the client's write: its generations may not count it. */
const olderThan = (row: Pick<AuthRow, 'wal_lsn'>, readAfter: Lsn | undefined): boolean => {
  if (readAfter === undefined) return false;
  const seen = parseLsn(row.wal_lsn);
  return seen === undefined || seen < readAfter;
};

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim();

/**
 * Why a request is unauthenticated, in words that say what to do. Each starts with the class's old
 * one-word message, so clients matching on it keep working. A token of another project reads as
 * unknown here: this project has no such token.
 */
export const AUTH_MESSAGES = {
  missing: 'Unauthenticated. The Authorization header is missing: send `Authorization: Bearer <token>` with an API token of this project.',
  malformed: 'Unauthenticated. The Authorization header must be `Bearer <token>` (the word Bearer, a space, then the token).',
  unknown: 'Unauthenticated. The token is not a token of this project (mistyped, deleted, or issued for another project).',
  revoked: 'Unauthenticated. The token has been revoked: issue a new one (`cms token create`).',
  expired: 'Unauthenticated. The token has expired: issue a new one.',
} as const;

function tokenProblem(auth: string | undefined, match: RegExpExecArray | null, row: AuthRow): string {
  if (!auth) return AUTH_MESSAGES.missing;
  if (!match) return AUTH_MESSAGES.malformed;
  if (row.token_id !== null && row.token_project_id === row.id && row.revoked_at) return AUTH_MESSAGES.revoked;
  if (row.token_id !== null && row.token_project_id === row.id && expired(row)) return AUTH_MESSAGES.expired;
  return AUTH_MESSAGES.unknown;
}

/**
 * docs/foundation.md: the project header is checked first (400 when missing or unknown), then the bearer
 * token (401 when missing, unknown, revoked or issued for another project). Abilities are checked
 * later by each operation (403).
 */
export async function authenticate(services: Services, headers: AuthHeaders, requestId?: string): Promise<Ctx> {
  const projectUuid = one(headers.projectId);
  if (!projectUuid) throw badRequest('Project header missing.');
  if (!isUuid(projectUuid)) throw badRequest('Project not found.');
  const auth = one(headers.authorization);
  const match = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  const projectKey = projectUuid.toLowerCase();
  const tokenHash = match ? hashToken(match[1]) : null;
  const cache = services.authCache;
  const cacheKey = `${projectKey}|${tokenHash}`;
  let row = tokenHash ? cache?.get(cacheKey) : undefined;
  // A remembered token may have expired since: the clock is checked on every use, on every replica.
  if (row && (expired(row) || olderThan(row, headers.readAfter))) row = undefined;
  if (!row) {
    const load = async () => (await services.database.query<AuthRow>(AUTH_SQL, [projectKey, tokenHash], { name: 'cms_authenticate' }))[0];
    // Only successes are remembered: a failure stays a round trip, so a token issued a moment ago works at once.
    row = cache && tokenHash ? await cache.read(cacheKey, load, succeeded) : await load();
    // A read in flight that began before the client's write: ask again.
    if (row && olderThan(row, headers.readAfter)) row = await load();
    if (!row) throw badRequest('Project not found.');
    if (!match || !succeeded(row)) throw unauthenticated(tokenProblem(auth, match, row));
  }
  if (row.token_id === null) throw unauthenticated(AUTH_MESSAGES.unknown);
  return contextOf(services, row, row.token_id, requestId);
}

const succeeded = (row: AuthRow): boolean => row.token_id !== null && !row.revoked_at && row.token_project_id === row.id && !expired(row);

const expired = (row: Pick<AuthRow, 'expires_at'>): boolean => row.expires_at !== null && new Date(row.expires_at).getTime() <= Date.now();

/**
 * The request's context when this replica remembers its credentials (the authentication cache), with
 * no statement and no waiting; undefined otherwise, for a caller that then takes the full path
 * (`authenticate`, which also gives every failure its answer). A remembered row is always a success.
 */
export function authenticateFromCache(services: Services, headers: AuthHeaders, requestId?: string): Ctx | undefined {
  const cache = services.authCache;
  const projectUuid = one(headers.projectId);
  const auth = one(headers.authorization);
  if (!cache || !projectUuid || !auth || !isUuid(projectUuid)) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(auth);
  if (!match) return undefined;
  const row = cache.get(`${projectUuid.toLowerCase()}|${hashToken(match[1])}`);
  if (!row || row.token_id === null || expired(row) || olderThan(row, headers.readAfter)) return undefined;
  return contextOf(services, row, row.token_id, requestId);
}

function contextOf(services: Services, row: AuthRow, tokenId: number, requestId: string | undefined): Ctx {
  const project = toProject(row);
  services.tokenUsage?.note(tokenId);
  let log: Logger | undefined;
  return {
    services,
    db: services.database.prisma,
    project,
    contentGeneration: row.generation,
    collectionGenerations: row.collections ?? {},
    trustedDocumentsEnforced: row.trusted_documents_enforced,
    actor: { kind: 'token', tokenId, name: row.token_name ?? '', abilities: row.abilities ?? [] },
    scope: scopeOfRow(row),
    source: 'api',
    // Made on first use: a pino child per request was a measurable share of a cached read, and
    // nearly no request logs through its context.
    get log() {
      return (log ??= services.log.child({ reqId: requestId, project: project.uuid, token: tokenId }));
    },
    memo: new Map(),
    reads: { replica: false, after: parseLsn(row.wal_lsn) },
  };
}

export const isAuthError = (e: unknown): e is AppError =>
  e instanceof AppError && (e.code === 'BAD_REQUEST' || e.code === 'UNAUTHENTICATED');
