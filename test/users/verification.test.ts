import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

describe('email verification', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld();
  });
  afterAll(() => w.t.close());

  const requireVerification = (on: boolean) =>
    w.t.request({ method: 'PATCH', url: '/api/project', headers: w.p.headers, body: { require_email_verification: on } });

  it('is a project setting, off by default, changed over REST (admin) and GraphQL', async () => {
    const project = await w.t.request({ method: 'GET', url: '/api', headers: w.p.headers });
    expect(project.body.require_email_verification).toBe(false);
    const reader = await w.p.tokenWith(['read', 'update']);
    expect((await w.t.request({ method: 'PATCH', url: '/api/project', headers: reader, body: { require_email_verification: true } })).status).toBe(403);
    const bad = await w.t.request({ method: 'PATCH', url: '/api/project', headers: w.p.headers, body: { require_email_verification: 'yes please' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.require_email_verification).toBeDefined();

    const on = await w.t.graphql('mutation { updateProjectSettings(requireEmailVerification: true) { requireEmailVerification } }', {}, w.p.headers);
    expect(on.body.data.updateProjectSettings.requireEmailVerification).toBe(true);
    const off = await requireVerification(false);
    expect(off.status).toBe(200);
    expect(off.body.require_email_verification).toBe(false);
  });

  it('signup answers 202 without a session; login is 403 until the address is confirmed', async () => {
    expect((await requireVerification(true)).body.require_email_verification).toBe(true);
    const res = await w.auth('POST', 'signup', { body: { email: 'verify@example.com', password: 'correct horse battery' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      message: expect.any(String),
      code: 'email_verification_required',
      verification_required: true,
      user: expect.objectContaining({ email: 'verify@example.com', email_verified_at: null }),
      // no mailer and NODE_ENV is not production: the token comes back to the caller
      verification_token: expect.stringMatching(/^uev_/),
    });
    expect(res.body.access_token).toBeUndefined();

    const login = await w.auth('POST', 'login', { body: { email: 'verify@example.com', password: 'correct horse battery' } });
    expect(login.status).toBe(403);
    expect(login.body).toMatchObject({ code: 'email_verification_required', verification_required: true, verification_token: expect.stringMatching(/^uev_/) });
    // the wrong password learns nothing about the account's state
    expect((await w.auth('POST', 'login', { body: { email: 'verify@example.com', password: 'wrong password' } })).status).toBe(401);

    const bad = await w.auth('POST', 'verify-email/confirm', { body: { token: 'uev_not-a-token' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.token).toBeDefined();

    const confirmed = await w.auth('POST', 'verify-email/confirm', { body: { token: res.body.verification_token } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.user.email_verified_at).toEqual(expect.any(String));
    // one use only
    expect((await w.auth('POST', 'verify-email/confirm', { body: { token: res.body.verification_token } })).status).toBe(422);

    const after = await w.auth('POST', 'login', { body: { email: 'verify@example.com', password: 'correct horse battery' } });
    expect(after.status).toBe(200);
    expect(after.body.user.email_verified_at).toEqual(expect.any(String));
  });

  it('resend answers alike for unknown and known addresses, and issues a working token', async () => {
    await requireVerification(true);
    await w.auth('POST', 'signup', { body: { email: 'resend@example.com', password: 'correct horse battery' } });
    const unknown = await w.auth('POST', 'verify-email/resend', { body: { email: 'ghost@example.com' } });
    const known = await w.auth('POST', 'verify-email/resend', { body: { email: 'RESEND@example.com' } });
    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    expect(known.body.message).toBe(unknown.body.message);
    expect(unknown.body.verification_token).toBeUndefined();
    expect(known.body.verification_token).toMatch(/^uev_/);
    expect((await w.auth('POST', 'verify-email/confirm', { body: { token: known.body.verification_token } })).status).toBe(200);
    expect((await w.auth('POST', 'verify-email/resend', { body: { email: 'nope' } })).status).toBe(422);
  });

  it('refresh of an unverified user is 403 while the project requires verification', async () => {
    await requireVerification(false);
    const s = await w.signup('late@example.com');
    await requireVerification(true);
    const res = await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('email_verification_required');
    await requireVerification(false);
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(200);
  });
});

describe('email verification in production without a mailer', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ NODE_ENV: 'production' });
    await w.t.request({ method: 'PATCH', url: '/api/project', headers: w.p.headers, body: { require_email_verification: true } });
  });
  afterAll(() => w.t.close());

  it('never hands the token to the caller', async () => {
    const res = await w.auth('POST', 'signup', { body: { email: 'prod@example.com', password: 'correct horse battery' } });
    expect(res.status).toBe(202);
    expect(res.body.verification_token).toBeUndefined();
    expect(res.text).not.toMatch(/uev_/);
    const login = await w.auth('POST', 'login', { body: { email: 'prod@example.com', password: 'correct horse battery' } });
    expect(login.status).toBe(403);
    expect(login.text).not.toMatch(/uev_/);
  });

  it('hands it to a configured mailer instead', async () => {
    const sent: string[] = [];
    w.t.services.mailer = { delivers: true, sendVerification: async (m) => void sent.push(`${m.email} ${m.token}`) };
    try {
      const res = await w.auth('POST', 'signup', { body: { email: 'mailed@example.com', password: 'correct horse battery' } });
      expect(res.status).toBe(202);
      expect(res.body.verification_token).toBeUndefined();
      expect(sent).toHaveLength(1);
      const token = sent[0].split(' ')[1];
      expect((await w.auth('POST', 'verify-email/confirm', { body: { token } })).status).toBe(200);
    } finally {
      w.t.services.mailer = undefined;
    }
  });
});
