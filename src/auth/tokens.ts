import { createHash, randomBytes } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import { ErrorBag, notFound, validationFailed } from '../errors.ts';
import { isGrant, type Grant } from '../abilities.ts';
import { checkScopeInput, type ScopeInput, type StoredScope } from './token-scope-input.ts';

const PREFIX = 'cms_';

/** 32 random bytes: the token is a bearer secret, so only its sha256 is stored. */
export function generateToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

export const hashToken = (plain: string): string => createHash('sha256').update(plain).digest('hex');

export function parseGrants(input: string[] | string): Grant[] {
  const list = (Array.isArray(input) ? input : input.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const bag = new ErrorBag();
  if (list.length === 0) bag.add('abilities', 'At least one ability is required.');
  for (const a of list) if (!isGrant(a)) bag.add('abilities', `Unknown ability "${a}": use read, create, update, delete, admin or *.`);
  bag.throwIfAny();
  return [...new Set(list)] as Grant[];
}

export interface IssuedToken extends StoredScope {
  id: number;
  token: string;
  /** The token's first characters, stored in clear so listings can tell tokens apart. */
  prefix: string;
  name: string;
  abilities: Grant[];
  /** Reads the published view only; its answers may be kept by a CDN. */
  delivery: boolean;
}

export type TokenKind = 'api' | 'preview';

/**
 * Issues a token for a project; the plain value is returned once and never stored. `scope` limits
 * it to collections and fields and may give it an expiry (./token-scope-input.ts checks it).
 */
export async function issueToken(
  db: Tx,
  input: { projectUuid: string; abilities: string[] | string; name?: string; scope?: ScopeInput; kind?: TokenKind; releaseId?: string | null; delivery?: boolean },
): Promise<IssuedToken> {
  const abilities = parseGrants(input.abilities);
  // A delivery token's answers are kept by a CDN for anyone holding it: it must never be able to write.
  if (input.delivery && abilities.some((a) => a !== 'read')) throw validationFailed({ abilities: ['A delivery token reads only: its abilities must be read.'] });
  const project = await db.project.findUnique({ where: { uuid: input.projectUuid } });
  if (!project) throw notFound('Project not found.');
  const scope = await checkScopeInput(db, project.id, input.scope ?? {});
  const token = generateToken();
  const row = await db.apiToken.create({
    data: {
      projectId: project.id,
      name: input.name ?? (input.kind === 'preview' ? 'Preview token' : 'API token'),
      tokenHash: hashToken(token),
      prefix: token.slice(0, 12),
      abilities,
      kind: input.kind ?? 'api',
      // Left out when unlimited: the column stays NULL ("every collection").
      ...(scope.collections ? { collections: scope.collections } : {}),
      fields: scope.fields ?? undefined,
      expiresAt: scope.expiresAt,
      releaseId: input.releaseId ?? null,
      delivery: input.delivery ?? false,
    },
  });
  return { id: row.id, token, prefix: row.prefix, name: row.name, abilities, delivery: row.delivery, ...scope };
}

/** What an operator may see of a token: never the secret nor its hash. */
export interface TokenSummary {
  id: number;
  name: string;
  prefix: string;
  abilities: string[];
  kind: string;
  /** Null: every collection (a stored empty list never occurs: issuing needs at least one slug). */
  collections: string[] | null;
  fields: Record<string, string[]> | null;
  expiresAt: Date | null;
  releaseId: string | null;
  delivery: boolean;
  lastUsedAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}

const summaryColumns = {
  id: true, name: true, prefix: true, abilities: true, kind: true, collections: true, fields: true, expiresAt: true, releaseId: true, delivery: true,
  lastUsedAt: true, createdAt: true, revokedAt: true,
} as const;

type SummaryRow = Omit<TokenSummary, 'collections' | 'fields'> & { collections: string[] | null; fields: unknown };

/** Prisma reads a NULL scalar list as an empty one; issuing never stores an empty list, so empty means "all". */
const summaryOf = (r: SummaryRow): TokenSummary => ({
  ...r,
  collections: r.collections && r.collections.length ? r.collections : null,
  fields: (r.fields ?? null) as Record<string, string[]> | null,
});

async function projectIdOf(db: Tx, projectUuid: string): Promise<number> {
  const project = await db.project.findUnique({ where: { uuid: projectUuid }, select: { id: true } });
  if (!project) throw notFound('Project not found.');
  return project.id;
}

/** A project's tokens, revoked ones included (an operator auditing access needs both), oldest first. */
export async function listTokens(db: Tx, projectUuid: string, kind: TokenKind = 'api'): Promise<TokenSummary[]> {
  const projectId = await projectIdOf(db, projectUuid);
  return (await db.apiToken.findMany({ where: { projectId, kind }, select: summaryColumns, orderBy: { id: 'asc' } })).map(summaryOf);
}

/**
 * Revokes one token of a project, named by its id, its listed prefix, or the whole secret (someone
 * holding a leaked token need not look it up first). Revoking twice is harmless: the first
 * revocation time is kept. Servers holding the token in their authentication cache drop it when the
 * commit's change notification arrives.
 */
export async function revokeToken(db: Tx, input: { projectUuid: string; token: string; kind?: TokenKind }): Promise<TokenSummary> {
  const projectId = await projectIdOf(db, input.projectUuid);
  const ref = input.token.trim();
  // Without `kind` (the CLI) any token of the project; the API's two routes each revoke their own kind.
  const kind = input.kind ? { kind: input.kind } : {};
  const where = /^\d+$/.test(ref)
    ? { projectId, id: Number(ref), ...kind }
    : ref.length > 16
      ? { projectId, tokenHash: hashToken(ref), ...kind }
      : { projectId, prefix: ref, ...kind };
  if ('id' in where && !Number.isSafeInteger(where.id)) throw notFound('Token not found.');
  const matches = await db.apiToken.findMany({ where, select: summaryColumns, take: 2 });
  if (matches.length === 0) throw notFound('Token not found in this project.');
  if (matches.length > 1) throw validationFailed({ token: [`The prefix "${ref}" names more than one token: revoke by id.`] });
  const { id } = matches[0];
  // Only a live token gets a revocation time, so concurrent revocations keep the first one.
  await db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  return summaryOf(await db.apiToken.findUniqueOrThrow({ where: { id }, select: summaryColumns }));
}
