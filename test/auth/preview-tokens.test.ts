import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { world, posts, collection, field, type World } from '../helpers/world.ts';

/**
 * Preview tokens: read-only, time-limited tokens for a frontend's draft mode, sent like an API
 * token. They read published and draft views within their collections; every write and every read
 * outside their scope is 403; expired or revoked, 401.
 */
describe('preview tokens', () => {
  let w: World;
  let post: string;
  let secret: string;

  async function issue(body: Record<string, unknown>) {
    const res = await w.api('POST', '/api/preview-tokens', body);
    expect(res.status, res.text).toBe(201);
    return { id: res.body.data.id as number, res, headers: { 'project-id': w.p.uuid, authorization: `Bearer ${res.body.data.token}` } };
  }
  const as = (headers: Record<string, string>) => (method: string, url: string, body?: unknown) => w.api(method, url, body, headers);

  beforeAll(async () => {
    w = await world({ project: { name: 'Previews' }, collections: [posts(), collection('secrets', [field.text('code')])] });
    post = (await w.api('POST', '/api/posts', { state: 'published', data: { title: 'Live' } })).body.uuid;
    await w.api('PATCH', `/api/posts/${post}`, { data: { title: 'Draft title' } });
    secret = (await w.api('POST', '/api/secrets', { state: 'published', data: { code: 'xyz' } })).body.uuid;
  }, 60_000);
  afterAll(() => w.close());

  it('issues { id, token, expires_at } and lists them apart from API tokens', async () => {
    const before = Date.now();
    const { id, res } = await issue({ expires_in: 3600, collections: ['posts'] });
    expect(Object.keys(res.body.data).sort()).toEqual(['expires_at', 'id', 'token']);
    const expires = new Date(res.body.data.expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1000);
    const list = await w.api('GET', '/api/preview-tokens');
    expect(list.body.data.find((t: { id: number }) => t.id === id)).toMatchObject({ collections: ['posts'], release: null, revoked_at: null });
    expect((await w.api('GET', '/api/project/tokens')).body.data.some((t: { id: number }) => t.id === id)).toBe(false);
  });

  it('issues, lists and revokes through GraphQL with the same rules (admin only)', async () => {
    const issued = await w.t.graphql(`mutation { createPreviewToken(expiresIn: 600, collections: ["posts"]) { id token expiresAt } }`, undefined, w.p.headers);
    expect(issued.body.errors, JSON.stringify(issued.body)).toBeUndefined();
    const { id, token } = issued.body.data.createPreviewToken;
    const headers = { 'project-id': w.p.uuid, authorization: `Bearer ${token}` };
    expect((await w.api('GET', `/api/posts/${post}?state=draft`, undefined, headers)).body.fields.title).toBe('Draft title');
    const listed = await w.t.graphql(`{ previewTokens { id collections revokedAt } }`, undefined, w.p.headers);
    expect(listed.body.data.previewTokens).toContainEqual({ id: String(id), collections: ['posts'], revokedAt: null });
    const tooLong = await w.t.graphql(`mutation { createPreviewToken(expiresIn: ${7 * 24 * 3600 + 1}) { id } }`, undefined, w.p.headers);
    expect(tooLong.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    // A preview token cannot issue another one.
    const byPreview = await w.t.graphql(`mutation { createPreviewToken(expiresIn: 60) { id } }`, undefined, headers);
    expect(byPreview.body.data?.createPreviewToken ?? null).toBeNull();
    expect(byPreview.body.errors?.[0]?.extensions?.code).toMatch(/FORBIDDEN|UNAUTHENTICATED/);
    const revoked = await w.t.graphql(`mutation { revokePreviewToken(id: "${id}") { revokedAt } }`, undefined, w.p.headers);
    expect(revoked.body.data.revokePreviewToken.revokedAt).not.toBeNull();
    expect((await w.api('GET', `/api/posts/${post}`, undefined, headers)).status).toBe(401);
  });

  it('refuses a lifetime over 7 days or missing, and an unknown collection (422)', async () => {
    expect((await w.api('POST', '/api/preview-tokens', { expires_in: 7 * 24 * 3600 + 1 })).status).toBe(422);
    expect((await w.api('POST', '/api/preview-tokens', {})).status).toBe(422);
    expect((await w.api('POST', '/api/preview-tokens', { expires_in: 60, collections: ['nope'] })).status).toBe(422);
    expect((await w.api('POST', '/api/preview-tokens', { expires_in: 60, release: 'not-a-uuid' })).status).toBe(422);
  });

  it('reads published and draft views within its scope, on REST and GraphQL', async () => {
    const { headers } = await issue({ expires_in: 3600, collections: ['posts'] });
    const api = as(headers);
    expect((await api('GET', `/api/posts/${post}`)).body.fields.title).toBe('Live');
    expect((await api('GET', `/api/posts/${post}?state=draft`)).body.fields.title).toBe('Draft title');
    expect((await api('GET', '/api/posts?state=draft')).status).toBe(200);
    const g = await w.t.graphql(`{ post(uuid: "${post}", state: draft) { title } }`, undefined, headers);
    expect(g.body.data.post.title).toBe('Draft title');
  });

  it('refuses every write and every read outside its scope (403)', async () => {
    const { headers } = await issue({ expires_in: 3600, collections: ['posts'] });
    const api = as(headers);
    expect((await api('POST', '/api/posts', { data: { title: 'x' } })).status).toBe(403);
    expect((await api('PATCH', `/api/posts/${post}`, { data: { title: 'x' } })).status).toBe(403);
    expect((await api('DELETE', `/api/posts/${post}`)).status).toBe(403);
    expect((await api('POST', `/api/posts/${post}/publish`)).status).toBe(403);
    expect((await api('POST', '/api/bulk/posts/entries', { items: [{ data: { title: 'x' } }] })).status).toBe(403);
    expect((await api('GET', '/api/secrets')).status).toBe(403);
    expect((await api('GET', `/api/secrets/${secret}`)).status).toBe(403);
    expect((await api('POST', '/api/preview-tokens', { expires_in: 60 })).status).toBe(403);
    const g = await w.t.graphql(`mutation { updatePost(uuid: "${post}", data: { title: "x" }) { uuid } }`, undefined, headers);
    expect(g.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await w.api('GET', `/api/posts/${post}?state=draft`)).body.fields.title).toBe('Draft title');
  });

  it('a release-scoped preview token reads the published view and its release only', async () => {
    const { headers } = await issue({ expires_in: 3600, release: randomUUID() });
    const api = as(headers);
    expect((await api('GET', `/api/posts/${post}`)).status).toBe(200);
    expect((await api('GET', `/api/posts/${post}?state=draft`)).status).toBe(403);
    expect((await api('GET', '/api/posts?state=draft')).status).toBe(403);
    expect((await api('GET', `/api/posts/${post}/versions`)).status).toBe(403);
  });

  it('is refused once revoked or expired (401)', async () => {
    const revoked = await issue({ expires_in: 3600 });
    expect((await as(revoked.headers)('GET', '/api/posts')).status).toBe(200);
    expect((await w.api('DELETE', `/api/preview-tokens/${revoked.id}`)).status).toBe(200);
    expect((await as(revoked.headers)('GET', '/api/posts')).status).toBe(401);

    const short = await issue({ expires_in: 60 });
    expect((await as(short.headers)('GET', '/api/posts')).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      expect((await as(short.headers)('GET', '/api/posts')).status).toBe(401);
      expect((await w.t.graphql('{ posts { data { title } } }', undefined, short.headers)).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });
});
