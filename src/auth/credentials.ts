import type { Project } from '../db/generated/prisma/client.ts';
import type { CollectionGenerations } from '../context.ts';
import type { AuthCache } from './auth-cache.ts';

declare module '../context.ts' {
  interface Services {
    /**
     * Authentications held in process, dropped by the database's change notifications
     * (src/auth/auth-cache.ts); absent with AUTH_CACHE_MS=0 and on embedded PGlite, where every
     * request asks the database.
     */
    authCache?: AuthCache<AuthRow>;
  }
}

/** What authentication reads per request, and what the in-process authentication cache holds. */
export interface AuthRow {
  id: number;
  uuid: string;
  name: string;
  description: string | null;
  plan: Project['plan'];
  locales: string[];
  default_locale: string;
  locale_fallbacks: Project['localeFallbacks'];
  schema_revision: number;
  require_email_verification: boolean;
  created_at: Date;
  updated_at: Date;
  generation: string;
  /** Per collection slug: [collection id, published generation, draft generation] (counts of the content change log, migration 20261128010000). */
  collections: CollectionGenerations | null;
  token_id: number | null;
  token_project_id: number | null;
  token_name: string | null;
  abilities: string[] | null;
  revoked_at: Date | null;
  /** `api` or `preview`; the scope columns below are null for a token that may reach everything. */
  token_kind: string | null;
  token_collections: string[] | null;
  token_fields: Record<string, string[]> | null;
  expires_at: Date | null;
  release_id: string | null;
  /** A delivery token (published reads only, answers a CDN may keep); null without a token. */
  token_delivery: boolean | null;
  /** Whether the project runs only its trusted documents: read here so GraphQL asks no second statement. */
  trusted_documents_enforced: boolean;
  /**
   * The primary's WAL position when the generations above were read (raised with them by the change
   * feed): a replica that has replayed it shows at least what they count, so reads cached under them
   * are never older than their key (src/db/replicas.ts).
   */
  wal_lsn: string | null;
}

/**
 * The project, its content generations and the token in one round trip: this runs on every request,
 * and on this machine a statement's round trip costs more than the work it does. Plain pg, not Prisma,
 * for the same reason.
 */
export const AUTH_SQL = `
  SELECT p.id, p.uuid::text AS uuid, p.name, p.description, p.plan::text AS plan, p.locales, p.default_locale, p.locale_fallbacks,
         p.schema_revision, p.require_email_verification, p.created_at, p.updated_at, cms_project_generation(p.id)::text AS generation,
         (SELECT json_object_agg(g.slug, json_build_array(g.collection_id, g.published, g.draft))
            FROM cms_collection_generations(p.id) g) AS collections,
         t.id AS token_id, t.project_id AS token_project_id, t.name AS token_name, t.abilities, t.revoked_at,
         t.kind AS token_kind, t.collections AS token_collections, t.fields AS token_fields, t.expires_at, t.release_id::text AS release_id, t.delivery AS token_delivery,
         EXISTS (SELECT 1 FROM trusted_document_manifests m WHERE m.project_id = p.id AND m.enforced) AS trusted_documents_enforced,
         pg_current_wal_lsn()::text AS wal_lsn
    FROM projects p
    LEFT JOIN api_tokens t ON t.token_hash = $2
   WHERE p.uuid = $1::uuid`;

export const toProject = (r: AuthRow): Project => ({
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  description: r.description,
  plan: r.plan,
  locales: r.locales,
  defaultLocale: r.default_locale,
  localeFallbacks: r.locale_fallbacks,
  schemaRevision: r.schema_revision,
  requireEmailVerification: r.require_email_verification,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
