import type { Services } from '../context.ts';
import { keyRing, type KeyRing } from './jwt.ts';
import { noMailer, type Mailer } from './mailer.ts';
import { socialVerifiers, type SocialVerifier } from './social.ts';

interface UsersRuntime {
  keys: KeyRing;
  social: Map<string, SocialVerifier>;
}

/** Built once per configuration (a process has one): key ring and social key sets are costly to rebuild. */
const runtimes = new WeakMap<Services['config'], UsersRuntime>();

export function usersRuntime(services: Pick<Services, 'config' | 'log'>): UsersRuntime {
  let rt = runtimes.get(services.config);
  if (!rt) {
    rt = { keys: keyRing(services.config), social: socialVerifiers(services.config.AUTH_SOCIAL_PROVIDERS) };
    if (rt.keys.ephemeral) services.log.warn('AUTH_JWT_KEYS is not set: end-user access tokens are signed with a per-process key (lost on restart, not shared by replicas)');
    runtimes.set(services.config, rt);
  }
  return rt;
}

export const mailerOf = (services: Pick<Services, 'mailer'>): Mailer => services.mailer ?? noMailer;

/**
 * Whether a verification token goes back to the caller: only when nothing delivers mail and the
 * process is not in production. In production without a mailer the token reaches nobody (the user
 * asks an administrator, who can mark the address verified) and is never logged.
 */
export const exposeVerificationToken = (services: Pick<Services, 'mailer' | 'config'>): boolean =>
  !mailerOf(services).delivers && services.config.NODE_ENV !== 'production';
