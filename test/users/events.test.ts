import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, webhookEnv, type Receiver, type WebhookTestEnv } from '../webhooks/helpers.ts';

const AUTH_EVENTS = ['auth.signup.success', 'auth.login.success', 'auth.logout.success', 'auth.logout_all.success', 'auth.email_verification.verified'];

/** Each end-user flow writes its `auth.*` event in its transaction; deliveries go out like content events. */
describe('end-user auth flows deliver their auth.* events', () => {
  let env: WebhookTestEnv;
  let api: Receiver;
  let cms: Receiver;
  beforeAll(async () => {
    // Redis: BullMQ delivery and the end-user budgets both go through it here.
    env = await webhookEnv({ redis: true });
    api = await startReceiver();
    cms = await startReceiver();
    await env.hook({ name: 'auth', url: api.url, events: AUTH_EVENTS, sources: ['api'], secret: 'shh-secret' });
    await env.hook({ name: 'cms only', url: cms.url, events: AUTH_EVENTS, sources: ['cms'] });
  });
  afterAll(async () => {
    await env.close();
    await api.close();
    await cms.close();
  });

  const auth = (path: string, body?: unknown, token?: string) =>
    env.t.request({ method: 'POST', url: `/api/auth/${path}`, headers: { 'project-id': env.p.uuid, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });

  it('signup, login, logout, logout-all and email verification each deliver once, with the user and never a secret', async () => {
    await env.t.request({ method: 'PATCH', url: '/api/project', headers: env.p.headers, body: { require_email_verification: true } });
    const signup = await auth('signup', { email: 'hooked@example.com', password: 'correct horse battery' });
    expect(signup.status).toBe(202);
    expect((await auth('verify-email/confirm', { token: signup.body.verification_token })).status).toBe(200);
    const a = await auth('login', { email: 'hooked@example.com', password: 'correct horse battery' });
    const b = await auth('login', { email: 'hooked@example.com', password: 'correct horse battery' });
    expect((await auth('logout', undefined, a.body.access_token)).status).toBe(200);
    expect((await auth('logout-all', undefined, b.body.access_token)).status).toBe(200);
    // failures emit nothing
    expect((await auth('login', { email: 'hooked@example.com', password: 'wrong password' })).status).toBe(401);

    const got = await api.until((r) => r.length >= 6);
    expect(got.map((r) => r.json.event).sort()).toEqual([
      'auth.email_verification.verified',
      'auth.login.success',
      'auth.login.success',
      'auth.logout.success',
      'auth.logout_all.success',
      'auth.signup.success',
    ]);
    for (const r of got) {
      expect(r.json).toMatchObject({ project_uuid: env.p.uuid, source: 'api', delivery_id: expect.any(String), timestamp: expect.anything() });
      expect(r.json.user).toMatchObject({ uuid: signup.body.user.uuid, email: 'hooked@example.com' });
      expect(r.raw).not.toMatch(/argon2|password_hash|urt_|uev_|eyJ/);
      expect(r.headers['x-webhook-signature']).toBeDefined();
    }
    expect(got.find((r) => r.json.event === 'auth.email_verification.verified')!.json.user.email_verified_at).toEqual(expect.any(String));
    expect(got.find((r) => r.json.event === 'auth.logout_all.success')!.json.revoked_sessions).toBe(1);

    // auth.* events only match webhooks whose sources include api (docs/webhooks.md)
    await new Promise((ok) => setTimeout(ok, 300));
    expect(cms.received).toHaveLength(0);
  });
});
