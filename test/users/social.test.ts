import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

/** A local identity provider: an RS256 key pair whose public half is served as a JWKS on 127.0.0.1. */
async function localProvider() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'local-1', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  return {
    jwksUri: `http://127.0.0.1:${port}/jwks`,
    jwk,
    privateKey,
    fetches: () => fetches,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

const idToken = (key: CryptoKey, claims: Record<string, unknown>, opts: { iss?: string; aud?: string; kid?: string; exp?: string } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? 'local-1' })
    .setIssuer(opts.iss ?? 'https://idp.test')
    .setAudience(opts.aud ?? 'client-123')
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m')
    .sign(key);

describe('social login', () => {
  let w: EndUserWorld;
  let idp: Awaited<ReturnType<typeof localProvider>>;
  let pinned: Awaited<ReturnType<typeof generateKeyPair>>;
  beforeAll(async () => {
    idp = await localProvider();
    pinned = await generateKeyPair('ES256');
    const pinnedJwk = { ...(await exportJWK(pinned.publicKey)), kid: 'pinned-1', alg: 'ES256' };
    w = await endUserWorld({
      AUTH_SOCIAL_PROVIDERS: JSON.stringify({
        google: { issuer: 'https://idp.test', audience: 'client-123', jwksUri: idp.jwksUri },
        pinned: { issuer: 'https://pinned.test', audience: ['app'], jwks: { keys: [pinnedJwk] } },
      }),
    });
  });
  afterAll(async () => {
    await w.t.close();
    await idp.close();
  });

  const social = (provider: string, id_token: string, nonce?: string) => w.auth('POST', 'login/social', { body: { provider, id_token, ...(nonce ? { nonce } : {}) } });

  it('signs in with an id token verified against the provider JWKS (fetched from the local server), creating the account', async () => {
    const token = await idToken(idp.privateKey, { sub: 'g-1', email: 'Social@Example.com', email_verified: true, name: 'Soc', nonce: 'n-1' });
    const res = await social('google', token, 'n-1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String) });
    expect(res.body.user).toMatchObject({ email: 'Social@Example.com', display_name: 'Soc', email_verified_at: expect.any(String) });
    expect(idp.fetches()).toBeGreaterThan(0);
    expect((await w.auth('GET', 'me', { token: res.body.access_token })).body.user.uuid).toBe(res.body.user.uuid);

    // the same subject again is the same account
    const again = await social('google', await idToken(idp.privateKey, { sub: 'g-1', email: 'social@example.com', email_verified: true }));
    expect(again.body.user.uuid).toBe(res.body.user.uuid);
  });

  it('links to an existing password account only when the provider vouches for the address', async () => {
    const s = await w.signup('linked@example.com');
    const unverified = await social('google', await idToken(idp.privateKey, { sub: 'g-2', email: 'linked@example.com', email_verified: false }));
    expect(unverified.status).toBe(401);
    const verified = await social('google', await idToken(idp.privateKey, { sub: 'g-2', email: 'linked@example.com', email_verified: true }));
    expect(verified.status).toBe(200);
    expect(verified.body.user.uuid).toBe(s.user.uuid);
  });

  it('accepts inline (pinned) key sets', async () => {
    const token = await new SignJWT({ sub: 'p-1', email: 'pinned@example.com', email_verified: 'true' })
      .setProtectedHeader({ alg: 'ES256', kid: 'pinned-1' })
      .setIssuer('https://pinned.test')
      .setAudience('app')
      .setExpirationTime('5m')
      .sign(pinned.privateKey);
    const res = await social('pinned', token);
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe('pinned@example.com');
  });

  it('refuses bad id tokens with 401 Invalid social login.', async () => {
    const other = await generateKeyPair('RS256');
    const cases = [
      await idToken(other.privateKey, { sub: 'x', email: 'x@example.com' }), // wrong key
      await idToken(idp.privateKey, { sub: 'x', email: 'x@example.com' }, { iss: 'https://evil.test' }),
      await idToken(idp.privateKey, { sub: 'x', email: 'x@example.com' }, { aud: 'someone-else' }),
      await idToken(idp.privateKey, { sub: 'x', email: 'x@example.com' }, { exp: '-1m' }),
      await idToken(idp.privateKey, { sub: 'x' }), // no email
      'not-a-jwt',
    ];
    for (const token of cases) {
      const res = await social('google', token);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Invalid social login.');
    }
    const nonce = await social('google', await idToken(idp.privateKey, { sub: 'x', email: 'x@example.com', nonce: 'a' }), 'b');
    expect(nonce.status).toBe(401);
  });

  it('answers 422 for a provider that is not configured, or a missing id_token', async () => {
    const res = await social('facebook', 'whatever');
    expect(res.status).toBe(422);
    expect(res.body.errors.provider[0]).toMatch(/not configured/);
    expect((await w.auth('POST', 'login/social', { body: { provider: 'google' } })).status).toBe(422);
  });

  it('a disabled account cannot sign in socially', async () => {
    const first = await social('google', await idToken(idp.privateKey, { sub: 'g-9', email: 'gone@example.com', email_verified: true }));
    await w.t.request({ method: 'PATCH', url: `/api/project/users/${first.body.user.uuid}`, headers: w.p.headers, body: { disabled: true } });
    const res = await social('google', await idToken(idp.privateKey, { sub: 'g-9', email: 'gone@example.com', email_verified: true }));
    expect(res.status).toBe(403);
  });
});

describe('social login configuration', () => {
  it('a malformed AUTH_SOCIAL_PROVIDERS stops the process with a message naming it', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    expect(() => loadConfig({ AUTH_SOCIAL_PROVIDERS: '{not json' })).toThrow(/AUTH_SOCIAL_PROVIDERS/);
    expect(() => loadConfig({ AUTH_SOCIAL_PROVIDERS: JSON.stringify({ google: { issuer: 'x', audience: 'y' } }) })).toThrow(/jwksUri or jwks/);
    expect(() => loadConfig({ AUTH_JWT_KEYS: 'k1:short' })).toThrow(/AUTH_JWT_KEYS/);
  });
});
