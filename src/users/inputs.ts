import { z } from 'zod';

/** Request bodies of the end-user routes (docs/auth.md), with Laravel-style messages. */

const email = z
  .string({ error: 'The email field is required.' })
  .trim()
  .max(255, 'The email field must not be greater than 255 characters.')
  .pipe(z.email({ error: 'The email field must be a valid email address.' }));

const newPassword = (field: string) =>
  z
    .string({ error: `The ${field} field is required.` })
    .min(8, `The ${field} field must be at least 8 characters.`)
    .max(255, `The ${field} field must not be greater than 255 characters.`);

export const signupBody = z.object({
  email,
  password: newPassword('password'),
  display_name: z.string().trim().max(255, 'The display name field must not be greater than 255 characters.').nullish(),
});

export const loginBody = z.object({
  email,
  password: z.string({ error: 'The password field is required.' }).min(1, 'The password field is required.').max(255),
});

export const socialLoginBody = z.object({
  provider: z.string({ error: 'The provider field is required.' }).trim().min(1, 'The provider field is required.').max(50),
  id_token: z.string({ error: 'The id token field is required.' }).min(1, 'The id token field is required.').max(16_384),
  nonce: z.string().max(255, 'The nonce field must not be greater than 255 characters.').optional(),
});

export const refreshBody = z.object({
  refresh_token: z.string({ error: 'The refresh token field is required.' }).min(40, 'The refresh token field must be at least 40 characters.').max(255),
});

export const changePasswordBody = z
  .object({
    current_password: z.string({ error: 'The current password field is required.' }).min(1, 'The current password field is required.').max(255),
    new_password: newPassword('new password'),
  })
  .refine((b) => b.current_password !== b.new_password, { path: ['new_password'], message: 'The new password field and current password must be different.' });

export const resendBody = z.object({ email });

export const confirmBody = z.object({
  token: z.string({ error: 'The token field is required.' }).min(1, 'The token field is required.').max(255),
});

const SCOPE = /^[A-Za-z0-9:._*-]{1,100}$/;

export const createApiKeyBody = z.object({
  name: z.string({ error: 'The name field is required.' }).trim().min(1, 'The name field is required.').max(255, 'The name field must not be greater than 255 characters.'),
  scopes: z.array(z.string().regex(SCOPE, 'Each scope is 1-100 letters, digits or : . _ * -.')).max(50).optional(),
  expires_at: z.iso
    .datetime({ offset: true, error: 'The expires at field must be an ISO 8601 date-time.' })
    .nullish()
    .refine((v) => v == null || new Date(v).getTime() > Date.now(), 'The expires at field must be a date after now.'),
});

export const updateUserBody = z
  .object({
    disabled: z.boolean().optional(),
    email_verified: z.boolean().optional(),
    display_name: z.string().trim().max(255).nullish(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();


export const normalizeEmail = (e: string): string => e.trim().toLowerCase();
