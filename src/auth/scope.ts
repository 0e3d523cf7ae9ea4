import { createHash } from 'node:crypto';
import type { TokenScope } from '../context.ts';

/** The scope columns of a token row, as authentication reads them (src/auth/credentials.ts). */
export interface ScopeColumns {
  token_kind: string | null;
  token_collections: string[] | null;
  token_fields: Record<string, string[]> | null;
  release_id: string | null;
  token_delivery: boolean | null;
}

const scopes = new WeakMap<object, TokenScope | null>();

/**
 * The scope of an authenticated token, or undefined for a token that reaches the whole project.
 * Authentication rows are held in memory and shared by every request using the token, so the scope
 * is built once per row object, not per request: a scoped cached read costs what an unscoped one does.
 */
export function scopeOfRow(row: ScopeColumns & object): TokenScope | undefined {
  let scope = scopes.get(row);
  if (scope === undefined) {
    scope = buildScope(row);
    scopes.set(row, scope);
  }
  return scope ?? undefined;
}

function buildScope(row: ScopeColumns): TokenScope | null {
  const preview = row.token_kind === 'preview';
  const delivery = row.token_delivery === true;
  const fieldEntries = Object.entries(row.token_fields ?? {}).filter(([, names]) => Array.isArray(names));
  if (!preview && !delivery && row.token_collections === null && fieldEntries.length === 0) return null;
  const collections = row.token_collections === null ? null : [...new Set(row.token_collections)].sort();
  const fields = fieldEntries.map(([slug, names]) => [slug, [...new Set(names)].sort()] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Delivery is part of the digest: its answers carry CDN headers and tags no other token's may.
  const digest = scopeDigest({ preview, collections, fields, release: row.release_id, ...(delivery ? { delivery } : {}) });
  return {
    collections: collections && new Set(collections),
    fields: new Map(fields.map(([slug, names]) => [slug, new Set(names)])),
    preview,
    delivery,
    release: row.release_id,
    digest,
  };
}

/**
 * A digest of a scope's content, not of the token: two tokens with the same scope share cached
 * reads and schemas, and no two different scopes ever share one.
 */
function scopeDigest(parts: { preview: boolean; collections: string[] | null; fields: ReadonlyArray<readonly [string, string[]]>; release: string | null; delivery?: boolean }): string {
  return 's' + createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}
