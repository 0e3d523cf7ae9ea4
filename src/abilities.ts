import { forbidden } from './errors.ts';

export const ABILITIES = ['read', 'create', 'update', 'delete', 'admin'] as const;
export type Ability = (typeof ABILITIES)[number];
/** What a token may carry: the five abilities or the wildcard. */
export type Grant = Ability | '*';

export const isGrant = (s: string): s is Grant => s === '*' || (ABILITIES as readonly string[]).includes(s);

export function holds(grants: readonly string[], ability: Ability): boolean {
  return grants.includes('*') || grants.includes(ability);
}

/** The refusal of an action needing `ability` to a caller without it. */
export const missingAbility = (ability: Ability) => forbidden(`Forbidden. This action requires the "${ability}" or "*" ability.`);

export function requireAbility(grants: readonly string[], ability: Ability): void {
  if (!holds(grants, ability)) throw missingAbility(ability);
}
