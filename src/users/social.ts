import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { SocialProviderConfig } from '../config.ts';

export interface SocialIdentity {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
}

export type SocialVerifier = (idToken: string, nonce?: string) => Promise<SocialIdentity | null>;

/**
 * One verifier per configured provider (AUTH_SOCIAL_PROVIDERS). Remote key sets are fetched and
 * cached by jose (re-fetched when a token names an unknown `kid`); inline sets serve pinned keys and
 * tests. Asymmetric algorithms only: a provider's id token is never signed with a shared secret.
 */
export function socialVerifiers(providers: Record<string, SocialProviderConfig>): Map<string, SocialVerifier> {
  const out = new Map<string, SocialVerifier>();
  for (const [name, p] of Object.entries(providers)) {
    const keys = p.jwksUri ? createRemoteJWKSet(new URL(p.jwksUri)) : createLocalJWKSet(p.jwks as unknown as JSONWebKeySet);
    out.set(name, async (idToken, nonce) => {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(idToken, keys, {
          issuer: p.issuer,
          audience: p.audience,
          algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
        }));
      } catch {
        return null;
      }
      if (nonce !== undefined && payload.nonce !== nonce) return null;
      if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') return null;
      return {
        subject: payload.sub,
        email: payload.email,
        // Google sends a boolean; some providers send "true".
        emailVerified: payload.email_verified === true || payload.email_verified === 'true',
        name: typeof payload.name === 'string' ? payload.name : null,
      };
    });
  }
  return out;
}
