import type { Project } from '../db/generated/prisma/client.ts';
import type { Services } from '../services.ts';
import type { Ctx } from '../context.ts';
import { AppError, badRequest, unauthenticated } from '../errors.ts';
import { hashToken } from './tokens.ts';
import { isUuid } from '../uuid.ts';

export interface AuthHeaders {
  projectId?: string | string[];
  authorization?: string | string[];
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim();

export interface AuthRow {
  id: number;
  uuid: string;
  name: string;
  description: string | null;
  plan: Project['plan'];
  locales: string[];
  default_locale: string;
  schema_revision: number;
  created_at: Date;
  updated_at: Date;
  generation: string;
  token_id: number | null;
  token_project_id: number | null;
  token_name: string | null;
  abilities: string[] | null;
  revoked_at: Date | null;
}

/**
 * The project, its content generation and the token in one round trip: this runs on every request,
 * and on this machine a statement's round trip costs more than the work it does. Plain pg, not Prisma,
 * for the same reason.
 */
const AUTH_SQL = `
  SELECT p.id, p.uuid::text AS uuid, p.name, p.description, p.plan::text AS plan, p.locales, p.default_locale,
         p.schema_revision, p.created_at, p.updated_at, coalesce(g.generation, 0)::text AS generation,
         t.id AS token_id, t.project_id AS token_project_id, t.name AS token_name, t.abilities, t.revoked_at
    FROM projects p
    LEFT JOIN content_generations g ON g.project_id = p.id
    LEFT JOIN api_tokens t ON t.token_hash = $2
   WHERE p.uuid = $1::uuid`;

const toProject = (r: AuthRow): Project => ({
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  description: r.description,
  plan: r.plan,
  locales: r.locales,
  defaultLocale: r.default_locale,
  schemaRevision: r.schema_revision,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Spec §5: the project header is checked first (400 when missing or unknown), then the bearer
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
  if (!row) {
    const ticket = cache?.ticket();
    [row] = await services.database.query<AuthRow>(AUTH_SQL, [projectKey, tokenHash], { name: 'cms_authenticate' });
    if (!row) throw badRequest('Project not found.');
    if (!match || row.token_id === null || row.revoked_at || row.token_project_id !== row.id) throw unauthenticated();
    // Only successes are remembered: a failure stays a round trip, so a token issued a moment ago works at once.
    if (ticket && cache) cache.set(ticket, cacheKey, row.id, row);
  }
  const tokenId = row.token_id;
  if (tokenId === null) throw unauthenticated();

  const project = toProject(row);
  return {
    services,
    db: services.database.prisma,
    project,
    contentGeneration: row.generation,
    actor: { kind: 'token', tokenId, name: row.token_name ?? '', abilities: row.abilities ?? [] },
    source: 'api',
    log: services.log.child({ reqId: requestId, project: project.uuid, token: tokenId }),
    memo: new Map(),
  };
}

export const isAuthError = (e: unknown): e is AppError =>
  e instanceof AppError && (e.code === 'BAD_REQUEST' || e.code === 'UNAUTHENTICATED');
