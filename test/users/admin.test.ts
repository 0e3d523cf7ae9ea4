import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

describe('CMS administration of end users', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld();
  });
  afterAll(() => w.t.close());

  it('lists users (admin only), never with secrets, and only this project’s', async () => {
    await w.signup('list-a@example.com');
    await w.signup('list-b@example.com');
    const other = await w.t.project({ name: 'Other' });
    await w.auth('POST', 'signup', { project: other.uuid, body: { email: 'list-c@example.com', password: 'correct horse battery' } });

    const res = await w.t.request({ method: 'GET', url: '/api/project/users?per_page=10', headers: w.p.headers });
    expect(res.status).toBe(200);
    expect(res.body.data.map((u: { email: string }) => u.email)).toEqual(['list-b@example.com', 'list-a@example.com']);
    expect(res.body.meta).toEqual({ current_page: 1, per_page: 10, total: 2, last_page: 1 });
    expect(res.body.data[0]).toMatchObject({ disabled: false, disabled_at: null, last_login_at: expect.any(String) });
    expect(res.text).not.toMatch(/argon2|password|urt_/);

    const search = await w.t.request({ method: 'GET', url: '/api/project/users?search=LIST-A', headers: w.p.headers });
    expect(search.body.data.map((u: { email: string }) => u.email)).toEqual(['list-a@example.com']);

    const editor = await w.p.tokenWith(['read', 'create', 'update', 'delete']);
    expect((await w.t.request({ method: 'GET', url: '/api/project/users', headers: editor })).status).toBe(403);
    expect((await w.t.request({ method: 'GET', url: '/api/project/users?per_page=1000', headers: w.p.headers })).status).toBe(422);
  });

  it('a disabled user cannot log in or refresh, and their access tokens stop working at once', async () => {
    const s = await w.signup('disabled@example.com');
    const res = await w.t.request({ method: 'PATCH', url: `/api/project/users/${s.user.uuid}`, headers: w.p.headers, body: { disabled: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ disabled: true, disabled_at: expect.any(String) });
    expect((await w.auth('GET', 'me', { token: s.access_token })).status).toBe(401);
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(401);
    const login = await w.auth('POST', 'login', { body: { email: 'disabled@example.com', password: 'correct horse battery' } });
    expect(login.status).toBe(403);
    expect(login.body.code).toBe('account_disabled');
    // without the password, a disabled account looks like any other failure
    expect((await w.auth('POST', 'login', { body: { email: 'disabled@example.com', password: 'wrong password' } })).status).toBe(401);

    const enabled = await w.t.request({ method: 'PATCH', url: `/api/project/users/${s.user.uuid}`, headers: w.p.headers, body: { disabled: false } });
    expect(enabled.body.disabled).toBe(false);
    expect((await w.auth('POST', 'login', { body: { email: 'disabled@example.com', password: 'correct horse battery' } })).status).toBe(200);
    // disabling revoked the old session for good
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(401);
  });

  it('validates PATCH bodies and answers 404 for unknown or foreign users', async () => {
    const s = await w.signup('patch@example.com');
    const bad = await w.t.request({ method: 'PATCH', url: `/api/project/users/${s.user.uuid}`, headers: w.p.headers, body: { disabled: 'yes' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.disabled).toBeDefined();
    const unknownKey = await w.t.request({ method: 'PATCH', url: `/api/project/users/${s.user.uuid}`, headers: w.p.headers, body: { password_hash: 'x' } });
    expect(unknownKey.status).toBe(422);
    expect((await w.t.request({ method: 'PATCH', url: '/api/project/users/00000000-0000-4000-8000-000000000000', headers: w.p.headers, body: { disabled: true } })).status).toBe(404);
    const other = await w.t.project({ name: 'Foreign' });
    expect((await w.t.request({ method: 'DELETE', url: `/api/project/users/${s.user.uuid}`, headers: other.headers })).status).toBe(404);
    const meta = await w.t.request({ method: 'PATCH', url: `/api/project/users/${s.user.uuid}`, headers: w.p.headers, body: { metadata: { plan: 'gold' }, display_name: 'Pat', email_verified: true } });
    expect(meta.body).toMatchObject({ metadata: { plan: 'gold' }, display_name: 'Pat', email_verified_at: expect.any(String) });
  });

  it('deletes a user: the account, its sessions and the address become free', async () => {
    const s = await w.signup('deleted@example.com');
    const res = await w.t.request({ method: 'DELETE', url: `/api/project/users/${s.user.uuid}`, headers: w.p.headers });
    expect(res.status).toBe(200);
    expect((await w.auth('GET', 'me', { token: s.access_token })).status).toBe(401);
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(401);
    expect((await w.t.request({ method: 'GET', url: `/api/project/users/${s.user.uuid}`, headers: w.p.headers })).status).toBe(404);
    expect((await w.auth('POST', 'signup', { body: { email: 'deleted@example.com', password: 'correct horse battery' } })).status).toBe(201);
  });

  it('offers the same over GraphQL: projectUsers, disableProjectUser, updateProjectUser, deleteProjectUser', async () => {
    const s = await w.signup('graphql@example.com');
    const list = await w.t.graphql('query($s: String) { projectUsers(search: $s) { total data { uuid email disabled } } }', { s: 'graphql@' }, w.p.headers);
    expect(list.body.data.projectUsers).toEqual({ total: 1, data: [{ uuid: s.user.uuid, email: 'graphql@example.com', disabled: false }] });

    const disabled = await w.t.graphql('mutation($u: String!) { disableProjectUser(uuid: $u) { disabled disabledAt } }', { u: s.user.uuid }, w.p.headers);
    expect(disabled.body.data.disableProjectUser).toEqual({ disabled: true, disabledAt: expect.any(String) });
    expect((await w.auth('GET', 'me', { token: s.access_token })).status).toBe(401);

    const updated = await w.t.graphql('mutation($u: String!) { updateProjectUser(uuid: $u, input: { disabled: false, displayName: "G" }) { disabled displayName } }', { u: s.user.uuid }, w.p.headers);
    expect(updated.body.data.updateProjectUser).toEqual({ disabled: false, displayName: 'G' });

    const reader = await w.p.tokenWith(['read']);
    const denied = await w.t.graphql('mutation($u: String!) { deleteProjectUser(uuid: $u) }', { u: s.user.uuid }, reader);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const deleted = await w.t.graphql('mutation($u: String!) { deleteProjectUser(uuid: $u) }', { u: s.user.uuid }, w.p.headers);
    expect(deleted.body.data.deleteProjectUser).toBe(true);
    const gone = await w.t.graphql('query($u: String!) { projectUser(uuid: $u) { uuid } }', { u: s.user.uuid }, w.p.headers);
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
