import { issueToken, listTokens, revokeToken, type TokenSummary } from '../auth/tokens.ts';
import type { CliEnv } from './env.ts';
import { fields, humanTime, table, type CommandOutput } from './output.ts';
import { isoOrNull } from '../text.ts';

const tokenJson = (t: TokenSummary) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  abilities: t.abilities,
  collections: t.collections,
  fields: t.fields,
  delivery: t.delivery,
  expires_at: isoOrNull(t.expiresAt),
  last_used_at: isoOrNull(t.lastUsedAt),
  created_at: t.createdAt.toISOString(),
  revoked_at: isoOrNull(t.revokedAt),
});

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);

/** `posts:title,body;pages:title` → `{ posts: [title, body], pages: [title] }`; a malformed part is kept for the 422 to name. */
export function parseFieldsOption(spec: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of spec.split(';').map((p) => p.trim()).filter(Boolean)) {
    const at = part.indexOf(':');
    const slug = (at < 0 ? part : part.slice(0, at)).trim();
    out[slug] = [...(out[slug] ?? []), ...(at < 0 ? [] : list(part.slice(at + 1)))];
  }
  return out;
}

/** An ISO 8601 date-time, or a lifetime from now (`90m`, `12h`, `30d`); anything else is passed on for the 422. */
export function parseExpiresOption(when: string, now = Date.now()): string {
  const m = /^(\d+)\s*([mhd])$/i.exec(when.trim());
  if (!m) return when;
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2].toLowerCase() as 'm' | 'h' | 'd'];
  return new Date(now + Number(m[1]) * unit).toISOString();
}

export async function tokenCreate(
  env: CliEnv,
  input: { projectUuid: string; abilities: string; delivery?: boolean; name: string; collections?: string; fields?: string; expires?: string },
): Promise<CommandOutput> {
  const db = await env.db();
  const t = await issueToken(db.prisma, {
    projectUuid: input.projectUuid,
    abilities: input.abilities,
    delivery: input.delivery,
    name: input.name,
    scope: {
      collections: input.collections === undefined ? undefined : list(input.collections),
      fields: input.fields === undefined ? undefined : parseFieldsOption(input.fields),
      expiresAt: input.expires === undefined ? undefined : parseExpiresOption(input.expires),
    },
  });
  const scopeLines: Array<[string, string]> = [];
  if (t.collections) scopeLines.push(['collections', t.collections.join(', ')]);
  if (t.fields) scopeLines.push(['fields', Object.entries(t.fields).map(([c, f]) => `${c}: ${f.join(', ')}`).join('; ')]);
  if (t.expiresAt) scopeLines.push(['expires', t.expiresAt.toISOString()]);
  if (t.delivery) scopeLines.push(['delivery', 'yes: published reads only, cacheable by a CDN']);
  return {
    json: { id: t.id, name: t.name, prefix: t.prefix, token: t.token, abilities: t.abilities, collections: t.collections, fields: t.fields, delivery: t.delivery, expires_at: isoOrNull(t.expiresAt) },
    human: [
      'Token created. This is the only time the secret is shown: store it now.',
      fields([
        ['token', t.token],
        ['abilities', t.abilities.join(', ')],
        ...scopeLines,
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
