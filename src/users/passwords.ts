import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id, the library's default algorithm, with its default cost (m=19 MiB, t=2, p=1: OWASP's
 * minimum recommendation), run on libuv's thread pool so a hash never blocks the event loop. (The
 * library's `Algorithm` is a const enum, which tsx cannot inline, hence no explicit option.)
 */
export const hashPassword = (plain: string): Promise<string> => hash(plain);

/**
 * Compares against a stored hash; without one (unknown address, social-only account) it still
 * verifies against a dummy hash, so the answer takes as long whether or not the account exists.
 */
export async function verifyPassword(stored: string | null | undefined, plain: string): Promise<boolean> {
  if (!stored) {
    await verify(await dummyHash(), plain).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, plain);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
const dummyHash = (): Promise<string> => (dummy ??= hashPassword('timing-equaliser-not-a-password'));
