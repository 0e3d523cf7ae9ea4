import type { ProjectUser, UserApiKey } from '../db/generated/prisma/client.ts';

/** The user object of every end-user answer and of `auth.*` event payloads (docs/auth.md): never a hash or token. */
export function serializeUser(u: ProjectUser) {
  return {
    id: u.id,
    uuid: u.uuid,
    email: u.email,
    display_name: u.displayName,
    email_verified_at: u.emailVerifiedAt?.toISOString() ?? null,
    metadata: u.metadata,
  };
}

export type UserView = ReturnType<typeof serializeUser>;

/** What the CMS side sees of a user: the public object plus account state. */
export function serializeAdminUser(u: ProjectUser) {
  return {
    ...serializeUser(u),
    disabled: u.disabledAt !== null,
    disabled_at: u.disabledAt?.toISOString() ?? null,
    last_login_at: u.lastLoginAt?.toISOString() ?? null,
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
  };
}

export type AdminUserView = ReturnType<typeof serializeAdminUser>;

/** API key metadata (docs/auth.md); the plain key is added only to the creation answer. */
export function serializeApiKey(k: UserApiKey) {
  return {
    id: k.id,
    uuid: k.uuid,
    name: k.name,
    key_prefix: k.keyPrefix,
    scopes: k.scopes,
    expires_at: k.expiresAt?.toISOString() ?? null,
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    created_at: k.createdAt.toISOString(),
  };
}
