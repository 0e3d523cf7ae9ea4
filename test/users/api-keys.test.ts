import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

describe('end-user API keys', () => {
  let w: EndUserWorld;
  let session: { access_token: string };
  beforeAll(async () => {
    w = await endUserWorld();
    session = await w.signup('keys@example.com');
  });
  afterAll(() => w.t.close());

  it('creates a key shown once, lists it without the secret, and revokes it', async () => {
    const created = await w.auth('POST', 'api-keys', { token: session.access_token, body: { name: 'CI', scopes: ['content:read', 'content:read'], expires_at: new Date(Date.now() + 86_400_000).toISOString() } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      uuid: expect.any(String),
      name: 'CI',
      key_prefix: created.body.plain_text_key.slice(0, 12),
      scopes: ['content:read'],
      expires_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      created_at: expect.any(String),
      plain_text_key: expect.stringMatching(/^uak_.{40,}$/),
    });
    const key = created.body.plain_text_key as string;

    const me = await w.auth('GET', 'me', { token: key });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('keys@example.com');

    const list = await w.auth('GET', 'api-keys', { token: session.access_token });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].plain_text_key).toBeUndefined();
    expect(list.text).not.toContain(key);
    expect(list.body.data[0].last_used_at).toEqual(expect.any(String));

    // a key cannot manage keys or sessions
    expect((await w.auth('GET', 'api-keys', { token: key })).status).toBe(401);
    expect((await w.auth('POST', 'logout', { token: key })).status).toBe(401);

    const revoked = await w.auth('POST', `api-keys/${created.body.id}/revoke`, { token: session.access_token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).toEqual(expect.any(String));
    expect((await w.auth('GET', 'me', { token: key })).status).toBe(401);
  });

  it('validates the body and answers 404 for keys that are not the caller’s', async () => {
    const past = await w.auth('POST', 'api-keys', { token: session.access_token, body: { name: 'x', expires_at: '2000-01-01T00:00:00Z' } });
    expect(past.status).toBe(422);
    expect(past.body.errors.expires_at).toBeDefined();
    expect((await w.auth('POST', 'api-keys', { token: session.access_token, body: {} })).status).toBe(422);
    expect((await w.auth('POST', 'api-keys', { body: { name: 'anon' } })).status).toBe(401);

    const other = await w.signup('other-keys@example.com');
    const theirs = await w.auth('POST', 'api-keys', { token: other.access_token, body: { name: 'theirs' } });
    expect((await w.auth('POST', `api-keys/${theirs.body.id}/revoke`, { token: session.access_token })).status).toBe(404);
    expect((await w.auth('POST', 'api-keys/999999/revoke', { token: session.access_token })).status).toBe(404);
    expect((await w.auth('POST', 'api-keys/nonsense/revoke', { token: session.access_token })).status).toBe(404);
  });

  it('expired keys stop working', async () => {
    const created = await w.auth('POST', 'api-keys', { token: session.access_token, body: { name: 'short-lived' } });
    await w.t.database.prisma.userApiKey.update({ where: { id: created.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await w.auth('GET', 'me', { token: created.body.plain_text_key })).status).toBe(401);
  });

  it('neither an end-user key nor an end-user access token is a CMS token: 401 on content and admin routes', async () => {
    const created = await w.auth('POST', 'api-keys', { token: session.access_token, body: { name: 'probe' } });
    for (const bearer of [created.body.plain_text_key, session.access_token]) {
      const headers = { 'project-id': w.p.uuid, authorization: `Bearer ${bearer}` };
      for (const url of ['/api', '/api/collections', '/api/posts', '/api/webhooks', '/api/project/users']) {
        const res = await w.t.request({ method: 'GET', url, headers });
        expect(res.status, `${url} with ${bearer.slice(0, 4)}`).toBe(401);
      }
      const gql = await w.t.graphql('{ project { uuid } }', {}, headers);
      expect(gql.status).toBe(401);
    }
  });
});
