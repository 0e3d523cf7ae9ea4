import { createHash, randomBytes } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import { ErrorBag, notFound } from '../errors.ts';
import { isGrant, type Grant } from './abilities.ts';

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

export interface IssuedToken {
  id: number;
  token: string;
  name: string;
  abilities: Grant[];
}

/** Issues a token for a project; the plain value is returned once and never stored. */
export async function issueToken(
  db: Tx,
  input: { projectUuid: string; abilities: string[] | string; name?: string },
): Promise<IssuedToken> {
  const abilities = parseGrants(input.abilities);
  const project = await db.project.findUnique({ where: { uuid: input.projectUuid } });
  if (!project) throw notFound('Project not found.');
  const token = generateToken();
  const row = await db.apiToken.create({
    data: {
      projectId: project.id,
      name: input.name ?? 'API token',
      tokenHash: hashToken(token),
      prefix: token.slice(0, 12),
      abilities,
    },
  });
  return { id: row.id, token, name: row.name, abilities };
}
