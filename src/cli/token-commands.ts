import { issueToken, listTokens, revokeToken, type TokenSummary } from '../auth/tokens.ts';
import type { CliEnv } from './env.ts';
import { fields, humanTime, isoOrNull, table, type CommandOutput } from './output.ts';

const tokenJson = (t: TokenSummary) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  abilities: t.abilities,
  last_used_at: isoOrNull(t.lastUsedAt),
  created_at: t.createdAt.toISOString(),
  revoked_at: isoOrNull(t.revokedAt),
});

export async function tokenCreate(env: CliEnv, input: { projectUuid: string; abilities: string; name: string }): Promise<CommandOutput> {
  const db = await env.db();
  const t = await issueToken(db.prisma, input);
  return {
    json: { id: t.id, name: t.name, prefix: t.prefix, token: t.token, abilities: t.abilities },
    human: [
      'Token created. This is the only time the secret is shown: store it now.',
      fields([
        ['token', t.token],
        ['abilities', t.abilities.join(', ')],
        ['name', t.name],
        ['id', String(t.id)],
      ]),
      '',
      'Send it with every request:',
      `  project-id: ${input.projectUuid}`,
      `  Authorization: Bearer ${t.token}`,
    ].join('\n'),
  };
}

export async function tokenList(env: CliEnv, projectUuid: string): Promise<CommandOutput> {
  const db = await env.db();
  const tokens = await listTokens(db.prisma, projectUuid);
  return {
    json: tokens.map(tokenJson),
    human: table(
      ['ID', 'NAME', 'PREFIX', 'ABILITIES', 'LAST USED', 'CREATED', 'REVOKED'],
      tokens.map((t) => [
        String(t.id),
        t.name,
        t.prefix,
        t.abilities.join(','),
        humanTime(t.lastUsedAt, 'never'),
        humanTime(t.createdAt, ''),
        humanTime(t.revokedAt, '-'),
      ]),
      `No tokens in this project. Create one with: cms token create --project ${projectUuid} --abilities '*'`,
    ),
  };
}

export async function tokenRevoke(env: CliEnv, input: { projectUuid: string; token: string }): Promise<CommandOutput> {
  const db = await env.db();
  const t = await revokeToken(db.prisma, input);
  return {
    json: tokenJson(t),
    human: `Token ${t.id} (${t.prefix}…, "${t.name}") is revoked since ${humanTime(t.revokedAt, '')}.`,
  };
}
