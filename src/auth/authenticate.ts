import type { Services } from '../services.ts';
import type { Ctx } from '../context.ts';
import { AppError, badRequest, unauthenticated } from '../errors.ts';
import { hashToken } from './tokens.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuthHeaders {
  projectId?: string | string[];
  authorization?: string | string[];
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim();

/**
 * Spec §5: the project header is checked first (400 when missing or unknown), then the bearer
 * token (401 when missing, unknown, revoked or issued for another project). Abilities are checked
 * later by each operation (403).
 */
export async function authenticate(services: Services, headers: AuthHeaders, requestId?: string): Promise<Ctx> {
  const projectUuid = one(headers.projectId);
  if (!projectUuid) throw badRequest('Project header missing.');
  if (!UUID_RE.test(projectUuid)) throw badRequest('Project not found.');
  const project = await services.database.prisma.project.findUnique({ where: { uuid: projectUuid.toLowerCase() } });
  if (!project) throw badRequest('Project not found.');

  const auth = one(headers.authorization);
  const match = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  if (!match) throw unauthenticated();
  const token = await services.database.prisma.apiToken.findUnique({ where: { tokenHash: hashToken(match[1]) } });
  if (!token || token.revokedAt || token.projectId !== project.id) throw unauthenticated();

  return {
    services,
    db: services.database.prisma,
    project,
    actor: { kind: 'token', tokenId: token.id, name: token.name, abilities: token.abilities },
    source: 'api',
    log: services.log.child({ reqId: requestId, project: project.uuid, token: token.id }),
    memo: new Map(),
  };
}

export const isAuthError = (e: unknown): e is AppError =>
  e instanceof AppError && (e.code === 'BAD_REQUEST' || e.code === 'UNAUTHENTICATED');
