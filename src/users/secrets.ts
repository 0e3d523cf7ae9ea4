import { createHash, randomBytes } from 'node:crypto';

/**
 * Opaque bearer secrets of the end-user flows. Only their sha256 is stored: a database leak yields
 * nothing that signs anyone in. 32 random bytes each, with a prefix that says what a string is.
 */
export const REFRESH_PREFIX = 'urt_';
export const API_KEY_PREFIX = 'uak_';
export const VERIFICATION_PREFIX = 'uev_';

export const newSecret = (prefix: string): string => prefix + randomBytes(32).toString('base64url');

export const sha256 = (plain: string): string => createHash('sha256').update(plain).digest('hex');
