import type { EndUserCtx } from '../users/context.ts';
import { changePasswordBody, confirmBody, createApiKeyBody, loginBody, refreshBody, resendBody, signupBody, socialLoginBody } from '../users/inputs.ts';
import { signup } from '../users/signup.ts';
import { login } from '../users/login.ts';
import { loginSocial } from '../users/social-login.ts';
import { refresh } from '../users/refresh.ts';
import { changePassword, logout, logoutAll, me } from '../users/account.ts';
import { confirmVerification, resendVerification } from '../users/verify-email.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../users/api-keys.ts';
import { ref } from './openapi/components.ts';
import { defineRoutes, type HttpMethod, type RestInput, type RestResult, type RouteDef } from './route.ts';

/**
 * Project end-user auth (docs/auth.md): the project comes from `project-id`, no CMS token.
 * Routes marked "user" take the end user's access token (`Authorization: Bearer <access_token>`).
 */
const endUser = (
  method: HttpMethod,
  url: string,
  summary: string,
  run: (ctx: EndUserCtx, input: RestInput) => Promise<RestResult>,
  extra: Partial<RouteDef> & Pick<RouteDef, 'successStatus' | 'response'>,
): RouteDef => ({
  method,
  url,
  ability: null,
  auth: 'enduser',
  summary,
  tags: ['end-user auth'],
  handler: async () => ({ status: 404 }),
  endUserHandler: run,
  ...extra,
});

export const authRoutes = defineRoutes([
  endUser('POST', '/api/auth/signup', 'Sign up an end user: 201 token payload, or 202 when the project requires email verification', async (ctx, { body }) => signup(ctx, body), { body: signupBody, successStatus: 201, response: { schema: ref('EndUserTokens') } }),
  endUser('POST', '/api/auth/login', 'Sign in with email and password (401 Invalid credentials.; 429 with retry_after after repeated failures)', async (ctx, { body }) => ({ body: await login(ctx, body) }), { body: loginBody, successStatus: 200, response: { schema: ref('EndUserTokens') } }),
  endUser('POST', '/api/auth/login/social', 'Sign in with a social provider id_token (verified against the provider JWKS)', async (ctx, { body }) => ({ body: await loginSocial(ctx, body) }), { body: socialLoginBody, successStatus: 200, response: { schema: ref('EndUserTokens') } }),
  endUser('POST', '/api/auth/refresh', 'Rotate a refresh token for new tokens (presented again within the reuse grace it answers again; later it revokes its session)', async (ctx, { body }) => ({ body: await refresh(ctx, body) }), { body: refreshBody, successStatus: 200, response: { schema: ref('EndUserTokens') } }),
  endUser('GET', '/api/auth/me', 'The signed-in end user (user access token or uak_ key)', async (ctx) => ({ body: await me(ctx) }), { successStatus: 200, response: { schema: ref('EndUserMe') } }),
  endUser('POST', '/api/auth/change-password', 'Change the password (user; the current password counts towards the login lockout); other sessions are signed out', async (ctx, { body }) => ({ body: await changePassword(ctx, body) }), { body: changePasswordBody, successStatus: 200, response: { schema: ref('Message') } }),
  endUser('POST', '/api/auth/logout', 'End the current session (user)', async (ctx) => ({ body: await logout(ctx) }), { successStatus: 200, response: { schema: ref('Message') } }),
  endUser('POST', '/api/auth/logout-all', 'End every session of the user (user)', async (ctx) => ({ body: await logoutAll(ctx) }), { successStatus: 200, response: { schema: ref('Message') } }),
  endUser('POST', '/api/auth/verify-email/resend', 'Send a new email verification token', async (ctx, { body }) => ({ body: await resendVerification(ctx, body) }), { body: resendBody, successStatus: 200, response: { schema: ref('Message') } }),
  endUser('POST', '/api/auth/verify-email/confirm', 'Confirm an email address with its verification token', async (ctx, { body }) => ({ body: await confirmVerification(ctx, body) }), { body: confirmBody, successStatus: 200, response: { schema: ref('Message') } }),
  endUser('GET', '/api/auth/api-keys', "List the user's API keys (user)", async (ctx) => ({ body: await listApiKeys(ctx) }), { successStatus: 200, response: { schema: ref('UserApiKeyList') } }),
  endUser('POST', '/api/auth/api-keys', 'Create an API key (user); the plain uak_ key is shown once', async (ctx, { body }) => ({ status: 201, body: await createApiKey(ctx, body) }), { body: createApiKeyBody, successStatus: 201, response: { schema: ref('UserApiKeyCreated') } }),
  endUser('POST', '/api/auth/api-keys/:id/revoke', 'Revoke an API key (user)', async (ctx, { params }) => ({ body: await revokeApiKey(ctx, params.id) }), { successStatus: 200, response: { schema: ref('Message') } }),
]);
