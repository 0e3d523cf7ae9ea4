import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.ts';

/** Issuer of every end-user access token; the audience is the project's UUID. */
const ISSUER = 'content-gateway';

export interface KeyRing {
  signing: { kid: string; key: Uint8Array };
  byKid: Map<string, Uint8Array>;
  /** True when no AUTH_JWT_KEYS was configured and a per-process key stands in. */
  ephemeral: boolean;
}

/**
 * HS256 keys from AUTH_JWT_KEYS (first signs, all verify by `kid`). Without configuration a random
 * key lives as long as the process: tokens then die with it and are not accepted by other replicas,
 * which is fine for development and wrong for production (docs/auth.md says so; the server warns).
 */
export function keyRing(config: Pick<Config, 'AUTH_JWT_KEYS'>): KeyRing {
  const configured = config.AUTH_JWT_KEYS.map((k) => ({ kid: k.kid, key: new TextEncoder().encode(k.secret) }));
  const keys = configured.length ? configured : [{ kid: `ephemeral-${randomBytes(4).toString('hex')}`, key: randomBytes(32) }];
  return { signing: keys[0], byKid: new Map(keys.map((k) => [k.kid, k.key])), ephemeral: configured.length === 0 };
}

export interface AccessClaims {
  userUuid: string;
  sessionUuid: string;
}

export async function signAccessToken(ring: KeyRing, projectUuid: string, claims: AccessClaims, ttlSeconds: number): Promise<{ token: string; expiresAt: Date }> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + ttlSeconds;
  const token = await new SignJWT({ sid: claims.sessionUuid, typ: 'access' })
    .setProtectedHeader({ alg: 'HS256', kid: ring.signing.kid, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(projectUuid)
    .setSubject(claims.userUuid)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(ring.signing.key);
  return { token, expiresAt: new Date(exp * 1000) };
}

/** The claims of a valid access token for this project, or null (bad signature, unknown kid, expired, other project). */
export async function verifyAccessToken(ring: KeyRing, token: string, projectUuid: string): Promise<AccessClaims | null> {
  const getKey: JWTVerifyGetKey = (header) => {
    const key = header.kid ? ring.byKid.get(header.kid) : undefined;
    if (!key) throw new Error('unknown kid');
    return key;
  };
  try {
    const { payload } = await jwtVerify(token, getKey, { issuer: ISSUER, audience: projectUuid, algorithms: ['HS256'] });
    if (payload.typ !== 'access' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
    return { userUuid: payload.sub, sessionUuid: payload.sid };
  } catch {
    return null;
  }
}
